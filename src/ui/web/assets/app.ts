/**
 * The console's browser script (plain ES2020, no framework), served as /app.js. It draws the panels
 * from the JSON API and follows server-sent events. Never uses innerHTML: every server string goes
 * through textContent. URL-mode URLs are shown as text and opened only after the person's consent.
 * (Kept free of backticks and dollar-brace so it can live in this string.)
 * @module
 */
export const APP_JS = String.raw`'use strict';
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var seq = 0;
  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) continue;
      if (k === 'text') el.textContent = v;
      else if (k === 'class') el.className = v;
      else if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), v);
      else if (v === true) el.setAttribute(k, '');
      else el.setAttribute(k, String(v));
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === undefined || c === null || c === false) continue;
      if (Array.isArray(c)) c.forEach(function (x) { if (x) el.appendChild(typeof x === 'string' ? document.createTextNode(x) : x); });
      else el.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return el;
  }
  function uid(p) { seq += 1; return p + '-' + seq; }
  function api(method, path, body) {
    var init = { method: method, credentials: 'same-origin', headers: {} };
    if (body !== undefined) { init.headers['content-type'] = 'application/json'; init.body = JSON.stringify(body); }
    return fetch('/api' + path, init).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (data) { return { status: r.status, data: data }; });
    }).catch(function (e) { return { status: 0, data: { error: 'The console is not reachable (' + e.message + ')' } }; });
  }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }
  function fmtTime(ms) { try { return new Date(ms).toLocaleString(); } catch (e) { return String(ms); } }

  // ---------- notices ----------
  var NOTICE_LABEL = { 'refused': 'Refused by policy', 'cancelled-by-server': 'Withdrawn by the server', 'url-completed': 'Completed', 'timeout': 'Timed out', 'invalid-answer': 'Answer not accepted', 'withdrawn': 'Withdrawn' };
  function addNotice(n) {
    $('notices-section').hidden = false;
    var info = n.kind === 'url-completed';
    var li = h('li', { class: 'notice' + (info ? ' info' : ''), 'data-kind': n.kind },
      h('strong', { text: (NOTICE_LABEL[n.kind] || n.kind) + ': ' }),
      h('span', { class: 'server', text: n.server }), ' — ', n.message,
      n.reason ? h('span', { class: 'reason', text: ' (' + n.reason + ')' }) : null);
    var list = $('notices');
    list.insertBefore(li, list.firstChild);
    while (list.children.length > 20) list.removeChild(list.lastChild);
  }

  // ---------- prompts ----------
  var prompts = new Map();
  function updateCount() {
    var n = prompts.size;
    $('prompt-count').textContent = n ? '(' + n + ')' : '';
    $('no-prompts').hidden = n > 0;
    document.title = (n ? '(' + n + ') ' : '') + 'parley console';
  }
  function removePrompt(id, reason) {
    var p = prompts.get(id);
    if (!p) return;
    prompts.delete(id);
    p.el.remove();
    if (reason === 'aborted') addNotice({ kind: 'withdrawn', server: p.payload.prompt.server, message: 'The request "' + p.payload.prompt.message + '" was withdrawn before it was answered.' });
    updateCount();
  }
  var WARN_TEXT = {
    'punycode': 'The address uses Punycode (xn--): the real site name can look like a different, familiar one.',
    'mixed-script': 'The site name mixes alphabets, a common trick to imitate another site.',
    'http-localhost': 'The address points at this computer over plain http.',
    'http': 'The address is not encrypted (http, not https).',
    'ip-address': 'The address is a bare IP address, not a site name.'
  };
  function fieldInput(f, id, descIds) {
    var v = f.value;
    var common = { id: id, name: f.name, 'aria-describedby': descIds, 'aria-required': f.required ? 'true' : undefined };
    if (f.kind === 'boolean') return h('input', Object.assign({ type: 'checkbox', checked: v === true }, common));
    if (f.kind === 'enum' || f.kind === 'legacy-titled-enum' || f.kind === 'titled-enum') {
      var sel = h('select', common, h('option', { value: '', text: f.required ? '— choose —' : '— none —' }));
      (f.options || []).forEach(function (o) { sel.appendChild(h('option', { value: o.value, text: o.label, selected: v === o.value })); });
      return sel;
    }
    if (f.kind === 'number' || f.kind === 'integer') {
      return h('input', Object.assign({ type: f.sensitive ? 'password' : 'number', autocomplete: f.sensitive ? 'off' : undefined, inputmode: f.kind === 'integer' ? 'numeric' : 'decimal', step: f.kind === 'integer' ? '1' : 'any', min: f.minimum, max: f.maximum, value: v === undefined ? '' : String(v) }, common));
    }
    var type = f.sensitive ? 'password' : f.format === 'email' ? 'email' : f.format === 'uri' ? 'url' : f.format === 'date' ? 'date' : f.format === 'date-time' ? 'datetime-local' : 'text';
    var val = v === undefined ? '' : String(v);
    if (type === 'datetime-local' && val) { var d = new Date(val); if (!isNaN(d)) { var off = d.getTimezoneOffset() * 60000; val = new Date(d.getTime() - off).toISOString().slice(0, 19); } }
    return h('input', Object.assign({ type: type, value: val, minlength: f.minLength, maxlength: f.maxLength, autocomplete: f.sensitive ? 'off' : undefined, spellcheck: 'false' }, common));
  }
  function hintFor(f) {
    var parts = [];
    if (f.minimum !== undefined && f.maximum !== undefined) parts.push('from ' + f.minimum + ' to ' + f.maximum);
    else if (f.minimum !== undefined) parts.push('at least ' + f.minimum);
    else if (f.maximum !== undefined) parts.push('at most ' + f.maximum);
    if (f.kind === 'integer') parts.push('whole number');
    if (f.minLength !== undefined || f.maxLength !== undefined) parts.push((f.minLength || 0) + (f.maxLength !== undefined ? '–' + f.maxLength : '+') + ' characters');
    if (f.minItems !== undefined || f.maxItems !== undefined) parts.push('choose ' + (f.minItems !== undefined ? f.minItems : 0) + (f.maxItems !== undefined ? ' to ' + f.maxItems : ' or more'));
    if (f.format === 'email') parts.push('an email address');
    if (f.format === 'uri') parts.push('a full address such as https://example.com');
    if (f.format === 'date-time') parts.push('date and local time');
    return parts.join('; ');
  }
  function renderField(f, p) {
    var id = uid('f');
    var descId = id + '-desc', errId = id + '-err', srcId = id + '-src', hintId = id + '-hint';
    var hint = hintFor(f);
    var ids = [f.description ? descId : null, hint ? hintId : null, f.value !== undefined ? srcId : null, errId].filter(Boolean).join(' ');
    var wrap = h('div', { class: 'field', 'data-field': f.name });
    var reqMark = f.required ? h('span', { class: 'req', text: ' (required)' }) : null;
    var sens = f.sensitive ? h('span', { class: 'req', text: ' (sensitive: hidden, never remembered)' }) : null;
    var extras = [
      f.description ? h('p', { class: 'desc', id: descId, text: f.description }) : null,
      hint ? h('p', { class: 'hint', id: hintId, text: hint }) : null,
      f.value !== undefined ? h('p', { class: 'source', id: srcId, text: 'Prefilled from ' + f.source + ' — review before sending' }) : null,
      h('p', { class: 'error', id: errId, 'aria-live': 'polite' })
    ];
    if (f.kind === 'multi-enum' || f.kind === 'titled-multi-enum') {
      var chosen = Array.isArray(f.value) ? f.value : [];
      var fs = h('fieldset', { 'aria-describedby': ids }, h('legend', null, f.title, reqMark));
      (f.options || []).forEach(function (o) {
        var oid = uid('o');
        fs.appendChild(h('label', { class: 'opt', for: oid }, h('input', { type: 'checkbox', id: oid, name: f.name, value: o.value, checked: chosen.indexOf(o.value) >= 0 }), ' ' + o.label));
      });
      wrap.appendChild(fs);
      extras.forEach(function (x) { if (x) wrap.appendChild(x); });
      p.controls[f.name] = { field: f, group: fs, err: wrap.querySelector('.error') };
      return wrap;
    }
    var input = fieldInput(f, id, ids);
    if (f.kind === 'boolean') wrap.appendChild(h('div', null, input, ' ', h('label', { for: id }, f.title, reqMark)));
    else { wrap.appendChild(h('label', { for: id }, f.title, reqMark, sens)); wrap.appendChild(input); }
    extras.forEach(function (x) { if (x) wrap.appendChild(x); });
    p.controls[f.name] = { field: f, input: input, err: wrap.querySelector('.error') };
    return wrap;
  }
  function collect(p) {
    var out = {};
    Object.keys(p.controls).forEach(function (name) {
      var c = p.controls[name], f = c.field;
      if (c.group) { out[name] = Array.prototype.slice.call(c.group.querySelectorAll('input:checked')).map(function (i) { return i.value; }); return; }
      if (f.kind === 'boolean') { out[name] = c.input.checked; return; }
      var v = c.input.value;
      if (f.format === 'date-time' && v) { var d = new Date(v); if (!isNaN(d)) v = d.toISOString(); }
      out[name] = v;
    });
    return out;
  }
  function showIssues(p, issues, onlyField) {
    Object.keys(p.controls).forEach(function (name) {
      if (onlyField !== undefined && name !== onlyField) return;
      var c = p.controls[name];
      c.err.textContent = '';
      (c.group || c.input).removeAttribute('aria-invalid');
    });
    if (onlyField === undefined) p.formError.textContent = '';
    var first = null;
    (issues || []).forEach(function (i) {
      var seg = (i.path || '').split('/')[1];
      var name = seg === undefined ? '' : seg.replace(/~1/g, '/').replace(/~0/g, '~');
      var c = p.controls[name];
      if (c) {
        c.err.textContent = (c.err.textContent ? c.err.textContent + ' ' : '') + i.message;
        (c.group || c.input).setAttribute('aria-invalid', 'true');
        if (!first) first = c.group ? c.group.querySelector('input') : c.input;
      } else if (onlyField === undefined) p.formError.textContent = (p.formError.textContent ? p.formError.textContent + ' ' : '') + i.message;
    });
    return first;
  }
  function send(p, action) {
    var body = { action: action };
    if (action === 'accept' && p.payload.prompt.mode === 'form') {
      body.content = collect(p);
      var r = p.el.querySelector('input[name="remember-' + p.idx + '"]:checked');
      if (r) body.remember = r.value;
    }
    p.busy(true);
    return api('POST', '/prompts/' + encodeURIComponent(p.payload.prompt.id) + '/answer', body).then(function (res) {
      p.busy(false);
      if (res.status === 200) { removePrompt(p.payload.prompt.id, 'answered'); return true; }
      if (res.status === 422) { var first = showIssues(p, res.data.issues); if (first) first.focus(); else p.formError.focus(); return false; }
      if (res.status === 404) { removePrompt(p.payload.prompt.id, 'aborted'); return false; }
      p.formError.textContent = res.data.error || ('The answer was not sent (HTTP ' + res.status + ').');
      return false;
    });
  }
  function urlParts(u) {
    var full = u.full, host = u.asciiHost || u.host || '';
    var start = full.indexOf('://');
    var at = host ? full.toLowerCase().indexOf(host.toLowerCase(), start < 0 ? 0 : start + 3) : -1;
    if (at < 0) return [full];
    return [full.slice(0, at), h('mark', { class: 'url-host', text: full.slice(at, at + host.length) }), full.slice(at + host.length)];
  }
  function renderPrompt(payload) {
    var pr = payload.prompt;
    if (prompts.has(pr.id)) removePrompt(pr.id);
    var idx = ++seq;
    var headId = 'ph-' + idx;
    var el = h('article', { class: 'prompt', 'data-id': pr.id, 'data-server': pr.server, 'aria-labelledby': headId, tabindex: '-1' });
    var p = { payload: payload, el: el, idx: idx, controls: {}, formError: h('p', { class: 'form-error', role: 'alert', tabindex: '-1' }) };
    el.appendChild(h('h3', { id: headId }, h('span', { class: 'server', text: pr.server }), ' is asking'));
    if (pr.call) el.appendChild(h('p', { class: 'call muted' }, 'During the tool call ', h('code', { text: pr.call.tool }), ' (call ' + pr.call.callId + ')'));
    el.appendChild(h('p', { class: 'message', text: pr.message }));
    var warns = (pr.warnings || []).map(function (w) {
      return w.indexOf('sensitive:') === 0 ? 'The field "' + w.slice(10) + '" looks like a secret (password, key, PIN). Servers must not ask for secrets in a form: answer only if you trust ' + pr.server + '. It is hidden as you type and never remembered.' : w;
    });
    if (warns.length) el.appendChild(h('div', { class: 'warn', role: 'note' }, h('strong', { text: 'Before you answer:' }), h('ul', null, warns.map(function (w) { return h('li', { text: w }); }))));
    if ((pr.repairs || []).length) el.appendChild(h('details', { class: 'repairs' }, h('summary', { text: 'parley adjusted this form so it can be shown (' + pr.repairs.length + ')' }), h('ul', null, pr.repairs.map(function (r) { return h('li', { text: r.message + (r.path ? ' [' + r.path + ']' : '') }); }))));
    if ((pr.lint || []).length) el.appendChild(h('details', { class: 'lint' }, h('summary', { text: 'Notes on the form as the server sent it (' + pr.lint.length + ')' }), h('ul', null, pr.lint.map(function (i) { return h('li', { text: i.severity + ': ' + i.message + (i.path ? ' [' + i.path + ']' : '') }); }))));
    var buttons = h('div', { class: 'buttons' });
    var all = [];
    function btn(label, cls, action, extra) {
      var b = h('button', { type: 'button', class: cls, 'data-action': action, onclick: extra || function () { send(p, action); } }, label);
      all.push(b); buttons.appendChild(b); return b;
    }
    p.busy = function (on) { all.forEach(function (b) { b.disabled = on; }); };
    if (pr.mode === 'url' && pr.url) {
      var u = pr.url;
      var box = h('div', { class: 'url-consent' },
        h('p', { text: 'The server wants you to open a web page. Nothing is opened or loaded until you choose Open; the page opens in a separate window that parley cannot see.' }),
        h('p', null, 'Site: ', h('strong', { class: 'url-site', text: u.host }), u.asciiHost && u.asciiHost !== u.host ? h('span', { class: 'muted', text: ' (written as ' + u.asciiHost + ')' }) : null),
        h('p', { text: 'Full address:' }),
        h('code', { class: 'url-full' }, urlParts(u)));
      if ((u.warnings || []).length) box.appendChild(h('div', { class: 'warn url-warnings', role: 'note' }, h('strong', { text: 'Check this address:' }), h('ul', null, u.warnings.map(function (w) { return h('li', { text: WARN_TEXT[w] || w }); }))));
      el.appendChild(box);
      // A look-alike Unicode name in the button would repeat the trick; say the wire name then.
      btn('Open ' + ((u.warnings || []).length && u.asciiHost ? u.asciiHost : u.host), '', 'accept', function () {
        send(p, 'accept').then(function (ok) { if (ok) window.open(u.full, '_blank', 'noopener,noreferrer'); });
      });
    } else {
      var form = h('form', { novalidate: true, onsubmit: function (e) { e.preventDefault(); send(p, 'accept'); } });
      payload.fields.forEach(function (f) { form.appendChild(renderField(f, p)); });
      if (payload.rememberable) {
        var rfs = h('fieldset', { class: 'remember' }, h('legend', { text: 'Remember this answer' }));
        [['once', 'Just this once'], ['session', 'For this session'], ['always', 'Always (for this server and form)']].forEach(function (o, i) {
          var rid = uid('r');
          rfs.appendChild(h('label', { class: 'opt', for: rid }, h('input', { type: 'radio', id: rid, name: 'remember-' + idx, value: o[0], checked: i === 0 }), ' ' + o[1]));
        });
        var sensitiveNames = payload.fields.filter(function (f) { return f.sensitive; }).map(function (f) { return f.title; });
        if (sensitiveNames.length) rfs.appendChild(h('p', { class: 'hint', text: 'Never remembered: ' + sensitiveNames.join(', ') + '.' }));
        form.appendChild(rfs);
      }
      form.addEventListener('input', function (e) { liveCheck(p, e.target); });
      form.addEventListener('change', function (e) { liveCheck(p, e.target); });
      el.appendChild(form);
      (pr.issues || []).length && setTimeout(function () { showIssues(p, pr.issues); }, 0);
      btn(payload.confirmOnly ? 'Accept' : 'Accept and send', '', 'accept');
    }
    btn('Decline', 'secondary', 'decline');
    btn('Cancel', 'danger', 'cancel');
    el.appendChild(p.formError);
    el.appendChild(buttons);
    el.appendChild(h('p', { class: 'hint', text: 'Decline tells the server you said no; Cancel (or Esc) closes this request without an answer.' }));
    el.addEventListener('keydown', function (e) { if (e.key === 'Escape') { e.preventDefault(); send(p, 'cancel'); } });
    prompts.set(pr.id, p);
    $('prompt-list').appendChild(el);
    updateCount();
    // Bring a new request to the person's attention, but never take focus from what they are doing.
    if (!document.activeElement || document.activeElement === document.body) el.focus();
  }
  var timers = {};
  function liveCheck(p, target) {
    var wrap = target && target.closest ? target.closest('.field') : null;
    if (!wrap) return;
    var name = wrap.getAttribute('data-field');
    var key = p.idx + ':' + name;
    clearTimeout(timers[key]);
    timers[key] = setTimeout(function () {
      api('POST', '/prompts/' + encodeURIComponent(p.payload.prompt.id) + '/validate', { content: collect(p), field: name }).then(function (res) {
        if (res.status === 200 && prompts.get(p.payload.prompt.id) === p) showIssues(p, res.data.issues, name);
      });
    }, 250);
  }

  // ---------- servers ----------
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

  // ---------- wiring ----------
  function init() {
    $('root-add').addEventListener('submit', function (e) {
      e.preventDefault();
      var f = e.target;
      api('POST', '/roots', { uri: f.elements.uri.value.trim(), name: f.elements.name.value.trim() || undefined, lifetime: f.elements.lifetime.value }).then(function (r) {
        $('root-error').textContent = r.status === 200 ? '' : r.data.error;
        if (r.status === 200) { f.elements.uri.value = ''; f.elements.name.value = ''; }
        loadRoots();
      });
    });
    $('preset-save').addEventListener('submit', function (e) {
      e.preventDefault();
      var name = e.target.elements.name.value.trim();
      api('POST', '/presets', { name: name }).then(function (r) { $('preset-error').textContent = r.status === 200 ? '' : r.data.error; loadPresets(); });
    });
    $('audit-filter').addEventListener('submit', function (e) { e.preventDefault(); loadAudit(); });
    loadServers(); loadTools(); loadRoots(); loadPresets(); loadAudit();
    var es = new EventSource('/api/events');
    es.onopen = function () { $('conn').textContent = 'Live'; };
    es.onerror = function () { $('conn').textContent = 'Reconnecting…'; };
    es.addEventListener('snapshot', function (e) {
      var d = JSON.parse(e.data);
      Array.from(prompts.keys()).forEach(function (id) { if (!d.prompts.some(function (x) { return x.prompt.id === id; })) removePrompt(id); });
      d.prompts.forEach(function (pl) { if (!prompts.has(pl.prompt.id)) renderPrompt(pl); });
      clear($('notices')); d.notices.forEach(addNotice);
      document.body.setAttribute('data-ready', 'true');
    });
    es.addEventListener('prompt', function (e) { renderPrompt(JSON.parse(e.data).payload); });
    es.addEventListener('prompt-closed', function (e) { var d = JSON.parse(e.data); removePrompt(d.id, d.reason); });
    es.addEventListener('notice', function (e) { addNotice(JSON.parse(e.data).notice); });
    es.addEventListener('host', function (e) {
      var d = JSON.parse(e.data);
      var fn = ({ servers: loadServers, tools: loadTools, roots: loadRoots, presets: loadPresets, audit: loadAudit })[d.type];
      if (fn) fn();
    });
    updateCount();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init); else init();
})();
`;
