/** The console's single page (static; everything dynamic is drawn by app.js). @module */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>parley console</title>
<link rel="stylesheet" href="/app.css">
<script src="/app.js" defer></script>
</head>
<body>
<a class="skip" href="#prompts">Skip to pending requests</a>
<header class="top">
  <h1>parley console</h1>
  <p id="conn" role="status">Connecting…</p>
</header>
<div id="new-request" class="toast" role="status" aria-live="assertive" hidden>
  <span id="new-request-text"></span>
  <button type="button" id="new-request-go">Go to the request</button>
  <button type="button" id="new-request-close" class="secondary" aria-label="Dismiss this notice">Dismiss</button>
</div>
<main>
  <section id="notices-section" aria-labelledby="notices-h" hidden>
    <h2 id="notices-h">Notices</h2>
    <ul id="notices" aria-live="polite"></ul>
  </section>
  <section id="prompts" aria-labelledby="prompts-h" tabindex="-1">
    <h2 id="prompts-h">Pending requests <span id="prompt-count" class="count"></span></h2>
    <p id="no-prompts" class="muted">No server is asking for anything right now.</p>
    <div id="prompt-list"></div>
  </section>
  <section id="servers-section" aria-labelledby="servers-h">
    <h2 id="servers-h">Servers</h2>
    <div id="servers"></div>
  </section>
  <section id="tools-section" aria-labelledby="tools-h">
    <h2 id="tools-h">Tools</h2>
    <div id="tools"></div>
  </section>
  <section id="roots-section" aria-labelledby="roots-h">
    <h2 id="roots-h">Roots</h2>
    <form id="root-add" class="inline" novalidate>
      <label for="root-uri">Root URI</label>
      <input id="root-uri" name="uri" type="text" placeholder="file:///home/me/project" required>
      <label for="root-name">Name</label>
      <input id="root-name" name="name" type="text">
      <label for="root-lifetime">Scope</label>
      <select id="root-lifetime" name="lifetime"><option value="session">This session</option><option value="app">Always (app)</option></select>
      <button type="submit">Add root</button>
      <p id="root-error" class="error" role="alert"></p>
    </form>
    <div id="roots"></div>
  </section>
  <section id="presets-section" aria-labelledby="presets-h">
    <h2 id="presets-h">Presets</h2>
    <form id="preset-save" class="inline" novalidate>
      <label for="preset-name">Preset name</label>
      <input id="preset-name" name="name" type="text" required>
      <button type="submit">Save current roots and answers</button>
      <a id="preset-export" class="button secondary" href="/api/presets/export" download="parley-presets.json">Export all presets</a>
      <p id="preset-error" class="error" role="alert"></p>
      <p id="preset-status" class="muted" role="status"></p>
    </form>
    <ul id="presets"></ul>
  </section>
  <section id="answers-section" aria-labelledby="answers-h">
    <h2 id="answers-h">Remembered answers</h2>
    <ul id="answers"></ul>
  </section>
  <section id="audit-section" aria-labelledby="audit-h">
    <h2 id="audit-h">Audit log</h2>
    <form id="audit-filter" class="inline" novalidate>
      <label for="audit-server">Server</label>
      <input id="audit-server" name="server" type="text">
      <label for="audit-kind">Kind</label>
      <input id="audit-kind" name="kind" type="text" placeholder="answer, policy, tool-call…">
      <label for="audit-action">Action</label>
      <select id="audit-action" name="action"><option value="">Any</option><option>accept</option><option>decline</option><option>cancel</option></select>
      <button type="submit">Filter</button>
    </form>
    <div id="audit"></div>
  </section>
</main>
</body>
</html>
`;
