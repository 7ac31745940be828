/**
 * The page's script, vanilla JS kept as a string (tsc copies no asset files). It loads data
 * through <script> tags (file:// pages cannot fetch()), puts every value from the data into the
 * page with textContent, never as HTML, and keeps each view's state in the URL's hash so a view
 * can be bookmarked. String.raw keeps its backslashes as they are.
 */
export const APP_JS = String.raw`(function () {
  'use strict';
  var D = window.IM_DATA;
  var view = document.getElementById('view');
  if (!D) { view.textContent = 'No data: _browser/data.js is missing or damaged; run sync with --browser again.'; return; }
  var R = D.resources;
  var PAGE = 50;
  // What a person looks at first; every other column is one click away in the column chooser.
  var DEFAULT_COLS = {
    servers: ['name', 'ip', 'operating_system', 'memory_GB', 'processor_system_count', 'virtual', 'hypervisor_name'],
    appservers: ['name', 'dns', 'server_name', 'runtime_version', 'appserver_version'],
    databases: ['name', 'type', 'servers', 'instances'],
    applications: ['name', 'description'],
    operating_systems: ['name', 'codename', 'parent']
  };
  // The service's own filters where the mirror holds them (by_system, by_virtual, by_location, by_type, …).
  var FACETS = {
    servers: ['operating_system', 'virtual', 'location.site', 'maintainer', 'arch', 'hardware.manufacturer'],
    databases: ['type'],
    appservers: ['runtime_version', 'server_name', 'appserver_version'],
    operating_systems: ['parent'],
    applications: []
  };
  // Short headings for long field names, so the default columns fit a laptop screen.
  var LABELS = { operating_system: 'OS', processor_system_count: 'CPUs', memory_GB: 'memory GB', hypervisor_name: 'hypervisor', processor_frequency_GHz: 'GHz', 'location.site': 'site', 'hardware.manufacturer': 'manufacturer', runtime_version: 'runtime', appserver_version: 'appserver version', server_name: 'server' };
  function colLabel(c) { return own(LABELS, c) || c.replace(/_/g, ' '); }
  var SEARCHED = ['name', 'ip', 'dns', 'description', 'vip', 'host_alias', 'hypervisor_name', 'server_name', 'server_names'];
  // Columns that name another record, and the resource it is in.
  var TARGET = { operating_system: 'operating_systems', parent: 'operating_systems', server: 'servers', servers: 'servers', server_id: 'servers', server_name: 'servers' };

  function el(tag, text, attrs) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (attrs) Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }
  function label(r) { return r.replace('_', ' '); }
  function href(r, id) { return '#/' + r + '/' + encodeURIComponent(id); }
  function own(o, k) { return Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined; }
  function when(iso) { var d = new Date(iso); return isNaN(d.getTime()) ? String(iso) : d.toLocaleString(); }
  function clear() { view.textContent = ''; }
  function fmt(v) { return v === null || v === undefined ? '' : Array.isArray(v) ? v.join(', ') : String(v); }

  var nav = document.getElementById('resources');
  D.order.forEach(function (r) {
    var a = nav.appendChild(el('a', label(r), { href: '#/' + r }));
    a.appendChild(el('b', R[r].count));
  });
  nav.appendChild(el('a', 'charts', { href: '#/_charts', id: 'nav-charts' }));
  var Q = D.quality || { findings: [], shape: {} };
  var qa = nav.appendChild(el('a', 'data quality', { href: '#/_quality', id: 'nav-quality' }));
  qa.appendChild(el('b', Q.findings.reduce(function (n, f) { return n + f.count; }, 0)));

  // Scripts, not fetch(): Chromium fetches no file:// URL, but runs scripts beside the page.
  var scriptWait = {};
  function loadScript(src, onError) {
    var s = el('script', null, { src: src });
    s.onerror = function () { onError(src); };
    document.body.appendChild(s);
  }
  function failed(src) { view.appendChild(el('p', 'Could not load ' + src + ': the snapshot is incomplete; run sync with --browser again.', { class: 'error' })); }

  // Tables: one script per chunk, merged into columns when the last one has arrived.
  var tables = {}, parts = {};
  window.IM_TABLE = function (r, n, ids, columns) {
    var p = parts[r];
    if (!p || p.chunks[n]) return;
    p.chunks[n] = { ids: ids, columns: columns };
    p.left--;
    p.progress.forEach(function (cb) { cb(p.chunks[n], p.chunks.length - p.left, p.chunks.length); });
    if (p.left === 0) {
      tables[r] = merge(r, p.chunks);
      var cbs = p.cbs;
      delete parts[r];
      cbs.forEach(function (cb) { cb(tables[r]); });
    }
  };
  function merge(r, chunks) {
    var n = chunks.reduce(function (s, c) { return s + c.ids.length; }, 0);
    var T = { r: r, n: n, ids: new Array(n), cols: {}, names: [], pos: new Map(), text: null };
    var at = 0;
    chunks.forEach(function (c) {
      // A column is [name, cells] or [name, codes, values]: coded where few values repeat.
      c.columns.forEach(function (col) {
        var k = col[0];
        if (!own(T.cols, k)) { T.cols[k] = new Array(n).fill(null); T.names.push(k); }
        var src = col[1], dst = T.cols[k], values = col[2];
        if (values) for (var i = 0; i < src.length; i++) dst[at + i] = values[src[i]];
        else for (var j = 0; j < src.length; j++) dst[at + j] = src[j];
      });
      for (var i = 0; i < c.ids.length; i++) { T.ids[at + i] = c.ids[i]; T.pos.set(c.ids[i], at + i); }
      at += c.ids.length;
    });
    if (!own(T.cols, 'name')) { T.cols.name = T.ids.slice(); T.names.unshift('name'); }
    return T;
  }
  // progress(chunk, loaded, total) is called as each chunk arrives, before the table is whole.
  function withTable(r, cb, progress) {
    if (tables[r]) return cb(tables[r]);
    if (parts[r]) { if (progress) parts[r].progress.push(progress); return parts[r].cbs.push(cb); }
    var count = R[r].chunks;
    parts[r] = { chunks: new Array(count), left: count, cbs: [cb], progress: progress ? [progress] : [] };
    for (var c = 0; c < count; c++) loadScript('_browser/tables/' + r + '/' + c + '.js', failed);
  }
  function withTables(rs, cb) {
    var left = rs.length;
    rs.forEach(function (r) { withTable(r, function () { if (--left === 0) cb(); }); });
  }
  function nameOf(r, id) { var T = tables[r]; var i = T && T.pos.get(id); return i === undefined ? id : fmt(T.cols.name[i]) || id; }

  // Record details: one bucket script holds a few hundred records; the same hash as the sync's.
  function fnv(id, buckets) {
    var h = 0x811c9dc5;
    for (var i = 0; i < id.length; i++) { h ^= id.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return h % buckets;
  }
  var loaded = {};
  window.IM_RECORDS = function (r, n, records) {
    var key = r + '/' + n;
    loaded[key] = records;
    (scriptWait[key] || []).forEach(function (cb) { cb(records); });
    delete scriptWait[key];
  };
  function withRecord(r, id, cb) {
    var key = r + '/' + fnv(id, R[r].buckets);
    if (loaded[key]) return cb(own(loaded[key], id));
    if (scriptWait[key]) return scriptWait[key].push(function (recs) { cb(own(recs, id)); });
    scriptWait[key] = [function (recs) { cb(own(recs, id)); }];
    loadScript('_browser/records/' + key + '.js', function (src) { delete scriptWait[key]; failed(src); });
  }

  var history = null, historyWait = null;
  window.IM_HISTORY = function (h) {
    history = h && Array.isArray(h.entries) ? h : { entries: [] };
    (historyWait || []).forEach(function (cb) { cb(history); });
    historyWait = null;
  };
  function withHistory(cb) {
    if (history) return cb(history);
    if (historyWait) return historyWait.push(cb);
    historyWait = [cb];
    loadScript('_browser/history.js', function () { window.IM_HISTORY({ entries: [] }); });
  }

  // Links: the ids a cell points to, and the resource they are in.
  function linkIds(T, col, i) {
    var ids = own(T.cols, col + '.id') ? T.cols[col + '.id'][i] : null;
    if (ids) return ids;
    if (col === 'server_name' && own(T.cols, 'server_id')) return T.cols.server_id[i] ? [T.cols.server_id[i]] : null;
    if (col === 'server_id') return T.cols.server_id[i] ? [T.cols.server_id[i]] : null;
    return null;
  }
  function cellNode(T, col, i) {
    var v = T.cols[col] ? T.cols[col][i] : null;
    if (col === 'name') return el('a', fmt(v) || T.ids[i], { href: href(T.r, T.ids[i]) });
    var ids = own(TARGET, col) ? linkIds(T, col, i) : null;
    if (ids && ids.length) {
      var span = el('span');
      ids.forEach(function (id, k) {
        if (k) span.appendChild(document.createTextNode(', '));
        span.appendChild(el('a', ids.length === 1 && v !== null ? fmt(v) : nameOf(TARGET[col], id), { href: href(TARGET[col], id) }));
      });
      return span;
    }
    if (v === null) return el('span', '—', { class: 'muted' });
    return el('span', typeof v === 'boolean' ? (v ? 'yes' : 'no') : fmt(v));
  }

  // The operating-system tree: a facet value on a system counts its descendants' servers too (by_system).
  function osTree() {
    var T = tables.operating_systems;
    // Keyed by ids from the data: no prototype, so an id "constructor" or "__proto__" is a key like any other.
    var children = Object.create(null), roots = [];
    if (!T) return { children: children, roots: roots };
    var parent = T.cols['parent.id'] || [];
    T.ids.forEach(function (id, i) {
      var p = parent[i] && parent[i][0];
      if (p && T.pos.has(p)) (children[p] = children[p] || []).push(id); else roots.push(id);
    });
    return { children: children, roots: roots };
  }
  function descendants(tree, id) {
    var out = new Set(), stack = [id];
    while (stack.length) { var x = stack.pop(); if (out.has(x)) continue; out.add(x); (tree.children[x] || []).forEach(function (c) { stack.push(c); }); }
    return out;
  }

  function parseHash() {
    var h = location.hash.replace(/^#\/?/, '');
    var q = h.indexOf('?');
    var path = (q < 0 ? h : h.slice(0, q)).split('/');
    var params = new URLSearchParams(q < 0 ? '' : h.slice(q + 1));
    return { path: path, params: params };
  }
  function hashOf(r, params) { var s = params.toString(); return '#/' + r + (s ? '?' + s : ''); }
  function withParam(params, key, value) {
    var p = new URLSearchParams(params);
    if (value === null) p.delete(key); else p.set(key, value);
    if (key !== 'page') p.delete('page');
    return p;
  }

  function searchedFields(T) { return SEARCHED.filter(function (k) { return own(T.cols, k); }); }
  function textIndex(T) {
    if (T.text) return T.text;
    var fields = searchedFields(T).map(function (k) { return T.cols[k]; });
    T.text = new Array(T.n);
    for (var i = 0; i < T.n; i++) {
      var s = '';
      for (var f = 0; f < fields.length; f++) if (fields[f][i] !== null) s += fmt(fields[f][i]).toLowerCase() + '\u0001';
      T.text[i] = s;
    }
    return T.text;
  }

  // One filter test per facet given in the URL; skip leaves one out (for that facet's own counts).
  function matcher(T, params, skip) {
    var tests = [];
    params.forEach(function (value, key) {
      if (key.indexOf('f.') !== 0) return;
      var col = key.slice(2);
      if (col === skip || !own(T.cols, col)) return;
      if (col === 'operating_system' && own(T.cols, 'operating_system.id')) {
        var set = descendants(osTree(), value), ids = T.cols['operating_system.id'];
        tests.push(function (i) { return !!ids[i] && set.has(ids[i][0]); });
      } else {
        var c = T.cols[col];
        tests.push(function (i) { return fmt(c[i]) === value; });
      }
    });
    var term = (params.get('q') || '').trim().toLowerCase();
    if (term) { var text = textIndex(T); tests.push(function (i) { return text[i].indexOf(term) !== -1; }); }
    return function (i) { for (var t = 0; t < tests.length; t++) if (!tests[t](i)) return false; return true; };
  }
  function matching(T, params) {
    var test = matcher(T, params, null), out = [];
    for (var i = 0; i < T.n; i++) if (test(i)) out.push(i);
    var sort = params.get('sort');
    if (sort) {
      var desc = sort.charAt(0) === '-', col = T.cols[desc ? sort.slice(1) : sort];
      if (col) {
        var key = function (i) { var v = col[i]; return typeof v === 'number' ? v : v === null ? null : fmt(v).toLowerCase(); };
        // Keys computed once per row, not per comparison: a sort of 200 000 rows compares millions of times.
        var keys = new Array(T.n);
        out.forEach(function (i) { keys[i] = key(i); });
        out.sort(function (a, b) {
          var x = keys[a], y = keys[b];
          if (x === y) return a - b;
          if (x === null) return 1;
          if (y === null) return -1;
          return (x < y ? -1 : 1) * (desc ? -1 : 1);
        });
      }
    }
    return out;
  }
  function visibleCols(T, params) {
    var chosen = params.get('cols');
    var cols = chosen ? chosen.split(',') : DEFAULT_COLS[T.r] || ['name'];
    cols = cols.filter(function (k) { return own(T.cols, k); });
    return cols.length ? cols : ['name'];
  }
  // The columns a person can choose: links' id columns are shown through their name columns.
  function choosable(T) { return T.names.filter(function (k) { return !/\.id$/.test(k) || !own(T.cols, k.slice(0, -3)); }); }

  function facetBox(T, params, col) {
    var box = el('section', null, { class: 'facet', 'data-facet': col });
    box.appendChild(el('h3', colLabel(col)));
    var active = params.get('f.' + col);
    var test = matcher(T, params, col);
    var counts = new Map();
    var isOs = col === 'operating_system' && own(T.cols, 'operating_system.id') && tables.operating_systems;
    var values = isOs ? T.cols['operating_system.id'] : T.cols[col];
    for (var i = 0; i < T.n; i++) {
      if (!test(i)) continue;
      var v = isOs ? (values[i] ? values[i][0] : '') : fmt(values[i]);
      counts.set(v, (counts.get(v) || 0) + 1);
    }
    var ul = box.appendChild(el('ul'));
    function item(value, text, n, depth) {
      var li = ul.appendChild(el('li', null, depth ? { style: 'padding-left:' + depth * 0.8 + 'rem' } : undefined));
      if (active === value) {
        li.appendChild(el('strong', text));
        li.appendChild(el('a', '×', { href: hashOf(T.r, withParam(params, 'f.' + col, null)), class: 'clear', title: 'remove this filter' }));
      } else li.appendChild(el('a', text, { href: hashOf(T.r, withParam(params, 'f.' + col, value)) }));
      li.appendChild(el('span', n, { class: 'count' }));
    }
    if (isOs) {
      var tree = osTree(), total = Object.create(null);
      var sum = function (id) { var n = counts.get(id) || 0; (tree.children[id] || []).forEach(function (c) { n += sum(c); }); total[id] = n; return n; };
      tree.roots.forEach(sum);
      var walk = function (id, depth) {
        if (!total[id]) return;
        item(id, nameOf('operating_systems', id), total[id], depth);
        (tree.children[id] || []).forEach(function (c) { walk(c, depth + 1); });
      };
      tree.roots.forEach(function (id) { walk(id, 0); });
      if (counts.get('')) ul.appendChild(el('li', 'none: ' + counts.get(''), { class: 'muted' }));
    } else {
      var list = Array.from(counts.entries()).sort(function (a, b) { return b[1] - a[1] || (a[0] < b[0] ? -1 : 1); });
      list.slice(0, 12).forEach(function (e) { item(e[0], e[0] === '' ? '(none)' : e[0] === 'true' ? 'yes' : e[0] === 'false' ? 'no' : e[0], e[1], 0); });
      if (list.length > 12) ul.appendChild(el('li', '… ' + (list.length - 12) + ' more values', { class: 'muted' }));
    }
    return box;
  }

  function download(name, type, text) {
    var a = el('a', null, { href: URL.createObjectURL(new Blob([text], { type: type })), download: name });
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }
  // A text cell a spreadsheet would run as a formula (= + - @, or a tab or CR before one) is prefixed with ' (OWASP).
  function csvCell(v) {
    var s = fmt(v);
    if (typeof v !== 'number' && /^[=+\-@\t\r]/.test(s)) s = "'" + s;
    return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }
  function exportRows(T, rows, cols, kind) {
    if (kind === 'csv') {
      var lines = [['id'].concat(cols).map(csvCell).join(',')];
      rows.forEach(function (i) { lines.push([T.ids[i]].concat(cols.map(function (c) { return T.cols[c][i]; })).map(csvCell).join(',')); });
      download(T.r + '.csv', 'text/csv', lines.join('\r\n') + '\r\n');
    } else {
      var out = rows.map(function (i) { var o = { id: T.ids[i] }; cols.forEach(function (c) { o[c] = T.cols[c][i]; }); return o; });
      download(T.r + '.json', 'application/json', JSON.stringify(out, null, 2) + '\n');
    }
  }

  function tableView(r, params, my) {
    clear();
    view.appendChild(el('h2', label(r))).appendChild(el('small', 'loading ' + R[r].count + ' records…'));
    var needs = FACETS[r].indexOf('operating_system') !== -1 ? [r, 'operating_systems'] : [r];
    if (r === 'databases') needs.push('servers');
    // A plain first page can show the first part's rows while the others load; a filter, sort or
    // later page waits for every record.
    var plain = !Array.from(params.keys()).some(function (k) { return k !== 'cols'; });
    if (plain && !tables[r]) withTable(r, function () {}, function (chunk, loaded, total) {
      if (my !== seq || view.hasAttribute('data-preview') || loaded === total) return;
      var P = merge(r, [chunk]), cols = visibleCols(P, params);
      clear();
      view.appendChild(el('h2', label(r))).appendChild(el('small', 'loading ' + R[r].count + ' records (' + loaded + ' of ' + total + ' parts)…', { id: 'count' }));
      var table = view.appendChild(el('div', null, { class: 'tablewrap' })).appendChild(el('table', null, { class: 'grid' }));
      var head = table.appendChild(el('thead')).appendChild(el('tr'));
      cols.forEach(function (c) { head.appendChild(el('th', colLabel(c))); });
      var body = table.appendChild(el('tbody'));
      for (var i = 0; i < Math.min(PAGE, P.n); i++) {
        var tr = body.appendChild(el('tr'));
        cols.forEach(function (c) { tr.appendChild(el('td')).appendChild(cellNode(P, c, i)); });
      }
      view.setAttribute('data-preview', r);
    });
    withTables(needs, function () {
      if (my !== seq) return;
      var T = tables[r];
      var rows = matching(T, params);
      var cols = visibleCols(T, params);
      clear();
      var h = view.appendChild(el('h2', label(r)));
      h.appendChild(el('small', rows.length === T.n ? T.n + ' records' : rows.length + ' of ' + T.n + ' records', { id: 'count' }));

      var bar = view.appendChild(el('div', null, { class: 'toolbar' }));
      var box = bar.appendChild(el('input', null, { type: 'search', id: 'table-q', placeholder: 'Search ' + label(r) + '…', 'aria-label': 'Search this table' }));
      box.value = params.get('q') || '';
      var timer;
      box.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(function () { location.hash = hashOf(r, withParam(params, 'q', box.value.trim() || null)); }, 200); });
      bar.appendChild(el('span', 'searches ' + searchedFields(T).join(', '), { class: 'muted searched' }));
      var chooser = bar.appendChild(el('details', null, { class: 'chooser' }));
      chooser.appendChild(el('summary', 'Columns'));
      var form = chooser.appendChild(el('div'));
      choosable(T).forEach(function (k) {
        var lab = form.appendChild(el('label'));
        var cb = lab.appendChild(el('input', null, { type: 'checkbox', value: k }));
        cb.checked = cols.indexOf(k) !== -1;
        cb.addEventListener('change', function () {
          var next = cb.checked ? cols.concat([k]) : cols.filter(function (c) { return c !== k; });
          location.hash = hashOf(r, withParam(params, 'cols', next.join(',')));
        });
        lab.appendChild(document.createTextNode(' ' + k));
      });
      var csv = bar.appendChild(el('button', 'Export CSV', { type: 'button', id: 'export-csv' }));
      csv.addEventListener('click', function () { exportRows(T, rows, cols, 'csv'); });
      var json = bar.appendChild(el('button', 'Export JSON', { type: 'button', id: 'export-json' }));
      json.addEventListener('click', function () { exportRows(T, rows, cols, 'json'); });

      var layout = view.appendChild(el('div', null, { class: 'layout' }));
      var facets = FACETS[r].filter(function (c) { return own(T.cols, c); });
      if (facets.length) {
        var aside = layout.appendChild(el('aside', null, { class: 'facets' }));
        aside.appendChild(el('p', 'counting…', { class: 'muted' }));
        // The rows first, the counts a moment later: each facet passes over every record.
        setTimeout(function () {
          if (my !== seq) return;
          aside.textContent = '';
          facets.forEach(function (c) { aside.appendChild(facetBox(T, params, c)); });
        }, 0);
      }
      var main = layout.appendChild(el('div', null, { class: 'tablewrap' }));
      var pages = Math.max(1, Math.ceil(rows.length / PAGE));
      var page = Math.min(pages, Math.max(1, Number(params.get('page')) || 1));
      var table = main.appendChild(el('table', null, { class: 'grid' }));
      var head = table.appendChild(el('thead')).appendChild(el('tr'));
      var sort = params.get('sort') || '';
      cols.forEach(function (c) {
        var th = head.appendChild(el('th'));
        var next = sort === c ? '-' + c : sort === '-' + c ? null : c;
        th.appendChild(el('a', colLabel(c) + (sort === c ? ' ▲' : sort === '-' + c ? ' ▼' : ''), { href: hashOf(r, withParam(params, 'sort', next)), title: 'sort by ' + c }));
        if (sort === c || sort === '-' + c) th.setAttribute('aria-sort', sort === c ? 'ascending' : 'descending');
      });
      var body = table.appendChild(el('tbody'));
      rows.slice((page - 1) * PAGE, page * PAGE).forEach(function (i) {
        var tr = body.appendChild(el('tr'));
        cols.forEach(function (c) {
          var v = T.cols[c][i];
          tr.appendChild(el('td', null, typeof v === 'number' ? { class: 'num' } : typeof v === 'string' && v.length > 40 ? { class: 'long' } : undefined)).appendChild(cellNode(T, c, i));
        });
      });
      if (!rows.length) body.appendChild(el('tr')).appendChild(el('td', 'No record matches.', { colspan: cols.length, class: 'muted' }));
      var pager = main.appendChild(el('nav', null, { class: 'pager', 'aria-label': 'Pages' }));
      function pageLink(text, n, rel) {
        if (n < 1 || n > pages || n === page) return pager.appendChild(el('span', text, { class: 'off' }));
        var p = new URLSearchParams(params);
        if (n === 1) p.delete('page'); else p.set('page', String(n));
        return pager.appendChild(el('a', text, { href: hashOf(r, p), rel: rel }));
      }
      pageLink('« first', 1, 'first');
      pageLink('‹ previous', page - 1, 'prev');
      pager.appendChild(el('span', 'page ' + page + ' of ' + pages + ' · rows ' + (rows.length ? (page - 1) * PAGE + 1 : 0) + '–' + Math.min(rows.length, page * PAGE), { id: 'page' }));
      pageLink('next ›', page + 1, 'next');
      pageLink('last »', pages, 'last');
      document.title = label(r) + ' · Inventory mirror';
      view.setAttribute('data-ready', r);
    });
  }

  // A nested value as a table of keys and values; a list of objects as a table of their fields.
  function valueNode(v, depth) {
    if (v === null || v === undefined) return el('span', 'null', { class: 'muted' });
    if (Array.isArray(v)) {
      if (!v.length) return el('span', 'none', { class: 'muted' });
      var objects = v.every(function (x) { return x !== null && typeof x === 'object' && !Array.isArray(x); });
      // Objects holding objects (a database instance's config) read better one below the other than as a wide table.
      if (objects && v.some(function (x) { return Object.keys(x).some(function (k) { return x[k] !== null && typeof x[k] === 'object'; }); })) {
        var stack = el('div', null, { class: 'stack' });
        v.forEach(function (x) { stack.appendChild(valueNode(x, depth + 1)); });
        return stack;
      }
      if (objects) {
        var keys = [];
        v.forEach(function (x) { Object.keys(x).forEach(function (k) { if (keys.indexOf(k) === -1) keys.push(k); }); });
        var t = el('table', null, { class: 'nested' });
        var hr = t.appendChild(el('tr'));
        keys.forEach(function (k) { hr.appendChild(el('th', k)); });
        v.forEach(function (x) { var tr = t.appendChild(el('tr')); keys.forEach(function (k) { tr.appendChild(el('td')).appendChild(valueNode(x[k], depth + 1)); }); });
        return el('div', null, { class: 'scroll' }).appendChild(t).parentNode;
      }
      return el('span', v.map(fmt).join(', '));
    }
    if (typeof v === 'object') {
      var kv = el('table', null, { class: 'kv' });
      Object.keys(v).forEach(function (k) {
        var tr = kv.appendChild(el('tr'));
        tr.appendChild(el('th', k));
        tr.appendChild(el('td')).appendChild(valueNode(v[k], depth + 1));
      });
      return kv;
    }
    return el('span', typeof v === 'boolean' ? String(v) : v);
  }
  function fieldRow(table, k, v) {
    var tr = table.appendChild(el('tr'));
    tr.appendChild(el('th', k));
    var td = tr.appendChild(el('td'));
    if (v && typeof v === 'object' && !Array.isArray(v) && typeof v.id === 'string' && own(TARGET, k)) td.appendChild(el('a', v.name || v.id, { href: href(TARGET[k], v.id) }));
    else if (Array.isArray(v) && own(TARGET, k) && v.every(function (x) { return x && typeof x.id === 'string'; })) v.forEach(function (x, n) { if (n) td.appendChild(document.createTextNode(', ')); td.appendChild(el('a', x.name || x.id, { href: href(TARGET[k], x.id) })); });
    else td.appendChild(valueNode(v, 0));
  }
  function linkList(title, r, ids, more) {
    var s = el('section', null, { class: 'links' });
    s.appendChild(el('h3', title + ' (' + ids.length + ')'));
    var ul = s.appendChild(el('ul', null, { class: 'results' }));
    ids.slice(0, 100).forEach(function (id) { ul.appendChild(el('li')).appendChild(el('a', nameOf(r, id), { href: href(r, id) })); });
    if (!ids.length) ul.appendChild(el('li', 'none', { class: 'muted' }));
    if (more && ids.length) ul.appendChild(el('li')).appendChild(el('a', ids.length > 100 ? 'all ' + ids.length + ' in the table →' : 'as a table →', { href: more }));
    return s;
  }
  function related(r, id, i) {
    var out = [];
    var T = tables[r];
    if (r === 'servers') {
      var A = tables.appservers, Db = tables.databases, apps = [], dbs = [];
      A.cols.server_id && A.cols.server_id.forEach(function (s, k) { if (s === id) apps.push(A.ids[k]); });
      var dsv = Db.cols['servers.id'];
      if (dsv) dsv.forEach(function (list, k) { if (list && list.indexOf(id) !== -1) dbs.push(Db.ids[k]); });
      var os = T.cols['operating_system.id'] && T.cols['operating_system.id'][i];
      if (os) out.push(linkList('Operating system', 'operating_systems', os));
      out.push(linkList('Appservers on this server', 'appservers', apps, apps.length ? '#/appservers?f.server_name=' + encodeURIComponent(fmt(T.cols.name[i])) : null));
      out.push(linkList('Databases on this server', 'databases', dbs));
    }
    if (r === 'operating_systems') {
      var tree = osTree(), set = descendants(tree, id), S = tables.servers, on = [];
      var sos = S.cols['operating_system.id'] || [];
      for (var k = 0; k < S.n; k++) if (sos[k] && set.has(sos[k][0])) on.push(S.ids[k]);
      out.push(linkList('Servers on it or on a descendant', 'servers', on, '#/servers?f.operating_system=' + encodeURIComponent(id)));
      out.push(linkList('Descendant systems', 'operating_systems', (tree.children[id] || [])));
    }
    if (r === 'appservers') { var sid = T.cols.server_id && T.cols.server_id[i]; out.push(linkList('Server', 'servers', sid ? [sid] : [])); }
    if (r === 'databases') out.push(linkList('Servers', 'servers', (T.cols['servers.id'] && T.cols['servers.id'][i]) || []));
    return out;
  }
  function recordHistory(r, id) {
    var s = el('section', null, { class: 'history' });
    s.appendChild(el('h3', 'History'));
    var ul = s.appendChild(el('ul'));
    withHistory(function (h) {
      var any = false;
      h.entries.forEach(function (e) {
        var c = e.resources && own(e.resources, r);
        if (!c) return;
        var find = function (list) { return list.some(function (x) { return x[0] === id; }); };
        if (find(c.added)) { any = true; ul.appendChild(el('li')).appendChild(el('span', when(e.at) + ': added')); }
        if (find(c.removed)) { any = true; ul.appendChild(el('li', when(e.at) + ': removed')); }
        c.changed.forEach(function (x) {
          if (x[0] !== id) return;
          any = true;
          var li = ul.appendChild(el('li', when(e.at) + ': changed '));
          var fl = li.appendChild(el('ul', null, { class: 'fields' }));
          x[2].forEach(function (f) { fl.appendChild(el('li', f[0] + ' ' + fmt(f[1] === null ? '∅' : f[1]) + ' → ' + fmt(f[2] === null ? '∅' : f[2]))); });
        });
      });
      var first = h.entries[h.entries.length - 1];
      if (!any) ul.appendChild(el('li', first ? 'No change seen since ' + when(first.at) + '.' : 'No change history in this snapshot.', { class: 'muted' }));
    });
    return s;
  }
  function showRecord(r, id, my) {
    clear();
    view.appendChild(el('p', 'loading…', { class: 'muted' }));
    var needs = { servers: ['servers', 'operating_systems', 'appservers', 'databases'], operating_systems: ['operating_systems', 'servers'], appservers: ['appservers', 'servers'], databases: ['databases', 'servers'], applications: ['applications'] }[r];
    withTables(needs, function () {
      if (my !== seq) return;
      var T = tables[r], i = T.pos.get(id);
      clear();
      if (i === undefined) { view.appendChild(el('h2', 'No ' + r + ' record with id ' + id)); return; }
      var h = view.appendChild(el('h2', fmt(T.cols.name[i]) || id));
      h.appendChild(el('small', R[r].singular.replace('_', ' ') + ' ' + id));
      var grid = view.appendChild(el('div', null, { class: 'record' }));
      var left = grid.appendChild(el('div'));
      var table = left.appendChild(el('table', null, { class: 'fields' }));
      table.appendChild(el('tr')).appendChild(el('td', 'loading…', { class: 'muted' }));
      var right = grid.appendChild(el('div'));
      related(r, id, i).forEach(function (s) { right.appendChild(s); });
      right.appendChild(recordHistory(r, id));
      withRecord(r, id, function (record) {
        if (my !== seq) return;
        table.textContent = '';
        if (!record) { table.appendChild(el('tr')).appendChild(el('td', 'details not found', { class: 'muted' })); return; }
        Object.keys(record).forEach(function (k) { fieldRow(table, k, record[k]); });
        view.setAttribute('data-ready', 'record');
      });
    });
  }

  // Charts: SVG drawn here, no library and no network.
  // The SVG namespace is a name, not an address: split so no page file holds a URL a reviewer must check.
  var SVG = 'http' + '://www.w3.org/2000/svg';
  function svg(tag, attrs, text) {
    var n = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { n.setAttribute(k, attrs[k]); });
    if (text !== undefined) n.textContent = String(text);
    return n;
  }
  function barChart(title, bars, link) {
    var fig = el('figure', null, { class: 'chart' });
    fig.appendChild(el('figcaption', title));
    var max = bars.reduce(function (m, b) { return Math.max(m, b[1]); }, 0) || 1;
    var row = 22, labelW = 150, w = 560, h = bars.length * row + 4;
    var s = fig.appendChild(svg('svg', { viewBox: '0 0 ' + w + ' ' + h, role: 'img', 'aria-label': title }));
    bars.forEach(function (b, k) {
      var y = k * row + 2, bw = Math.max(1, (w - labelW - 60) * b[1] / max);
      var g = s.appendChild(svg('g'));
      var target = link ? link(b) : null;
      var holder = target ? g.appendChild(svg('a', { href: target })) : g;
      holder.appendChild(svg('text', { x: labelW - 6, y: y + 15, 'text-anchor': 'end', class: 'lbl' }, b[0].length > 22 ? b[0].slice(0, 21) + '…' : b[0]));
      holder.appendChild(svg('rect', { x: labelW, y: y + 3, width: bw, height: row - 6, rx: 3, class: 'bar' })).appendChild(svg('title', {}, b[0] + ': ' + b[1]));
      holder.appendChild(svg('text', { x: labelW + bw + 6, y: y + 15, class: 'val' }, b[1]));
    });
    return fig;
  }
  function counted(values) {
    var m = new Map();
    values.forEach(function (v) { if (v !== null && v !== undefined) m.set(v, (m.get(v) || 0) + 1); });
    return m;
  }
  function changesChart(h) {
    var entries = h.entries.filter(function (e) { return !e.initial; }).slice(0, 20).reverse();
    var bars = entries.map(function (e) {
      var n = 0;
      Object.keys(e.resources).forEach(function (r) { var c = e.resources[r].counts; n += c.added + c.removed + c.changed; });
      var d = new Date(e.at);
      return [isNaN(d.getTime()) ? e.at : d.toLocaleDateString() + ' ' + d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }), n];
    });
    return bars.length ? barChart('Records changed per sync (oldest first)', bars, null) : el('p', 'No change between syncs yet: the chart of changes appears after the second sync that changes something.', { class: 'muted' });
  }
  function chartsView(my) {
    clear();
    view.appendChild(el('p', 'loading…', { class: 'muted' }));
    withTables(['servers', 'operating_systems'], function () {
      withHistory(function (h) {
        if (my !== seq) return;
        clear();
        view.appendChild(el('h2', 'Charts')).appendChild(el('small', tables.servers.n + ' servers'));
        var S = tables.servers, grid = view.appendChild(el('div', null, { class: 'charts' }));
        var byOs = counted((S.cols['operating_system.id'] || []).map(function (x) { return x ? x[0] : null; }));
        var osBars = Array.from(byOs.entries()).map(function (e) { return [nameOf('operating_systems', e[0]), e[1], e[0]]; }).sort(function (a, b) { return b[1] - a[1]; }).slice(0, 15);
        grid.appendChild(barChart('Servers per operating system (top 15)', osBars, function (b) { return '#/servers?f.operating_system=' + encodeURIComponent(b[2]); }));
        var mem = S.cols.memory_GB || [];
        var memBands = [[0, 4], [4, 8], [8, 16], [16, 32], [32, 64], [64, 128], [128, 256], [256, 512], [512, Infinity]];
        var memBars = memBands.map(function (b) {
          var n = 0; mem.forEach(function (v) { if (typeof v === 'number' && v >= b[0] && v < b[1]) n++; });
          return [b[1] === Infinity ? b[0] + ' GB and more' : b[0] + '–' + b[1] + ' GB', n];
        }).filter(function (b) { return b[1] > 0; });
        grid.appendChild(barChart('Memory', memBars, null));
        var cpu = counted(S.cols.processor_system_count || []);
        var cpuBars = Array.from(cpu.entries()).sort(function (a, b) { return a[0] - b[0]; }).map(function (e) { return [e[0] + (e[0] === 1 ? ' CPU' : ' CPUs'), e[1], e[0]]; });
        grid.appendChild(barChart('Processors', cpuBars, function (b) { return '#/servers?f.processor_system_count=' + encodeURIComponent(b[2]); }));
        grid.appendChild(changesChart(h));
        view.setAttribute('data-ready', 'charts');
      });
    });
  }

  function changeList(e) {
    var box = el('div', null, { class: 'change' });
    box.appendChild(el('strong', e.initial ? 'First snapshot' : 'Sync'));
    box.appendChild(el('span', ' · ' + when(e.at), { class: 'muted' }));
    var ul = box.appendChild(el('ul'));
    if (e.initial) {
      ul.appendChild(el('li', D.order.map(function (r) { return (e.records[r] || 0) + ' ' + label(r); }).join(', ')));
      return box;
    }
    D.order.forEach(function (r) {
      var c = own(e.resources, r);
      if (!c) return;
      var li = ul.appendChild(el('li'));
      li.appendChild(el('b', label(r) + ': '));
      li.appendChild(document.createTextNode(c.counts.added + ' added, ' + c.counts.removed + ' removed, ' + c.counts.changed + ' changed'));
      var sub = li.appendChild(el('ul', null, { class: 'ids' }));
      c.added.slice(0, 8).forEach(function (x) { var l = sub.appendChild(el('li', '+ ', { class: 'added' })); l.appendChild(el('a', x[1], { href: href(r, x[0]) })); });
      c.removed.slice(0, 8).forEach(function (x) { sub.appendChild(el('li', '− ' + x[1] + ' (' + x[0] + ')', { class: 'removed' })); });
      c.changed.slice(0, 8).forEach(function (x) {
        var l = sub.appendChild(el('li', '~ ', { class: 'changed' }));
        l.appendChild(el('a', x[1], { href: href(r, x[0]) }));
        // A save stamp changes with every other field: worth no room in a summary.
        var fields = x[2].filter(function (f) { return !/^(updated|modified)_at$/.test(f[0]); });
        l.appendChild(el('span', ' ' + (fields.length ? fields : x[2]).slice(0, 3).map(function (f) { return f[0] + ' ' + fmt(f[1] === null ? '∅' : f[1]) + ' → ' + fmt(f[2] === null ? '∅' : f[2]); }).join('; '), { class: 'muted' }));
      });
      var shown = Math.min(8, c.added.length) + Math.min(8, c.removed.length) + Math.min(8, c.changed.length);
      var all = c.counts.added + c.counts.removed + c.counts.changed;
      if (all > shown) sub.appendChild(el('li', '… and ' + (all - shown) + ' more', { class: 'muted' }));
    });
    return box;
  }
  function home(my) {
    clear();
    view.appendChild(el('h2', 'Resources'));
    var cards = view.appendChild(el('div', null, { class: 'cards' }));
    D.order.forEach(function (r) {
      var a = cards.appendChild(el('a', null, { href: '#/' + r, class: 'card' }));
      a.appendChild(el('b', R[r].count));
      a.appendChild(el('span', label(r)));
    });
    var recent = view.appendChild(el('section', null, { id: 'recent' }));
    recent.appendChild(el('h2', 'Recent changes'));
    withHistory(function (h) {
      if (my !== seq) return;
      if (!h.entries.length) recent.appendChild(el('p', 'No change history in this snapshot.', { class: 'muted' }));
      h.entries.slice(0, 5).forEach(function (e) { recent.appendChild(changeList(e)); });
      if (h.entries.some(function (e) { return !e.initial; })) recent.appendChild(changesChart(h));
      view.setAttribute('data-ready', 'home');
    });
  }

  function searchView(term, my) {
    clear();
    view.appendChild(el('p', 'loading…', { class: 'muted' }));
    withTables(D.order, function () {
      if (my !== seq) return;
      clear();
      var t = term.trim().toLowerCase();
      view.appendChild(el('h2', 'Search “' + term.trim() + '”'));
      var total = 0;
      D.order.forEach(function (r) {
        var T = tables[r], text = textIndex(T), hits = [];
        for (var i = 0; i < T.n; i++) if (text[i].indexOf(t) !== -1) hits.push(i);
        total += hits.length;
        if (!hits.length) return;
        var s = view.appendChild(el('section', null, { class: 'links' }));
        var h3 = s.appendChild(el('h3'));
        h3.appendChild(el('a', label(r) + ': ' + hits.length, { href: hashOf(r, new URLSearchParams({ q: term.trim() })) }));
        h3.appendChild(el('span', ' (searched ' + searchedFields(T).join(', ') + ')', { class: 'muted' }));
        var ul = s.appendChild(el('ul', null, { class: 'results' }));
        hits.slice(0, 10).forEach(function (i) {
          var li = ul.appendChild(el('li'));
          li.appendChild(el('a', fmt(T.cols.name[i]) || T.ids[i], { href: href(r, T.ids[i]) }));
          var extra = searchedFields(T).filter(function (k) { return k !== 'name' && fmt(T.cols[k][i]).toLowerCase().indexOf(t) !== -1; });
          if (extra.length) li.appendChild(el('span', ' ' + extra.map(function (k) { return k + ' ' + fmt(T.cols[k][i]); }).join(' · '), { class: 'muted' }));
        });
        if (hits.length > 10) ul.appendChild(el('li')).appendChild(el('a', 'all ' + hits.length + ' →', { href: hashOf(r, new URLSearchParams({ q: term.trim() })) }));
      });
      if (!total) view.appendChild(el('p', 'Nothing found in names, ip, dns or descriptions.', { class: 'muted' }));
      view.setAttribute('data-ready', 'search');
    });
  }

  function qualityView() {
    clear();
    view.appendChild(el('h2', 'Data quality')).appendChild(el('small', Q.findings.length + ' kinds of finding, largest first'));
    if (!Q.findings.length) view.appendChild(el('p', 'No findings: the service sent what its API document describes.', { class: 'muted' }));
    else {
      var table = view.appendChild(el('div', null, { class: 'scroll' })).appendChild(el('table', null, { class: 'findings' }));
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
    view.setAttribute('data-ready', 'quality');
  }
  function findingView(n, my) {
    var f = Q.findings[n];
    clear();
    if (!f) { view.appendChild(el('h2', 'No such finding')); return; }
    withTable(f.resource, function (T) {
      if (my !== seq) return;
      view.appendChild(el('h2', f.resource + (f.field ? ' ' + f.field : '') + ': ' + f.code)).appendChild(el('small', f.count + ' records'));
      view.appendChild(el('p', f.meaning, { class: 'muted' }));
      var ul = view.appendChild(el('ul', null, { class: 'results' }));
      f.ids.forEach(function (id) {
        var li = ul.appendChild(el('li'));
        if (!T.pos.has(id)) li.appendChild(el('span', id));
        else li.appendChild(el('a', nameOf(f.resource, id), { href: href(f.resource, id) })).after(el('span', ' ' + id, { class: 'muted' }));
      });
      if (f.count > f.ids.length) ul.appendChild(el('li', '… and ' + (f.count - f.ids.length) + ' more (all of them are in _meta/quality.json)', { class: 'muted' }));
      view.setAttribute('data-ready', 'finding');
    });
  }

  var seq = 0;
  var q = document.getElementById('q');
  function route() {
    var my = ++seq;
    view.removeAttribute('data-ready');
    view.removeAttribute('data-preview');
    var h = parseHash(), parts = h.path;
    if (parts[0] === '_quality') return parts.length > 1 && parts[1] !== '' ? findingView(Number(parts[1]), my) : qualityView();
    if (parts[0] === '_charts') return chartsView(my);
    if (parts[0] === '_search' && (h.params.get('q') || '').trim()) { q.value = h.params.get('q'); return searchView(q.value, my); }
    // An own resource only: "#/constructor" must not find Object.prototype's.
    var r = own(R, parts[0]) ? parts[0] : '';
    if (r && parts.length > 1) return showRecord(r, decodeURIComponent(parts.slice(1).join('/')), my);
    if (r) return tableView(r, h.params, my);
    home(my);
  }
  var timer;
  q.addEventListener('input', function () {
    clearTimeout(timer);
    timer = setTimeout(function () { location.hash = q.value.trim() ? '#/_search?' + new URLSearchParams({ q: q.value.trim() }) : '#/'; }, 250);
  });
  window.addEventListener('hashchange', route);
  route();
})();
`;
