/**
 * The page's HTML and CSS, hand-written and kept as string constants (tsc copies no asset files);
 * the script is TypeScript under page/, bundled at build time (bundle.ts). No network, no CDN.
 */

export const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Inventory mirror</title>
<link rel="stylesheet" href="_browser/app.css">
</head>
<body>
<header>
<h1><a href="#">Inventory mirror</a></h1>
<input id="q" type="search" placeholder="Search names, addresses, connections… (press /)" autocomplete="off" aria-label="Search every resource">
</header>
<nav id="resources" aria-label="Resources"></nav>
<main id="view"><p>Loading… (this page needs _browser/data.js beside it)</p></main>
<p id="status" class="sr-only" role="status" aria-live="polite"></p>
<script src="_browser/data.js"></script>
<script src="_browser/app.js"></script>
</body>
</html>
`;

export const APP_CSS = `*{box-sizing:border-box}
:root{color-scheme:light dark}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2430;background:#f6f7f9}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
h2:focus{outline:none}
header{display:flex;flex-wrap:wrap;gap:.6rem 1.5rem;align-items:center;padding:.7rem 1.5rem;background:#1f3a5f;color:#fff}
header h1{font-size:1.15rem;margin:0;white-space:nowrap}
header h1 a{color:#fff;text-decoration:none}
#q{flex:1 1 14rem;min-width:0;max-width:36rem;padding:.5rem .75rem;font-size:1rem;border:0;border-radius:6px}
nav#resources{display:flex;flex-wrap:wrap;gap:.4rem;padding:.7rem 1.5rem;border-bottom:1px solid #dde1e7;background:#fff}
nav#resources a{padding:.25rem .7rem;border-radius:999px;background:#e8eef6;color:#1f3a5f;text-decoration:none;white-space:nowrap}
nav#resources a b{margin-left:.35rem}
main{padding:1rem 1.5rem;max-width:90rem}
h2{font-size:1.2rem;margin:.4rem 0 .8rem}
h2 small{font-weight:normal;color:#5b6473;margin-left:.5rem;font-size:.9rem}
h3{font-size:1rem;margin:.8rem 0 .3rem}
a{color:#1b5fad}
.muted{color:#5b6473}
.error{color:#a3271f}
ul.results{list-style:none;padding:0;margin:0;background:#fff;border:1px solid #dde1e7;border-radius:6px}
ul.results li{padding:.3rem .75rem;border-top:1px solid #eef0f3;overflow-wrap:anywhere}
ul.results li:first-child{border-top:0}
table{border-collapse:collapse;background:#fff;border:1px solid #dde1e7}
th,td{text-align:left;vertical-align:top;padding:.35rem .7rem;border-top:1px solid #eef0f3}
th{color:#5b6473;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.scroll,.tablewrap{overflow-x:auto;max-width:100%}
.toolbar{display:flex;flex-wrap:wrap;gap:.5rem .8rem;align-items:center;margin-bottom:.8rem}
.toolbar input[type=search]{flex:0 1 18rem;min-width:0;padding:.4rem .6rem;border:1px solid #c7ced8;border-radius:6px;font-size:.95rem}
.toolbar .searched{font-size:.85rem}
button,summary{font:inherit;font-size:.9rem;padding:.3rem .7rem;border:1px solid #c7ced8;border-radius:6px;background:#fff;color:#1f3a5f;cursor:pointer}
.chooser{position:relative}
.chooser>div{position:absolute;z-index:2;margin-top:.3rem;background:#fff;border:1px solid #c7ced8;border-radius:6px;padding:.5rem .8rem;max-height:22rem;overflow:auto;min-width:14rem;box-shadow:0 4px 14px rgba(0,0,0,.12)}
.chooser label{display:block;white-space:nowrap;font-size:.9rem}
.layout{display:grid;grid-template-columns:13.5rem minmax(0,1fr);gap:1rem;align-items:start}
.layout>.tablewrap:only-child{grid-column:1/-1}
.facets{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:.2rem .8rem .6rem}
.facet h3{font-size:.85rem;text-transform:uppercase;letter-spacing:.03em;color:#5b6473}
.facet ul{list-style:none;margin:0;padding:0}
.facet li{display:flex;gap:.4rem;font-size:.9rem;overflow-wrap:anywhere}
.facet li .count{margin-left:auto;flex:none;white-space:nowrap;color:#5b6473;font-variant-numeric:tabular-nums}
.facet li a,.facet li strong{min-width:0}
.facet a.clear{text-decoration:none;font-weight:bold;color:#a3271f}
table.grid{width:100%}
table.grid th{white-space:nowrap;background:#f0f3f7}
table.grid th,table.grid td{padding:.3rem .55rem}
table.grid th a{color:#1d2430;text-decoration:none}
table.grid td{white-space:nowrap}
table.grid td.long{white-space:normal;min-width:18rem}
.pager{display:flex;flex-wrap:wrap;gap:.3rem .9rem;align-items:center;padding:.6rem 0}
.pager .off{color:#5b6473}
nav#resources a[aria-current]{background:#1f3a5f;color:#fff}
h2 a.small{font-size:.85rem;font-weight:normal;margin-left:.6rem}
.filterbar{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin-bottom:.8rem}
.opfilter{display:flex;flex-wrap:wrap;gap:.3rem;align-items:center}
.opfilter select,.opfilter input,.toolbar select{font:inherit;font-size:.9rem;padding:.25rem .4rem;border:1px solid #c7ced8;border-radius:6px;background:#fff;color:inherit}
.chips{display:flex;flex-wrap:wrap;gap:.4rem}
.chip{display:inline-flex;gap:.4rem;align-items:center;padding:.15rem .3rem .15rem .7rem;border-radius:999px;background:#e8eef6;color:#1f3a5f;font-size:.9rem}
.chip a{text-decoration:none;font-weight:bold;color:#a3271f;padding:0 .35rem}
.facets>summary{display:none}
.facet details.more summary{border:0;padding:.1rem 0;color:#1b5fad;background:none}
.facet details.more input{width:100%;margin:.2rem 0;padding:.2rem .4rem;border:1px solid #c7ced8;border-radius:6px}
.bom{font-size:.85rem;white-space:nowrap}
table.grid thead th{position:sticky;top:0;z-index:1}
table.fields th{overflow-wrap:normal;word-break:normal;hyphens:manual}
p.raw{margin:-.5rem 0 .6rem;font-size:.9rem}
.record{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1.2rem;align-items:start}
table.fields{width:100%;table-layout:fixed}
table.fields>tbody>tr>th,table.fields>tr>th{width:13rem}
table.fields td{overflow-wrap:anywhere}
table.kv,table.nested{font-size:.88rem;border-color:#e4e8ee}
.stack{display:flex;flex-direction:column;gap:.5rem}
table.kv th{width:auto;font-weight:500;white-space:nowrap}
table.nested th,table.nested td{white-space:nowrap}
section.history ul.fields{margin:.2rem 0;padding-left:1.2rem;font-family:ui-monospace,monospace;font-size:.85rem}
.cards{display:flex;flex-wrap:wrap;gap:.8rem;margin-bottom:1rem}
.card{display:flex;flex-direction:column;min-width:9rem;padding:.7rem 1rem;background:#fff;border:1px solid #dde1e7;border-radius:8px;text-decoration:none;color:#1f3a5f}
.card b{font-size:1.5rem}
.change{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:.6rem .9rem;margin-bottom:.8rem}
.change ul{margin:.3rem 0;padding-left:1.2rem}
.change ul.ids{list-style:none;padding-left:.6rem;font-size:.9rem}
.change li{overflow-wrap:anywhere}
.change .removed{color:#a3271f}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,30rem),1fr));gap:1rem}
figure.chart{margin:0;background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:.6rem .9rem}
figure.chart figcaption{font-weight:600;margin-bottom:.4rem}
figure.chart svg{width:100%;max-width:44rem;height:auto;font-size:12px}
figure.chart .bar{fill:#3c78c3}
figure.chart a:hover .bar{fill:#1f3a5f}
figure.chart .lbl{fill:#1d2430}
figure.chart .val{fill:#5b6473}
table.findings td.count{white-space:nowrap;text-align:right}
@media (max-width:720px){
header,nav#resources,main{padding-left:.8rem;padding-right:.8rem}
.layout,.record{grid-template-columns:minmax(0,1fr)}
.facets>summary{display:inline-block;margin:.4rem 0}
.facets:not([open]){border:0;background:none;padding:0}
.toolbar input[type=search]{flex:1 1 100%}
table.fields>tbody>tr>th,table.fields>tr>th{white-space:normal;width:7rem}
table.kv th,table.kv td{white-space:normal;overflow-wrap:anywhere;padding:.3rem .4rem}
}
@media (prefers-color-scheme:dark){
body{color:#e3e7ee;background:#12161c}
header{background:#0d1a2b}
nav#resources,ul.results,table,.facets,.card,.change,figure.chart,.chooser>div{background:#1a2029;border-color:#2c3440}
nav#resources a,.chip{background:#25324a;color:#dbe6f5}
nav#resources a[aria-current]{background:#4d7fc4;color:#0b1220}
th,td,ul.results li{border-color:#2c3440}
table.grid th{background:#202733}
table.grid th a{color:#e3e7ee}
a,.facet details.more summary{color:#8ab8ff}
.muted,th,h2 small,.facet h3,.facet li .count,.pager .off{color:#a3adbb}
.error,.change .removed,.chip a,.facet a.clear{color:#ff8f85}
button,summary,.opfilter select,.opfilter input,.toolbar select,.toolbar input[type=search],.facet details.more input{background:#1a2029;color:#dbe6f5;border-color:#3a4452}
.card{color:#dbe6f5}
figure.chart .bar{fill:#6a9fe0}
figure.chart .lbl{fill:#e3e7ee}
figure.chart .val{fill:#a3adbb}
}
`;
