// Era negotiation and handler routing against an SDK v2 dual-era server, an SDK v1 1.32.2 server,
// and server-everything over Streamable HTTP.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { ServerManager } from '../src/host/servers/index.js';
import type { HttpServerDef } from '../src/host/config/types.js';
import { EVERYTHING, fixture, scriptedHandlers, text, ROOT, clientInfo, fastStop, sleep } from './fixtures/servers-host/helpers.js';

describe('SDK v2 dual-era stdio server (serveStdio)', () => {
  const h = scriptedHandlers((p) => ({ action: 'accept', content: { name: 'ada' } }));
  const m = new ServerManager({ v2: fixture('v2', 'v2-dual.mjs') }, { handlers: h.handlers, clientInfo, stop: fastStop });
  after(() => m.stopAll());

  it('gets the modern verdict (2026-07-28) and answers MRTR inputRequests through the same handlers', async () => {
    // req: ERA-DUAL-MODERN
    // req: MRTR-INPUT-REQUESTS-SHAPE
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
    // req: ROOTS-2607-INPUT-REQUEST
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
    // req: ERA-DUAL-FALLBACK
    const r = await m.callTool('v1', 'ask', {});
    assert.equal(m.info('v1')?.era, 'legacy');
    assert.equal(m.info('v1')?.negotiatedRevision, '2025-11-25');
    assert.equal(text(r), 'hello grace');
    assert.equal(h.calls[0].ctx.era, 'legacy');
    assert.equal(typeof h.calls[0].ctx.requestId, 'number');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Starts server-everything in an HTTP mode on a free port; resolves once it accepts connections. */
async function spawnEverythingHttp(mode: 'streamableHttp' | 'sse', probePath: string) {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, mode], { env: { ...process.env, PORT: String(port) }, stdio: 'ignore' });
  let up = false;
  for (let i = 0; i < 200 && !up; i++) {
    up = await fetch(`http://127.0.0.1:${port}${probePath}`, { method: 'HEAD' }).then(() => true, () => false);
    if (!up) await sleep(50);
  }
  assert.ok(up, `server-everything ${mode} came up within 10 s`);
  return { port, child };
}

const httpDef = (name: string, type: 'http' | 'sse', url: string): HttpServerDef => ({ name, type, url, headers: {}, origin: { file: '<test>', pointer: `/servers/${name}` } });

// server-everything's HTTP modes call app.listen(PORT) without a host, so they bind all interfaces
// (peers-and-tests.md §ii.1). Acceptable for a short-lived test peer; we only ever connect to 127.0.0.1.
describe('server-everything over Streamable HTTP', () => {
  const h = scriptedHandlers(() => ({ action: 'accept', content: { name: 'Linus' } }));
  let child: ReturnType<typeof spawn> | undefined;
  let m: ServerManager | undefined;
  after(async () => {
    await m?.stopAll();
    child?.kill('SIGKILL');
  });

  it('connects (legacy era) and routes a pushed elicitation to the handler', async () => {
    const srv = await spawnEverythingHttp('streamableHttp', '/mcp');
    child = srv.child;
    m = new ServerManager({ http: httpDef('http', 'http', `http://127.0.0.1:${srv.port}/mcp`) }, { handlers: h.handlers, clientInfo, stop: fastStop });
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
  let child: ReturnType<typeof spawn> | undefined;
  let m: ServerManager | undefined;
  after(async () => {
    await m?.stopAll();
    child?.kill('SIGKILL');
  });

  it("type 'http' falls back to SSE when Streamable HTTP fails; type 'sse' connects directly", async () => {
    const srv = await spawnEverythingHttp('sse', '/message');
    child = srv.child;
    const url = `http://127.0.0.1:${srv.port}/sse`;
    m = new ServerManager({ viaHttp: httpDef('viaHttp', 'http', url), direct: httpDef('direct', 'sse', url) }, { handlers: h.handlers, clientInfo, stop: fastStop });
    const r = await m.callTool('viaHttp', 'trigger-elicitation-request', {});
    assert.equal(m.info('viaHttp')?.transport, 'sse');
    assert.equal(m.info('viaHttp')?.era, 'legacy');
    assert.ok(text(r).includes('❌ User declined'), text(r));
    assert.equal(text(await m.callTool('direct', 'get-sum', { a: 1, b: 2 })), 'The sum of 1 and 2 is 3.');
    assert.equal(m.info('direct')?.transport, 'sse');
  });
});
