/**
 * The page itself: hand-written HTML, CSS and vanilla JS kept as string constants (tsc copies no
 * asset files). No network, no CDN, no build step; every value from the data is put into the page
 * with textContent, never as HTML.
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
<input id="q" type="search" placeholder="Search names in every resource…" autocomplete="off" aria-label="Search names">
</header>
<nav id="resources" aria-label="Resources"></nav>
<main id="view"><p>Loading… (this page needs _browser/data.js beside it)</p></main>
<script src="_browser/data.js"></script>
<script src="_browser/app.js"></script>
</body>
</html>
`;

export const APP_CSS = `*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2430;background:#f6f7f9}
header{display:flex;gap:1.5rem;align-items:center;padding:.8rem 1.5rem;background:#1f3a5f;color:#fff}
header h1{font-size:1.15rem;margin:0;white-space:nowrap}
header h1 a{color:#fff;text-decoration:none}
#q{flex:1;max-width:36rem;padding:.5rem .75rem;font-size:1rem;border:0;border-radius:6px}
nav{display:flex;flex-wrap:wrap;gap:.5rem;padding:.8rem 1.5rem;border-bottom:1px solid #dde1e7;background:#fff}
nav a{padding:.3rem .7rem;border-radius:999px;background:#e8eef6;color:#1f3a5f;text-decoration:none}
nav a b{margin-left:.35rem}
main{padding:1rem 1.5rem;max-width:72rem}
h2{font-size:1.2rem;margin:.4rem 0 .8rem}
h2 small{font-weight:normal;color:#5b6473;margin-left:.5rem}
ul.results{list-style:none;padding:0;margin:0;background:#fff;border:1px solid #dde1e7;border-radius:6px}
ul.results li{padding:.35rem .75rem;border-top:1px solid #eef0f3}
ul.results li:first-child{border-top:0}
.kind{display:inline-block;min-width:7.5rem;color:#5b6473;font-size:.85rem}
a{color:#1b5fad}
table{border-collapse:collapse;background:#fff;border:1px solid #dde1e7;width:100%}
th,td{text-align:left;vertical-align:top;padding:.35rem .7rem;border-top:1px solid #eef0f3}
th{width:14rem;color:#5b6473;font-weight:600}
td pre{margin:0;white-space:pre-wrap;word-break:break-word;font-size:.85rem}
section.links{margin-top:1rem}
section.links h3{font-size:1rem;margin:.6rem 0 .3rem}
.change{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:.6rem .9rem;margin-bottom:1rem}
.muted{color:#5b6473}
table.findings th{width:auto}
td.count{white-space:nowrap;text-align:right}
`;

export const APP_JS = `(function () {
  'use strict';
  var D = window.IM_DATA;
  var view = document.getElementById('view');
  if (!D) { view.textContent = 'No data: _browser/data.js is missing or damaged; run sync with --browser again.'; return; }
  var MAX_RESULTS = 200;
  var R = D.resources;
  var lower = {}, pos = {};
  D.order.forEach(function (r) {
    lower[r] = R[r].names.map(function (n) { return n.toLowerCase(); });
    pos[r] = new Map(R[r].ids.map(function (id, i) { return [id, i]; }));
  });
  var serverApps = R.servers.ids.map(function () { return []; });
  var serverDbs = R.servers.ids.map(function () { return []; });
  D.links.appserverServer.forEach(function (s, a) { if (s >= 0) serverApps[s].push(a); });
  D.links.databaseServers.forEach(function (list, d) { list.forEach(function (s) { serverDbs[s].push(d); }); });

  function el(tag, text, attrs) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (attrs) Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }
  function href(r, id) { return '#/' + r + '/' + encodeURIComponent(id); }
  function link(r, i) { return el('a', R[r].names[i], { href: href(r, R[r].ids[i]) }); }
  function clear() { view.textContent = ''; }

  var nav = document.getElementById('resources');
  D.order.forEach(function (r) {
    var a = el('a', r.replace('_', ' '), { href: '#/' + r });
    a.appendChild(el('b', R[r].ids.length));
    nav.appendChild(a);
  });

  var Q = D.quality || { findings: [], shape: {} };
  var qa = el('a', 'data quality', { href: '#/_quality', id: 'nav-quality' });
  qa.appendChild(el('b', Q.findings.reduce(function (n, f) { return n + f.count; }, 0)));
  nav.appendChild(qa);

  function fnv(id, buckets) {
    var h = 0x811c9dc5;
    for (var i = 0; i < id.length; i++) { h ^= id.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return h % buckets;
  }
  var loaded = {}, waiting = {};
  window.IM_RECORDS = function (r, n, records) {
    var key = r + '/' + n;
    loaded[key] = records;
    (waiting[key] || []).forEach(function (cb) { cb(records); });
    delete waiting[key];
  };
  // Own properties only: an id such as "constructor" must not find Object.prototype's.
  function own(recs, id) { return Object.prototype.hasOwnProperty.call(recs, id) ? recs[id] : undefined; }
  function withRecord(r, id, cb) {
    var key = r + '/' + fnv(id, R[r].buckets);
    if (loaded[key]) return cb(own(loaded[key], id));
    if (waiting[key]) return waiting[key].push(function (recs) { cb(own(recs, id)); });
    waiting[key] = [function (recs) { cb(own(recs, id)); }];
    var s = el('script', null, { src: '_browser/records/' + key + '.js' });
    s.onerror = function () { delete waiting[key]; view.appendChild(el('p', 'Could not load ' + s.getAttribute('src') + '.', { class: 'muted' })); };
    document.body.appendChild(s);
  }

  function results(title, hits, total) {
    clear();
    view.appendChild(el('h2', title)).appendChild(el('small', total > hits.length ? 'first ' + hits.length + ' of ' + total : String(total)));
    var ul = view.appendChild(el('ul', null, { class: 'results' }));
    hits.forEach(function (h) {
      var li = ul.appendChild(el('li'));
      li.appendChild(el('span', R[h[0]].singular.replace('_', ' '), { class: 'kind' }));
      li.appendChild(link(h[0], h[1]));
    });
  }

  function search(term) {
    var t = term.trim().toLowerCase();
    if (!t) return route();
    var hits = [], total = 0;
    D.order.forEach(function (r) {
      var names = lower[r];
      for (var i = 0; i < names.length; i++) if (names[i].indexOf(t) !== -1) { total++; if (hits.length < MAX_RESULTS) hits.push([r, i]); }
    });
    results('Names containing “' + term.trim() + '”', hits, total);
  }

  function changeSummary() {
    var c = D.lastChange;
    if (!c || typeof c !== 'object') return null;
    var box = el('div', null, { class: 'change' });
    box.appendChild(el('strong', c.initial ? 'First snapshot' : 'Last change'));
    box.appendChild(el('span', ' at ' + c.at, { class: 'muted' }));
    var counts = c.counts || {};
    var ids = c.resources || {};
    var ul = box.appendChild(el('ul'));
    D.order.forEach(function (r) {
      var n = counts[r] || ids[r];
      if (!n || typeof n !== 'object') return;
      var num = function (k) { return typeof n[k] === 'number' ? n[k] : Array.isArray(n[k]) ? n[k].length : 0; };
      var li = ul.appendChild(el('li', r.replace('_', ' ') + ': ' + num('added') + ' added, ' + num('removed') + ' removed, ' + num('changed') + ' changed'));
      var changed = ids[r] && Array.isArray(ids[r].changed) ? ids[r].changed.slice(0, 5) : [];
      changed.forEach(function (ch) {
        var id = ch && typeof ch === 'object' ? ch.id : ch;
        var i = pos[r].get(id);
        if (i === undefined) return;
        li.appendChild(document.createTextNode(' · '));
        li.appendChild(link(r, i));
      });
    });
    if (c.initial && c.records) ul.appendChild(el('li', 'records: ' + D.order.map(function (r) { return r + ' ' + (c.records[r] || 0); }).join(', ')));
    return box;
  }

  function home() {
    clear();
    var summary = changeSummary();
    if (summary) view.appendChild(summary);
    view.appendChild(el('h2', 'Resources'));
    var ul = view.appendChild(el('ul', null, { class: 'results' }));
    D.order.forEach(function (r) {
      var li = ul.appendChild(el('li'));
      li.appendChild(el('a', r.replace('_', ' '), { href: '#/' + r }));
      li.appendChild(el('span', ' ' + R[r].ids.length + ' records', { class: 'muted' }));
    });
  }

  function listResource(r) {
    var n = Math.min(R[r].ids.length, MAX_RESULTS);
    var hits = [];
    for (var i = 0; i < n; i++) hits.push([r, i]);
    results(r.replace('_', ' '), hits, R[r].ids.length);
  }

  function value(v) {
    if (v !== null && typeof v === 'object') return el('pre', JSON.stringify(v, null, 2));
    return el('span', v === null ? 'null' : String(v));
  }

  function linkSection(title, r, indexes) {
    var s = el('section', null, { class: 'links' });
    s.appendChild(el('h3', title + ' (' + indexes.length + ')'));
    var ul = s.appendChild(el('ul', null, { class: 'results' }));
    indexes.slice(0, MAX_RESULTS).forEach(function (i) { ul.appendChild(el('li')).appendChild(link(r, i)); });
    if (indexes.length === 0) ul.appendChild(el('li', 'none', { class: 'muted' }));
    return s;
  }

  function showRecord(r, id) {
    var i = pos[r] && pos[r].get(id);
    clear();
    if (i === undefined) { view.appendChild(el('h2', 'No ' + r + ' record with id ' + id)); return; }
    var h = view.appendChild(el('h2', R[r].names[i]));
    h.appendChild(el('small', R[r].singular.replace('_', ' ') + ' ' + id));
    var links = [];
    if (r === 'servers') links.push(linkSection('Appservers', 'appservers', serverApps[i]), linkSection('Databases', 'databases', serverDbs[i]));
    if (r === 'appservers') links.push(linkSection('Server', 'servers', D.links.appserverServer[i] >= 0 ? [D.links.appserverServer[i]] : []));
    if (r === 'databases') links.push(linkSection('Servers', 'servers', D.links.databaseServers[i]));
    links.forEach(function (s) { view.appendChild(s); });
    var table = el('table');
    view.insertBefore(table, links[0] || null);
    table.appendChild(el('tr')).appendChild(el('td', 'loading…', { class: 'muted' }));
    withRecord(r, id, function (record) {
      table.textContent = '';
      if (!record) { table.appendChild(el('tr')).appendChild(el('td', 'details not found', { class: 'muted' })); return; }
      Object.keys(record).forEach(function (k) {
        var tr = table.appendChild(el('tr'));
        tr.appendChild(el('th', k));
        tr.appendChild(el('td')).appendChild(value(record[k]));
      });
    });
  }

  function qualityView() {
    clear();
    view.appendChild(el('h2', 'Data quality')).appendChild(el('small', Q.findings.length + ' kinds of finding, largest first'));
    if (!Q.findings.length) view.appendChild(el('p', 'No findings: the service sent what its API document describes.', { class: 'muted' }));
    else {
      var table = view.appendChild(el('table', null, { class: 'findings' }));
      var head = table.appendChild(el('tr'));
      ['finding', 'records', 'meaning'].forEach(function (t) { head.appendChild(el('th', t)); });
      Q.findings.forEach(function (f, n) {
        var tr = table.appendChild(el('tr'));
        tr.appendChild(el('td')).appendChild(el('a', f.resource + (f.field ? ' ' + f.field : '') + ': ' + f.code, { href: '#/_quality/' + n }));
        tr.appendChild(el('td', f.count + ' (' + (f.share * 100).toFixed(1) + '%)', { class: 'count' }));
        tr.appendChild(el('td', f.meaning, { class: 'muted' }));
      });
    }
    var shape = Object.keys(Q.shape || {});
    if (shape.length) {
      view.appendChild(el('h3', 'Fields only one view carries (the service renders its list and single views differently; not a finding)'));
      var ul = view.appendChild(el('ul'));
      shape.forEach(function (r) {
        var s = Q.shape[r];
        ul.appendChild(el('li', r + ': only in the list ' + (s.listOnly.join(', ') || 'none') + '; only in the single view ' + (s.singleOnly.join(', ') || 'none')));
      });
    }
  }

  function findingView(n) {
    var f = Q.findings[n];
    clear();
    if (!f) { view.appendChild(el('h2', 'No such finding')); return; }
    view.appendChild(el('h2', f.resource + (f.field ? ' ' + f.field : '') + ': ' + f.code)).appendChild(el('small', f.count + ' records'));
    view.appendChild(el('p', f.meaning, { class: 'muted' }));
    var ul = view.appendChild(el('ul', null, { class: 'results' }));
    f.ids.forEach(function (id) {
      var i = pos[f.resource] && pos[f.resource].get(id);
      var li = ul.appendChild(el('li'));
      if (i === undefined) li.appendChild(el('span', id));
      else li.appendChild(link(f.resource, i)).after(el('span', ' ' + id, { class: 'muted' }));
    });
    if (f.count > f.ids.length) ul.appendChild(el('li', '… and ' + (f.count - f.ids.length) + ' more (all of them are in _meta/quality.json)', { class: 'muted' }));
  }

  function route() {
    var parts = location.hash.replace(/^#\\/?/, '').split('/');
    if (parts[0] === '_quality') return parts.length > 1 && parts[1] !== '' ? findingView(Number(parts[1])) : qualityView();
    // An own resource only: "#/constructor" must not find Object.prototype's.
    var r = own(R, parts[0]) ? parts[0] : '';
    if (r && parts.length > 1) return showRecord(r, decodeURIComponent(parts.slice(1).join('/')));
    if (r) return listResource(r);
    home();
  }

  var q = document.getElementById('q');
  var timer;
  q.addEventListener('input', function () {
    clearTimeout(timer);
    timer = setTimeout(function () { search(q.value); }, 120);
  });
  window.addEventListener('hashchange', function () { q.value = ''; route(); });
  route();
})();
`;
