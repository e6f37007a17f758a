/** Browser start-up: form handlers, first loads, the EventSource. Part of the console script; see app.ts. @module */
export const APP_WIRING_JS = String.raw`  // ---------- wiring ----------
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
    initToast();
    loadServers(); loadTools(); loadRoots(); loadPresets(); loadAnswers(); loadAudit();
    var es = new EventSource('/api/events');
    es.onopen = function () { $('conn').textContent = 'Live'; };
    es.onerror = function () {
      $('conn').textContent = 'Reconnecting…';
      // A restarted console has new sessions: stop retrying and say what to do.
      api('GET', '/notices').then(function (r) {
        if (r.status === 401) es.close(); // api() has shown why, and what to do
      });
    };
    es.addEventListener('snapshot', function (e) {
      var d = JSON.parse(e.data);
      Array.from(prompts.keys()).forEach(function (id) { if (!d.prompts.some(function (x) { return x.prompt.id === id; })) removePrompt(id); });
      d.prompts.forEach(function (pl) { if (!prompts.has(pl.prompt.id)) renderPrompt(pl); });
      clear($('notices')); d.notices.forEach(addNotice);
      document.body.setAttribute('data-ready', 'true');
    });
    es.addEventListener('prompt', function (e) { renderPrompt(JSON.parse(e.data).payload); });
    es.addEventListener('prompt-fill', function (e) { fillPrompt(JSON.parse(e.data)); });
    es.addEventListener('prompt-closed', function (e) { var d = JSON.parse(e.data); removePrompt(d.id, d.reason); });
    es.addEventListener('notice', function (e) { addNotice(JSON.parse(e.data).notice); });
    es.addEventListener('host', function (e) {
      var d = JSON.parse(e.data);
      var fn = ({ servers: loadServers, tools: loadTools, roots: loadRoots, presets: loadPresets, answers: loadAnswers, audit: loadAudit })[d.type];
      if (fn) fn();
    });
    updateCount();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init); else init();
`;
