/** Browser code of the pending-requests panel: forms for every field kind, URL consent, answers. Part of the console script; see app.ts. @module */
export const APP_PROMPTS_JS = String.raw`  // ---------- prompts ----------
  var prompts = new Map();
  function updateCount() {
    var n = prompts.size;
    $('prompt-count').textContent = n ? '(' + n + ')' : '';
    $('no-prompts').hidden = n > 0;
    document.title = (n ? '(' + n + ') ' : '') + 'parley console';
    if (!n) hideToast();
  }
  // ---------- new-request notice ----------
  // A fixed notice (bottom right, always in view) for a request that arrives while its card is out of
  // view; "Go to the request" scrolls to the newest waiting card and focuses it. Hidden again when the
  // card is reached (by the button or by scrolling) or when nothing is waiting.
  var toastFor = null;
  function inView(el) {
    var r = el.getBoundingClientRect();
    return r.bottom > 0 && r.top < (window.innerHeight || document.documentElement.clientHeight);
  }
  function hideToast() { toastFor = null; $('new-request').hidden = true; }
  function showToast(pr) {
    var p = prompts.get(pr.id);
    if (!p || inView(p.el)) return;
    toastFor = pr.id;
    var n = prompts.size;
    $('new-request-text').textContent = (pr.configInput ? '' : pr.server + ' is asking: ') + pr.message + (n > 1 ? ' (' + n + ' requests waiting)' : '');
    $('new-request').hidden = false;
  }
  function goToRequest() {
    var p = prompts.get(toastFor) || Array.from(prompts.values()).pop();
    hideToast();
    if (!p) return;
    p.el.scrollIntoView({ block: 'start' });
    p.el.focus({ preventScroll: true });
  }
  function initToast() {
    $('new-request-go').addEventListener('click', goToRequest);
    $('new-request-close').addEventListener('click', hideToast);
    window.addEventListener('scroll', function () { var p = toastFor && prompts.get(toastFor); if (p && inView(p.el)) hideToast(); }, { passive: true });
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
    'ip-address': 'The address is a bare IP address, not a site name.',
    'credentials-in-url': 'The address carries a user name or password before the site name; it may lead somewhere other than it seems.'
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
    if (f.multiline) return h('textarea', Object.assign({ rows: 6, maxlength: f.maxLength, text: v === undefined ? '' : String(v) }, common));
    var type = f.sensitive ? 'password' : f.format === 'email' ? 'email' : f.format === 'uri' ? 'url' : 'text';
    var val = v === undefined ? '' : String(v);
    // Dates are plain text written exactly as the hint says (no native picker: it shows the browser's locale order).
    var dateAttrs = DATE_FORMATS[f.format] && !f.sensitive ? { inputmode: DATE_FORMATS[f.format].inputmode, pattern: DATE_FORMATS[f.format].pattern, placeholder: DATE_FORMATS[f.format].placeholder, autocomplete: 'off', 'data-format': f.format } : {};
    return h('input', Object.assign({ type: type, value: val, minlength: f.minLength, maxlength: f.maxLength, autocomplete: f.sensitive ? 'off' : undefined, spellcheck: 'false' }, dateAttrs, common));
  }
  // The two date formats: what the text box shows and takes (RFC 3339 §5.6; the server checks the calendar too).
  var DATE_FORMATS = {
    date: { inputmode: 'numeric', placeholder: 'YYYY-MM-DD', pattern: '\\d{4}-\\d{2}-\\d{2}', re: /^\d{4}-\d{2}-\d{2}$/ },
    'date-time': { inputmode: 'text', placeholder: 'YYYY-MM-DDTHH:MM:SSZ', pattern: '\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+\\-]\\d{2}:\\d{2})', re: /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/ }
  };
  /** Client-side check of the date fields (bounded input: maxlength or the 'value' cap); issues in the server's shape. */
  function dateIssues(p) {
    var out = [];
    Object.keys(p.controls).forEach(function (name) {
      var c = p.controls[name], df = c.input && DATE_FORMATS[c.field.format];
      if (!df || c.field.sensitive) return;
      var v = c.input.value;
      if (v && (v.length > 64 || !df.re.test(v))) out.push({ path: '/' + name.replace(/~/g, '~0').replace(/\//g, '~1'), message: 'Write ' + c.field.title + ' as ' + (c.field.formatHint || df.placeholder) + '.' });
    });
    return out;
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
    if (f.format === 'date' && f.formatHint) parts.push(f.formatHint);
    if (f.format === 'date-time' && f.formatHint) parts.push(f.formatHint);
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
    // A string field parley did not flag can still be a secret: the person masks it (hidden, kept out of the audit, never remembered).
    if (f.kind === 'string' && !f.sensitive && !f.multiline && input.tagName === 'INPUT') {
      var plain = input.type;
      var mask = h('button', { type: 'button', class: 'mask-toggle secondary', 'aria-pressed': 'false', 'data-mask': f.name, title: 'Hide it as you type, keep it out of the audit log, never remember it', onclick: function () {
        var on = mask.getAttribute('aria-pressed') !== 'true';
        mask.setAttribute('aria-pressed', on ? 'true' : 'false');
        input.type = on ? 'password' : plain;
        input.autocomplete = on ? 'off' : '';
      } }, 'Mask (secret)');
      wrap.appendChild(mask);
    }
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
      out[name] = c.input.value;
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
      // Dates written another way are refused here with the format's name; the server checks again (and the calendar).
      var bad = dateIssues(p);
      if (bad.length) { var f0 = showIssues(p, bad); if (f0) f0.focus(); return Promise.resolve(false); }
      body.content = collect(p);
      var r = p.el.querySelector('input[name="remember-' + p.idx + '"]:checked');
      if (r) body.remember = r.value;
      var masked = Array.prototype.slice.call(p.el.querySelectorAll('button.mask-toggle[aria-pressed="true"]')).map(function (b) { return b.getAttribute('data-mask'); });
      if (masked.length) body.masked = masked;
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
    var p = { payload: payload, el: el, idx: idx, controls: {}, touched: {}, formError: h('p', { class: 'form-error', role: 'alert', tabindex: '-1' }) };
    if (pr.signIn) el.appendChild(h('h3', { id: headId }, h('span', { class: 'server', text: pr.server }), ' wants you to sign in at ', h('span', { class: 'issuer', text: pr.signIn.issuer })));
    else if (pr.configInput) el.appendChild(h('h3', { id: headId }, 'parley needs a value to start ', h('span', { class: 'server', text: pr.server })));
    else el.appendChild(h('h3', { id: headId }, h('span', { class: 'server', text: pr.server }), pr.sampling ? ' asks for a model reply (sampling)' : ' is asking'));
    if (pr.call?.callId) el.appendChild(h('p', { class: 'call muted' }, 'During the tool call ', h('code', { text: pr.call.tool }), ' (call ' + pr.call.callId.slice(0, 8) + ')'));
    else if (pr.call) el.appendChild(h('p', { class: 'call muted' }, 'During ' + pr.call.tool.replace(/^one of: /, 'one of the tool calls ')));
    if (!pr.signIn) el.appendChild(h('p', { class: 'message', text: pr.message }));
    else el.appendChild(h('p', { class: 'message', text: 'Signing in lets parley use ' + pr.server + ' on your behalf. After you sign in, the browser returns to parley on this machine (127.0.0.1) and this prompt closes by itself.' }));
    // Warnings in words: url:<code> ones are shown in the address box below (never as raw codes).
    var warns = (pr.warnings || []).filter(function (w) { return !(w.indexOf('url:') === 0 && pr.url); }).map(function (w) {
      if (w.indexOf('url:') === 0) return WARN_TEXT[w.slice(4)] || 'The address looks unusual (' + w.slice(4) + ').';
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
    if (payload.decision) {
      el.querySelector('h3').textContent = pr.server + ' needs a browser step';
      el.appendChild(h('ul', { class: 'decision-urls' }, payload.decision.urls.map(function (u) { return h('li', null, h('code', { class: 'url-full', text: u })); })));
      btn('Retry ' + payload.decision.tool, '', 'accept');
      btn('Cancel the call', 'danger', 'cancel');
    } else if (pr.mode === 'url' && pr.url) {
      var u = pr.url;
      var box = h('div', { class: 'url-consent' },
        h('p', { text: 'The server wants you to open a web page. Nothing is opened or loaded until you choose Open; the page opens in a separate window that parley cannot see.' }),
        h('p', null, 'Site: ', h('strong', { class: 'url-site', text: u.host }), u.asciiHost && u.asciiHost !== u.host ? h('span', { class: 'muted', text: ' (written as ' + u.asciiHost + ')' }) : null),
        h('p', { text: 'Full address:' }),
        h('code', { class: 'url-full' }, urlParts(u)));
      if ((u.warnings || []).length) box.appendChild(h('div', { class: 'warn url-warnings', role: 'note' }, h('strong', { text: 'Check this address:' }), h('ul', null, u.warnings.map(function (w, i) { var d = (u.warningDetails || [])[i]; return h('li', { text: WARN_TEXT[w] || (d && d.code === w ? d.text : w) }); }))));
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
        [['once', 'Just this once'], ['session', 'For this session (prefill)'], ['always', 'Always: prefill only (for this server and form)'], ['auto', 'Always: answer automatically next time (for this server and form)']].forEach(function (o, i) {
          var rid = uid('r');
          rfs.appendChild(h('label', { class: 'opt', for: rid }, h('input', { type: 'radio', id: rid, name: 'remember-' + idx, value: o[0], checked: i === 0 }), ' ' + o[1]));
        });
        var sensitiveNames = payload.fields.filter(function (f) { return f.sensitive; }).map(function (f) { return f.title; });
        if (sensitiveNames.length) rfs.appendChild(h('p', { class: 'hint', text: 'Never remembered: ' + sensitiveNames.join(', ') + '.' }));
        rfs.appendChild(h('p', { class: 'hint', text: 'Remembered answers are listed under "Remembered answers", where you can forget them or switch them to prefill only.' }));
        form.appendChild(rfs);
      }
      form.addEventListener('input', function (e) { touch(p, e.target); liveCheck(p, e.target); });
      form.addEventListener('change', function (e) { touch(p, e.target); liveCheck(p, e.target); });
      p.fillNote = h('p', { class: 'fill-note', role: 'status', hidden: true });
      el.appendChild(p.fillNote);
      el.appendChild(form);
      (pr.issues || []).length && setTimeout(function () { showIssues(p, pr.issues); }, 0);
      btn(pr.sampling ? 'Send reply' : payload.confirmOnly ? 'Accept' : 'Accept and send', '', 'accept');
    }
    if (!payload.decision) { btn('Decline', 'secondary', 'decline'); btn('Cancel', 'danger', 'cancel'); }
    el.appendChild(p.formError);
    el.appendChild(buttons);
    el.appendChild(h('p', { class: 'hint', text: payload.decision ? 'Finish the step in your browser, then Retry; Cancel (or Esc) ends the tool call.' : 'Decline tells the server you said no; Cancel (or Esc) closes this request without an answer.' }));
    el.addEventListener('keydown', function (e) { if (e.key === 'Escape') { e.preventDefault(); send(p, 'cancel'); } });
    prompts.set(pr.id, p);
    $('prompt-list').appendChild(el);
    updateCount();
    // Bring a new request to the person's attention, but never take focus from what they are doing.
    if (!document.activeElement || document.activeElement === document.body) el.focus({ preventScroll: true });
    showToast(pr);
  }
  /** Marks the field of the event target as changed by the person: a preset loaded later leaves it alone. */
  function touch(p, target) {
    var wrap = target && target.closest ? target.closest('.field') : null;
    if (wrap) p.touched[wrap.getAttribute('data-field')] = true;
  }
  /**
   * A preset loaded while this form is open (event prompt-fill): its values go into the fields the
   * person has not changed; the card says what was filled, what was kept, or why nothing was.
   */
  function fillPrompt(d) {
    var p = prompts.get(d.id);
    if (!p || !p.fillNote) return;
    var filled = [], kept = [];
    d.fields.forEach(function (f) {
      var c = p.controls[f.name];
      if (!c) return;
      if (p.touched[f.name]) { kept.push(f.title); return; }
      if (c.group) c.group.querySelectorAll('input').forEach(function (i) { i.checked = Array.isArray(f.value) && f.value.indexOf(i.value) >= 0; });
      else if (f.kind === 'boolean') c.input.checked = f.value === true;
      else c.input.value = f.value === undefined || f.value === null ? '' : String(f.value);
      var wrap = (c.group || c.input).closest('.field');
      var src = wrap.querySelector('.source');
      if (!src) { src = h('p', { class: 'source' }); wrap.insertBefore(src, c.err); }
      src.textContent = 'Prefilled from ' + f.source + ' — review before sending';
      filled.push(f.title);
    });
    var text = d.reason || '';
    if (filled.length) text = 'Filled ' + filled.join(', ') + ' from the preset "' + d.preset + '": review before sending.';
    if (kept.length) text += (text ? ' ' : '') + 'Kept what you had changed: ' + kept.join(', ') + '.';
    p.fillNote.textContent = text;
    p.fillNote.hidden = !text;
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

`;
