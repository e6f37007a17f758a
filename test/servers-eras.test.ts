// Era negotiation and handler routing against an SDK v2 dual-era server, an SDK v1 1.32.2 server,
// and server-everything over Streamable HTTP.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServerManager } from '../src/host/servers/index.js';
import type { HttpServerDef } from '../src/host/config/types.js';
import { fixture, scriptedHandlers, text, ROOT, clientInfo, fastStop } from './fixtures/servers-host/helpers.js';
import { startEverythingHttp } from './helpers/peers.js';
import type { HttpPeer } from './helpers/peers.js';
import { verifies } from './helpers/verifies.js';

describe('SDK v2 dual-era stdio server (serveStdio)', () => {
  const h = scriptedHandlers((p) => ({ action: 'accept', content: { name: 'ada' } }));
  const m = new ServerManager({ v2: fixture('v2', 'v2-dual.mjs') }, { handlers: h.handlers, clientInfo, stop: fastStop });
  after(() => m.stopAll());

  it('gets the modern verdict (2026-07-28) and answers MRTR inputRequests through the same handlers', async () => {
    verifies('ERA-DUAL-MODERN');
    verifies('MRTR-INPUT-REQUESTS-SHAPE');
    const r = await m.callTool('v2', 'ask', {});
    assert.equal(m.info('v2')?.era, 'modern');
    assert.equal(m.info('v2')?.negotiatedRevision, '2026-07-28');
    assert.equal(text(r), 'hello ada');
    assert.equal(h.calls.length, 1);
    assert.equal(h.calls[0].ctx.era, 'modern');
    assert.equal(h.calls[0].ctx.requestId, undefined, 'no JSON-RPC request id on the modern era');
    assert.equal((h.calls[0].params as { message?: string }).message, 'Your name?');
  });

  it('answers an MRTR roots inputRequest through handlers.listRoots', async () => {
    verifies('ROOTS-2607-INPUT-REQUEST');
    const r = await m.callTool('v2', 'roots', {});
    assert.ok(text(r).includes(ROOT.uri), text(r));
    assert.equal(h.rootsCalls.at(-1)?.era, 'modern');
  });

  it('a decline reaches the server as a decline', async () => {
    h.state.answer = () => ({ action: 'decline' });
    assert.equal(text(await m.callTool('v2', 'ask', {})), 'no name (decline)');
  });

  it('sendRootsListChanged is a no-op on the modern era', async () => {
    assert.equal(await m.sendRootsListChanged('v2'), false);
  });
});

describe('SDK v1 1.32.2 stdio server', () => {
  const h = scriptedHandlers(() => ({ action: 'accept', content: { name: 'grace' } }));
  const m = new ServerManager({ v1: fixture('v1', 'v1-push.mjs') }, { handlers: h.handlers, clientInfo, stop: fastStop });
  after(() => m.stopAll());

  it('falls back to the legacy era and answers a pushed elicitation/create', async () => {
    verifies('ERA-DUAL-FALLBACK');
    const r = await m.callTool('v1', 'ask', {});
    assert.equal(m.info('v1')?.era, 'legacy');
    assert.equal(m.info('v1')?.negotiatedRevision, '2025-11-25');
    assert.equal(text(r), 'hello grace');
    assert.equal(h.calls[0].ctx.era, 'legacy');
    assert.equal(typeof h.calls[0].ctx.requestId, 'number');
  });
});

const httpDef = (name: string, type: 'http' | 'sse', url: string): HttpServerDef => ({
  name,
  type,
  url,
  headers: {},
  origin: { file: '<test>', pointer: `/servers/${name}` },
});

// server-everything's HTTP modes call app.listen(PORT) without a host, so they bind all interfaces
// (peers-and-tests.md §ii.1). Acceptable for a short-lived test peer; we only ever connect to 127.0.0.1.
describe('server-everything over Streamable HTTP', () => {
  const h = scriptedHandlers(() => ({ action: 'accept', content: { name: 'Linus' } }));
  let peer: HttpPeer | undefined;
  let m: ServerManager | undefined;
  after(async () => {
    await m?.stopAll();
    await peer?.stop();
  });

  it('connects (legacy era) and routes a pushed elicitation to the handler', async () => {
    peer = await startEverythingHttp('streamableHttp');
    m = new ServerManager({ http: httpDef('http', 'http', peer.url) }, { handlers: h.handlers, clientInfo, stop: fastStop });
    const r = await m.callTool('http', 'trigger-elicitation-request', {});
    assert.equal(m.info('http')?.transport, 'streamable-http');
    assert.equal(m.info('http')?.era, 'legacy');
    assert.ok(text(r).includes('✅ User provided the requested information!'), text(r));
    assert.ok(text(r).includes('Linus'));
    assert.equal(h.calls[0].ctx.era, 'legacy');
  });
});

describe('server-everything over legacy HTTP+SSE', () => {
  const h = scriptedHandlers(() => ({ action: 'decline' }));
  let peer: HttpPeer | undefined;
  let m: ServerManager | undefined;
  after(async () => {
    await m?.stopAll();
    await peer?.stop();
  });

  it("type 'http' falls back to SSE when Streamable HTTP fails; type 'sse' connects directly", async () => {
    peer = await startEverythingHttp('sse');
    const url = peer.url;
    m = new ServerManager(
      { viaHttp: httpDef('viaHttp', 'http', url), direct: httpDef('direct', 'sse', url) },
      { handlers: h.handlers, clientInfo, stop: fastStop },
    );
    const r = await m.callTool('viaHttp', 'trigger-elicitation-request', {});
    assert.equal(m.info('viaHttp')?.transport, 'sse');
    assert.equal(m.info('viaHttp')?.era, 'legacy');
    assert.ok(text(r).includes('❌ User declined'), text(r));
    assert.equal(text(await m.callTool('direct', 'get-sum', { a: 1, b: 2 })), 'The sum of 1 and 2 is 3.');
    assert.equal(m.info('direct')?.transport, 'sse');
  });
});
