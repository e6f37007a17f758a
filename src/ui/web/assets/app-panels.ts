/** Browser code of the servers, tools, roots, presets and audit panels. Part of the console script; see app.ts. @module */
export const APP_PANELS_JS = String.raw`  // ---------- servers ----------
  function loadServers() {
    return api('GET', '/servers').then(function (res) {
      var box = clear($('servers'));
      if (res.status !== 200) { box.appendChild(h('p', { class: 'error', text: res.data.error })); return; }
      if (!res.data.length) box.appendChild(h('p', { class: 'muted', text: 'No servers configured.' }));
      res.data.forEach(function (s) {
        var caps = Object.keys(s.capabilities || {});
        box.appendChild(h('div', { class: 'card server-card', 'data-server': s.name },
          h('h3', null, s.name, ' ', h('span', { class: 'state ' + s.state + (s.lazy ? ' lazy' : ''), text: s.state === 'stopped' && s.lazy ? 'not started (lazy)' : s.state })),
          s.lazy ? h('p', { class: 'muted lazy-note', text: 'Lazy: starts on first use (a tool call, a read or Restart).' }) : null,
          h('p', null, 'Protocol revision: ', h('strong', { text: s.revision || 'not negotiated' }), s.transport ? ' · transport ' + s.transport : ''),
          h('p', null, 'Capabilities: ', caps.length ? caps.join(', ') : 'none declared'),
          caps.length ? h('details', null, h('summary', { text: 'Capabilities as declared' }), h('pre', { text: JSON.stringify(s.capabilities, null, 2) })) : null,
          s.error ? h('p', { class: 'error', text: s.error }) : null,
          h('details', null, h('summary', { text: 'Recent stderr (' + count((s.stderr || []).length, 'line') + ')' }), h('pre', { class: 'stderr', text: (s.stderr || []).join('\n') || '(nothing)' })),
          h('div', { class: 'buttons' }, h('button', { type: 'button', class: 'secondary', onclick: function (e) {
            e.target.disabled = true;
            api('POST', '/servers/' + encodeURIComponent(s.name) + '/restart', {}).then(function (r) { e.target.disabled = false; if (r.status !== 200) addNotice({ kind: 'error', server: s.name, message: r.data.error }); loadServers(); });
          } }, 'Restart ' + s.name))));
      });
    });
  }

  // ---------- tools ----------
  var PRIM = { string: 1, number: 1, integer: 1, boolean: 1 };
  function toolForm(t) {
    var schema = t.inputSchema || {}, props = schema.properties || {}, req = schema.required || [];
    var ctls = [];
    var result = h('div', { class: 'result', 'aria-live': 'polite' });
    var form = h('form', { novalidate: true, class: 'tool-form' });
    Object.keys(props).forEach(function (name) {
      var ps = props[name] || {}, id = uid('t'), descId = id + '-d';
      var prim = PRIM[ps.type] && !Array.isArray(ps.type);
      var label = h('label', { for: id }, ps.title || name, req.indexOf(name) >= 0 ? h('span', { class: 'req', text: ' (required)' }) : null, prim ? null : ' (JSON)');
      var input;
      if (prim && ps.type === 'boolean') input = h('input', { type: 'checkbox', id: id, checked: ps.default === true, 'aria-describedby': ps.description ? descId : undefined });
      else if (prim && Array.isArray(ps.enum)) { input = h('select', { id: id, 'aria-describedby': ps.description ? descId : undefined }, h('option', { value: '', text: '—' })); ps.enum.forEach(function (o) { input.appendChild(h('option', { value: String(o), text: String(o), selected: ps.default === o })); }); }
      else if (prim) input = h('input', { type: ps.type === 'string' ? 'text' : 'number', step: ps.type === 'integer' ? '1' : 'any', id: id, value: ps.default === undefined ? '' : String(ps.default), 'aria-describedby': ps.description ? descId : undefined });
      else input = h('textarea', { id: id, 'aria-describedby': ps.description ? descId : undefined, text: ps.default === undefined ? '' : JSON.stringify(ps.default, null, 2) });
      ctls.push({ name: name, schema: ps, input: input, prim: prim });
      form.appendChild(h('div', { class: 'field' }, label, input, ps.description ? h('p', { class: 'desc', id: descId, text: ps.description }) : null));
    });
    var err = h('p', { class: 'error', role: 'alert' });
    form.appendChild(err);
    form.appendChild(h('div', { class: 'buttons' }, h('button', { type: 'submit' }, 'Call ' + t.name)));
    form.addEventListener('submit', function (e) {
      e.preventDefault(); err.textContent = '';
      var args = {};
      for (var i = 0; i < ctls.length; i++) {
        var c = ctls[i], s = c.schema;
        if (c.prim && s.type === 'boolean') { args[c.name] = c.input.checked; continue; }
        var v = c.input.value;
        if (v === '') continue;
        if (!c.prim) { try { args[c.name] = JSON.parse(v); } catch (x) { err.textContent = c.name + ': not valid JSON (' + x.message + ')'; c.input.focus(); return; } continue; }
        args[c.name] = s.type === 'number' || s.type === 'integer' ? Number(v) : v;
      }
      clear(result).appendChild(h('p', { class: 'muted', text: 'Calling…' }));
      api('POST', '/tools/call', { server: t.server, tool: t.name, arguments: args }).then(function (res) { renderResult(result, res); });
    });
    return [form, result];
  }
  // Long text and JSON are collapsed to their first RESULT_LINES lines (or RESULT_CHARS characters),
  // with the full count and a "Show all" button; images are shown as images.
  var RESULT_LINES = 30, RESULT_CHARS = 4000;
  function longBlock(cls, text, what) {
    var lines = text.split('\n');
    var cut = lines.length > RESULT_LINES ? lines.slice(0, RESULT_LINES).join('\n') : text;
    if (cut.length > RESULT_CHARS) cut = cut.slice(0, RESULT_CHARS);
    var pre = h('pre', { class: cls, text: cut });
    if (cut.length === text.length) return pre;
    var shown = cut.split('\n').length;
    var note = h('p', { class: 'collapsed-note muted', text: 'Showing ' + shown + ' of ' + count(lines.length, 'line') + ' (' + cut.length + ' of ' + count(text.length, 'character') + ') of the ' + what + '. ' });
    var more = h('button', { type: 'button', class: 'secondary show-all', onclick: function () { pre.textContent = text; note.remove(); } }, 'Show all ' + count(lines.length, 'line'));
    note.appendChild(more);
    return h('div', { class: 'collapsible' }, pre, note);
  }
  var IMAGE_MIME = /^image\/[a-z0-9.+-]+$/i, BASE64 = /^[A-Za-z0-9+\/=\s]+$/;
  function imageEl(mime, data, alt) { return h('img', { src: 'data:' + mime + ';base64,' + data.replace(/\s/g, ''), alt: alt }); }
  function svgUrl(text) { return 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(text); }
  function renderBlock(box, c, hasImage) {
    if (c.type === 'text') { box.appendChild(longBlock('text', String(c.text), 'text')); return; }
    if (c.type === 'image' && IMAGE_MIME.test(c.mimeType || '') && BASE64.test(c.data || '')) { box.appendChild(imageEl(c.mimeType, c.data, 'Image returned by the tool (' + c.mimeType + ')')); return; }
    var r = c.type === 'resource' ? c.resource || {} : null;
    if (r && IMAGE_MIME.test(r.mimeType || '')) {
      var isSvg = /svg/i.test(r.mimeType);
      var src = typeof r.blob === 'string' && BASE64.test(r.blob) ? 'data:' + r.mimeType + ';base64,' + r.blob.replace(/\s/g, '') : isSvg && typeof r.text === 'string' ? svgUrl(r.text) : null;
      if (src) {
        // An SVG copy of a chart already shown as an image: offer it, do not show it twice or print its source.
        if (hasImage) box.appendChild(h('p', { class: 'resource-link muted' }, 'Also as ' + r.mimeType + ': ', h('code', { text: r.uri || '' }), ' ', h('a', { href: src, download: (String(r.uri || 'image').split('/').pop() || 'image') + (isSvg ? '.svg' : ''), text: 'Save' })));
        else box.appendChild(h('img', { src: src, alt: 'Image resource ' + (r.uri || '') + ' (' + r.mimeType + ')' }));
        return;
      }
    }
    if (r && typeof r.text === 'string') { box.appendChild(h('p', { class: 'muted' }, 'Resource ', h('code', { text: r.uri || '' }), r.mimeType ? ' (' + r.mimeType + ')' : '')); box.appendChild(longBlock('text', r.text, 'resource')); return; }
    box.appendChild(longBlock('', JSON.stringify(c, null, 2), 'block'));
  }
  function renderResult(box, res) {
    clear(box);
    box.className = 'result';
    if (res.status !== 200) { box.classList.add('is-error'); box.appendChild(h('h4', { text: 'The call failed' })); box.appendChild(h('p', { class: 'error', text: res.data.error })); return; }
    var r = res.data;
    if (r.isError) { box.classList.add('is-error'); box.appendChild(h('h4', { text: 'The tool reported an error' })); }
    else box.appendChild(h('h4', { text: 'Result' }));
    var content = r.content || [];
    var hasImage = content.some(function (c) { return c.type === 'image'; });
    content.forEach(function (c) { renderBlock(box, c, hasImage); });
    if (r.structuredContent !== undefined) { box.appendChild(h('h4', { text: 'Structured content' })); box.appendChild(longBlock('structured', JSON.stringify(r.structuredContent, null, 2), 'structured content')); }
  }
  // Tool cards are kept across reloads of the list (a server restart re-lists the tools): a tool whose
  // server, name and schema are unchanged keeps its card, its open state, its typed arguments and its result.
  var toolCards = new Map();
  function loadTools() {
    return api('GET', '/tools').then(function (res) {
      var box = clear($('tools'));
      if (res.status !== 200) { box.appendChild(h('p', { class: 'error', text: res.data.error })); return; }
      if (!res.data.length) box.appendChild(h('p', { class: 'muted', text: 'No tools listed yet.' }));
      var kept = new Map();
      res.data.forEach(function (t) {
        var key = t.server + '/' + t.name, sig = JSON.stringify([t.title, t.description, t.inputSchema]);
        var old = toolCards.get(key);
        var el = old && old.sig === sig ? old.el : h('details', { class: 'card tool', 'data-tool': key },
          h('summary', null, h('strong', { text: t.server }), ' / ' + t.name + (t.title ? ' — ' + t.title : '')),
          t.description ? h('p', { class: 'desc', text: t.description }) : null, toolForm(t));
        kept.set(key, { sig: sig, el: el });
        box.appendChild(el);
      });
      toolCards = kept;
    });
  }

  // ---------- roots, presets, audit ----------
  function loadRoots() {
    return api('GET', '/roots').then(function (res) {
      var box = clear($('roots'));
      if (res.status !== 200) { box.appendChild(h('p', { class: 'error', text: res.data.error })); return; }
      if (!res.data.length) { box.appendChild(h('p', { class: 'muted', text: 'No roots.' })); return; }
      var body = h('tbody');
      res.data.forEach(function (r) {
        var st = r.health ? r.health.status : 'unchecked';
        body.appendChild(h('tr', { 'data-uri': r.uri }, h('td', { text: r.name || '' }), h('td', null, h('code', { text: r.uri })), h('td', { text: r.lifetime }), h('td', { text: r.source }),
          h('td', null, h('span', { class: 'state ' + st, text: st }), r.health && r.health.error ? ' ' + r.health.error : ''),
          h('td', null, h('button', { type: 'button', class: 'danger', 'aria-label': 'Remove root ' + (r.name || r.uri), onclick: function () { api('POST', '/roots/remove', { uri: r.uri }).then(loadRoots); } }, 'Remove'))));
      });
      box.appendChild(h('table', null, h('thead', null, h('tr', null, ['Name', 'URI', 'Scope', 'Source', 'Health', ''].map(function (c) { return h('th', { scope: 'col', text: c }); }))), body));
    });
  }
  function loadPresets() {
    return api('GET', '/presets').then(function (res) {
      var list = clear($('presets'));
      if (res.status !== 200) { list.appendChild(h('li', { class: 'error', text: res.data.error })); return; }
      if (!res.data.length) list.appendChild(h('li', { class: 'muted', text: 'No presets saved.' }));
      res.data.forEach(function (p) {
        list.appendChild(h('li', { 'data-preset': p.name, 'data-active': p.active ? 'true' : undefined }, h('strong', { text: p.name }), p.active ? h('span', { class: 'badge', text: ' (loaded)' }) : null, ' — ' + count(p.roots, 'root') + ', answers for ' + (p.servers.join(', ') || 'no servers') + (p.source === 'config' ? ', from the configuration ' : ', saved ' + fmtTime(p.updatedAt) + ' '),
          h('button', { type: 'button', class: 'secondary', 'aria-label': 'Load preset ' + p.name, onclick: function () {
            api('POST', '/presets/' + encodeURIComponent(p.name) + '/load', {}).then(function (r) { $('preset-error').textContent = r.status === 200 ? '' : r.data.error; $('preset-status').textContent = ''; loadRoots(); loadPresets(); });
          } }, 'Load'),
          // Unload undoes the load: the roots it added leave, its answers stop prefilling forms.
          p.active ? h('button', { type: 'button', class: 'secondary', 'aria-label': 'Unload preset ' + p.name, onclick: function () {
            api('POST', '/presets/unload', {}).then(function (r) {
              $('preset-error').textContent = r.status === 200 ? '' : r.data.error;
              $('preset-status').textContent = r.status === 200 ? 'Unloaded ' + p.name + (r.data.removedRoots.length ? ': removed ' + r.data.removedRoots.join(', ') : '') + '; its answers no longer prefill forms.' : '';
              loadRoots(); loadPresets();
            });
          } }, 'Unload') : null));
      });
    });
  }
  function loadAnswers() {
    return api('GET', '/answers').then(function (res) {
      var list = clear($('answers'));
      if (res.status !== 200) { list.appendChild(h('li', { class: 'error', text: res.data.error })); return; }
      if (!res.data.length) list.appendChild(h('li', { class: 'muted', text: 'No remembered answers.' }));
      res.data.forEach(function (a) {
        var key = { server: a.server, schemaHash: a.schemaHash };
        var what = Object.keys(a.content).map(function (k) { return k + ' = ' + JSON.stringify(a.content[k]); }).join(', ');
        list.appendChild(h('li', { 'data-answer': a.server + '/' + a.schemaHash },
          h('strong', { text: a.server }), ' ', h('span', { text: a.label ? '"' + a.label + '"' : 'form ' + a.schemaHash.slice(0, 8) }), ' — ' + (what || 'no fields') + ' — ',
          h('span', { class: 'answer-mode', text: (a.auto ? 'answered automatically' : 'prefill only') + (a.remember === 'session' ? ', this session' : ', always') }), ' ',
          h('button', { type: 'button', class: 'secondary', 'aria-label': (a.auto ? 'Prefill only: ' : 'Answer automatically: ') + a.server, onclick: function () {
            api('POST', '/answers/mode', { server: key.server, schemaHash: key.schemaHash, auto: !a.auto }).then(loadAnswers);
          } }, a.auto ? 'Prefill only' : 'Answer automatically'), ' ',
          h('button', { type: 'button', class: 'danger', 'aria-label': 'Forget remembered answer of ' + a.server, onclick: function () {
            api('POST', '/answers/forget', key).then(loadAnswers);
          } }, 'Forget')));
      });
    });
  }
  function loadAudit() {
    var f = $('audit-filter'), q = [];
    ['server', 'kind', 'action'].forEach(function (k) { var v = f.elements[k].value.trim(); if (v) q.push(k + '=' + encodeURIComponent(v)); });
    return api('GET', '/audit' + (q.length ? '?' + q.join('&') : '')).then(function (res) {
      var box = clear($('audit'));
      if (res.status !== 200) { box.appendChild(h('p', { class: 'error', text: res.data.error })); return; }
      if (!res.data.length) { box.appendChild(h('p', { class: 'muted', text: 'No audit records match.' })); return; }
      var body = h('tbody');
      res.data.forEach(function (a) {
        body.appendChild(h('tr', null, h('td', { text: fmtTime(a.ts) }), h('td', { text: a.server }), h('td', { text: a.kind }), h('td', { text: a.action || '' }), h('td', { text: a.requestId || '' }), h('td', null, a.detail ? h('code', { text: JSON.stringify(a.detail).slice(0, 300) }) : '')));
      });
      box.appendChild(h('table', null, h('thead', null, h('tr', null, ['Time', 'Server', 'Kind', 'Action', 'Request', 'Detail'].map(function (c) { return h('th', { scope: 'col', text: c }); }))), body));
    });
  }

`;
