/** Browser helpers (DOM builder, API call) and the notices list. Part of the console script; see app.ts. @module */
export const APP_CORE_JS = String.raw`  var $ = function (id) { return document.getElementById(id); };
  var seq = 0;
  // Text a server chose is shown, never obeyed: a bidirectional control (U+202E made "gnp.exe" read
  // "exe.png") appears as \u{202e}, as on the terminal (src/ui/terminal/safe-text.ts).
  var BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  function shown(s) { return String(s).replace(BIDI, function (c) { return '\\u{' + c.charCodeAt(0).toString(16) + '}'; }); }
  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) continue;
      if (k === 'text') el.textContent = shown(v);
      else if (k === 'class') el.className = v;
      else if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), v);
      else if (v === true) el.setAttribute(k, '');
      else el.setAttribute(k, String(v));
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === undefined || c === null || c === false) continue;
      if (Array.isArray(c)) c.forEach(function (x) { if (x) el.appendChild(typeof x === 'string' ? document.createTextNode(shown(x)) : x); });
      else el.appendChild(typeof c === 'string' ? document.createTextNode(shown(c)) : c);
    }
    return el;
  }
  function uid(p) { seq += 1; return p + '-' + seq; }
  /** "1 line", "2 lines": a count with its noun, singular for one. */
  function count(n, noun) { return n + ' ' + noun + (n === 1 ? '' : 's'); }
  function api(method, path, body) {
    var init = { method: method, credentials: 'same-origin', headers: {} };
    if (body !== undefined) { init.headers['content-type'] = 'application/json'; init.body = JSON.stringify(body); }
    return fetch('/api' + path, init).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (data) {
        if (r.status === 401) signedOut(data.error);
        return { status: r.status, data: data };
      });
    }).catch(function (e) { return { status: 0, data: { error: 'The console is not reachable (' + e.message + ')' } }; });
  }
  // Access refused (the session ended, or parley restarted with a new token): say why and what to do.
  function signedOut(why) {
    var el = $('conn');
    el.textContent = 'No access: ' + (why || 'open the console address printed when parley started.');
    el.className = 'denied';
  }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }
  // ISO 8601 UTC to the second (2026-12-01 19:26:03Z), as parley audit prints it: one format whatever the browser's locale.
  function fmtTime(ms) { try { return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z'); } catch (e) { return String(ms); } }

  // ---------- notices ----------
  var NOTICE_LABEL = { 'refused': 'Refused by policy', 'cancelled-by-server': 'Withdrawn by the server', 'url-completed': 'Completed', 'timeout': 'Timed out', 'invalid-answer': 'Answer not accepted', 'withdrawn': 'Withdrawn', 'server-stopped': 'Server stopped' };
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

`;
