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
          h('h3', null, s.name, ' ', h('span', { class: 'state ' + s.state, text: s.state })),
          h('p', null, 'Protocol revision: ', h('strong', { text: s.revision || 'not negotiated' }), s.transport ? ' · transport ' + s.transport : ''),
          h('p', null, 'Capabilities: ', caps.length ? caps.join(', ') : 'none declared'),
          caps.length ? h('details', null, h('summary', { text: 'Capabilities as declared' }), h('pre', { text: JSON.stringify(s.capabilities, null, 2) })) : null,
          s.error ? h('p', { class: 'error', text: s.error }) : null,
          h('details', null, h('summary', { text: 'Recent stderr (' + (s.stderr || []).length + ' lines)' }), h('pre', { class: 'stderr', text: (s.stderr || []).join('\n') || '(nothing)' })),
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
  function renderResult(box, res) {
    clear(box);
    box.className = 'result';
    if (res.status !== 200) { box.classList.add('is-error'); box.appendChild(h('h4', { text: 'The call failed' })); box.appendChild(h('p', { class: 'error', text: res.data.error })); return; }
    var r = res.data;
    if (r.isError) { box.classList.add('is-error'); box.appendChild(h('h4', { text: 'The tool reported an error' })); }
    else box.appendChild(h('h4', { text: 'Result' }));
    (r.content || []).forEach(function (c) {
      if (c.type === 'text') box.appendChild(h('pre', { class: 'text', text: c.text }));
      else if (c.type === 'image' && /^image\/(png|jpeg|gif|webp)$/.test(c.mimeType) && /^[A-Za-z0-9+\/=]+$/.test(c.data)) box.appendChild(h('img', { src: 'data:' + c.mimeType + ';base64,' + c.data, alt: 'Image returned by the tool (' + c.mimeType + ')' }));
      else box.appendChild(h('pre', { text: JSON.stringify(c, null, 2) }));
    });
    if (r.structuredContent !== undefined) { box.appendChild(h('h4', { text: 'Structured content' })); box.appendChild(h('pre', { class: 'structured', text: JSON.stringify(r.structuredContent, null, 2) })); }
  }
  function loadTools() {
    return api('GET', '/tools').then(function (res) {
      var box = clear($('tools'));
      if (res.status !== 200) { box.appendChild(h('p', { class: 'error', text: res.data.error })); return; }
      if (!res.data.length) box.appendChild(h('p', { class: 'muted', text: 'No tools listed yet.' }));
      res.data.forEach(function (t) {
        box.appendChild(h('details', { class: 'card tool', 'data-tool': t.server + '/' + t.name },
          h('summary', null, h('strong', { text: t.server }), ' / ' + t.name + (t.title ? ' — ' + t.title : '')),
          t.description ? h('p', { class: 'desc', text: t.description }) : null, toolForm(t)));
      });
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
        list.appendChild(h('li', { 'data-preset': p.name }, h('strong', { text: p.name }), ' — ' + p.roots + ' roots, answers for ' + (p.servers.join(', ') || 'no servers') + ', saved ' + fmtTime(p.updatedAt) + ' ',
          h('button', { type: 'button', class: 'secondary', 'aria-label': 'Load preset ' + p.name, onclick: function () {
            api('POST', '/presets/' + encodeURIComponent(p.name) + '/load', {}).then(function (r) { $('preset-error').textContent = r.status === 200 ? '' : r.data.error; loadRoots(); });
          } }, 'Load')));
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
