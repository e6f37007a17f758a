// server-everything 2026.8.31 over stdio (legacy 2025-11-25 peer built on SDK v1) through ServerManager.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServerManager } from '../src/host/servers/index.js';
import { everything, scriptedHandlers, text, ROOT, clientInfo, sleep, fastStop } from './fixtures/servers-host/helpers.js';
import { pollUntil, WAIT_MS, waitUntil } from './helpers/wait.js';
import { verifies } from './helpers/verifies.js';

describe('server-everything over stdio', () => {
  const h = scriptedHandlers();
  const m = new ServerManager({ everything: everything() }, { handlers: h.handlers, clientInfo, urlCompleteWaitMs: 50, stop: fastStop });
  const changed: string[] = [];
  const logs: unknown[] = [];
  m.events.on('log', (e) => logs.push(e.data));
  m.events.on('listChanged', (e) => changed.push(e.kind));
  before(async () => {
    await m.start('everything');
  });
  after(() => m.stopAll());

  it('negotiates the legacy era at 2025-11-25 with auto negotiation', () => {
    verifies('ERA-DUAL-FALLBACK');
    const info = m.info('everything');
    assert.equal(info?.era, 'legacy');
    assert.equal(info?.negotiatedRevision, '2025-11-25');
    assert.equal(info?.serverInfo?.name, 'mcp-servers/everything');
    assert.ok(info?.serverCapabilities?.tools);
    assert.deepEqual(m.state('everything').status, 'running');
  });

  it('lists 16 tools once capability-dependent tools are registered (list_changed invalidates the cache)', async () => {
    await waitUntil(() => changed.includes('tools'));
    assert.ok(changed.includes('tools'), 'tools list_changed event');
    // server-everything registers its capability-dependent tools one by one after initialisation, and each
    // registration sends its own list_changed; so the cache is checked across a pair of lists with no
    // notification in between (bounded by time, not tries: a slow machine spreads the burst out).
    let tools: Awaited<ReturnType<typeof m.listTools>>['tools'] = [];
    let cached = false;
    for (const end = Date.now() + WAIT_MS; !cached && Date.now() < end; ) {
      const n = changed.length;
      tools = (await m.listTools('everything')).tools;
      const again = (await m.listTools('everything')).tools;
      if (changed.length === n) {
        assert.equal(again, tools, 'served from cache until list_changed');
        cached = tools.some((t) => t.name === 'trigger-url-elicitation');
      }
      if (!cached) await sleep(20);
    }
    assert.ok(cached, 'two lists with no list_changed in between, after the URL tool was registered');
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('trigger-url-elicitation'), 'URL tool registered because url mode was declared');
  });

  for (const [action, expected] of [
    ['accept', '✅ User provided the requested information!'],
    ['decline', '❌ User declined'],
    ['cancel', '⚠️ User cancelled'],
  ] as const) {
    it(`form elicitation answered ${action}`, async () => {
      verifies('ELIC-RESULT-ACTIONS');
      h.state.answer = (p) => (action === 'accept' ? { action, content: { name: 'Ada', check: true } } : { action });
      const before = h.calls.length;
      const r = await m.callTool('everything', 'trigger-elicitation-request', {});
      assert.ok(text(r).includes(expected), text(r));
      const call = h.calls[before];
      assert.equal(call.ctx.era, 'legacy');
      assert.equal(call.ctx.server, 'everything');
      assert.equal(typeof call.ctx.requestId, 'number');
      assert.equal((call.params as { requestedSchema?: { required?: string[] } }).requestedSchema?.required?.[0], 'name');
      if (action === 'accept') assert.ok(text(r).includes('Ada'));
    });
  }

  it('URL elicitation is passed to the handler in url mode', async () => {
    h.state.answer = () => ({ action: 'accept' });
    const r = await m.callTool('everything', 'trigger-url-elicitation', { url: 'https://example.com/oauth?state=abc' });
    assert.ok(text(r).includes('✅ User completed the URL elicitation flow'), text(r));
    const p = h.calls.at(-1)!.params as { mode?: string; url?: string; elicitationId?: string };
    assert.equal(p.mode, 'url');
    assert.equal(p.url, 'https://example.com/oauth?state=abc');
    assert.ok(p.elicitationId);
  });

  it('-32042 → URL consent → one retry succeeds', async () => {
    verifies('ELIC-1125-URL-REQUIRED-ERROR');
    h.state.answer = () => ({ action: 'accept' });
    const before = h.calls.length;
    const r = await m.callTool('everything', 'trigger-url-elicitation', { url: 'https://example.com/pay', errorPath: true });
    assert.ok(!r.isError, text(r));
    assert.ok(text(r).includes('https://example.com/pay'), text(r));
    const urls = h.calls.slice(before).map((c) => c.params as { url?: string; mode?: string });
    assert.equal(urls[0].url, 'https://modelcontextprotocol.io', 'the -32042 elicitation came first');
    assert.equal(h.calls[before].ctx.requestId, undefined, 'a -32042 entry is not a server request');
    assert.equal(urls[1].url, 'https://example.com/pay', 'then the retried call elicited');
  });

  it('-32042 declined → isError result explaining it, no retry', async () => {
    verifies('ELIC-1125-URL-REQUIRED-ERROR');
    h.state.answer = () => ({ action: 'decline' });
    const before = h.calls.length;
    const r = await m.callTool('everything', 'trigger-url-elicitation', { url: 'https://example.com/pay', errorPath: true });
    assert.equal(r.isError, true);
    assert.match(text(r), /-32042.*https:\/\/modelcontextprotocol\.io \(decline\)/s);
    assert.equal(h.calls.length - before, 1);
  });

  it('roots/list goes to handlers.listRoots', async () => {
    verifies('ROOTS-CLIENT-CAPABILITY');
    const r = await m.callTool('everything', 'get-roots-list', {});
    assert.ok(text(r).includes(ROOT.uri), text(r));
    assert.ok(h.rootsCalls.length >= 1);
    assert.equal(h.rootsCalls[0].era, 'legacy');
  });

  it('sendRootsListChanged makes a legacy server re-fetch roots', async () => {
    verifies('ROOTS-CLIENT-LIST-CHANGED');
    const n = h.rootsCalls.length;
    assert.equal(await m.sendRootsListChanged('everything'), true);
    await waitUntil(() => h.rootsCalls.length > n);
    assert.ok(h.rootsCalls.length > n, 'roots/list asked again');
  });

  it('only file:// roots reach the server, whatever the broker returns', async () => {
    verifies('ROOTS-URI-FILE');
    // A new file:// root beside an https one. server-everything (SDK v1) rejects a whole roots list that
    // holds a non-file URI and keeps its old list, so the new root showing up proves the https one was
    // dropped before the wire (checking only the old root could not fail).
    const second = { uri: 'file:///tmp/parley-test-root-2', name: 'second' };
    h.state.roots = [second, { uri: 'https://example.com/repo', name: 'web' }];
    const n = h.rootsCalls.length; // counted first: the re-fetch may come before sendRootsListChanged resolves
    await m.sendRootsListChanged('everything');
    await waitUntil(() => h.rootsCalls.length > n);
    assert.ok(h.rootsCalls.length > n, 'the server re-fetched the roots');
    // The answer reaches the server's roots store asynchronously: poll the tool (bounded).
    const listed = await pollUntil(
      async () => text(await m.callTool('everything', 'get-roots-list', {})),
      (t) => t.includes(second.uri),
    );
    assert.ok(listed.includes(second.uri), listed);
    assert.ok(!listed.includes('example.com/repo'), listed);
  });

  it('passes resources and prompts through (lists cached, reads not)', async () => {
    const { resources } = await m.listResources('everything');
    assert.ok(resources.length > 0);
    assert.equal(await m.listResources('everything').then((r) => r.resources), resources, 'cached');
    const read = await m.readResource('everything', resources[0].uri);
    assert.equal(read.contents[0].uri, resources[0].uri);
    const { resourceTemplates } = await m.listResourceTemplates('everything');
    assert.ok(Array.isArray(resourceTemplates));
    const { prompts } = await m.listPrompts('everything');
    const simple = prompts.find((p) => !(p.arguments ?? []).some((a) => a.required));
    assert.ok(simple, 'a prompt without required arguments');
    const got = await m.getPrompt('everything', simple.name);
    assert.ok(got.messages.length > 0);
  });

  it('server log messages arrive as log events', () => {
    assert.ok(
      logs.some((d) => String(d).includes('Roots updated')),
      JSON.stringify(logs),
    );
  });
});
