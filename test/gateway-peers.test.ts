// The gateway in front of the real reference servers (issue 6): server-everything's form and URL-mode
// elicitation bridged to upstream clients of both eras (accept, decline, cancel; URL consent and the
// -32042 path), and an upstream client's roots flowing through to server-filesystem.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { everything, stdioDef } from './fixtures/servers-host/helpers.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';

const FILESYSTEM = new URL('../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url).pathname;

describe('gateway ↔ server-everything (2025-11-25 downstream)', () => {
  let gw: Gateway;
  let url: string;
  let stop: () => Promise<void>;
  before(async () => {
    gw = createGateway(gatewayConfig({ everything: everything() }));
    ({ url, stop } = await serveGateway(gw));
  });
  after(() => stop());

  for (const mode of [undefined, 'auto'] as const) {
    const label = mode ? '2026-07-28 client' : '2025-11-25 client';
    it(`${label}: the 13-field form, accept / decline / cancel`, async () => {
      let next: Record<string, unknown> = {};
      const c = v2Client((async () => next) as never, mode ? { mode } : {});
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        next = { action: 'accept', content: { name: 'Ada', check: true } };
        const ok = await c.callTool({ name: 'everything__trigger-elicitation-request', arguments: {} });
        assert.match(text(ok), /Ada/, text(ok));
        next = { action: 'decline' };
        assert.match(text(await c.callTool({ name: 'everything__trigger-elicitation-request', arguments: {} })), /decline/i);
        next = { action: 'cancel' };
        assert.match(text(await c.callTool({ name: 'everything__trigger-elicitation-request', arguments: {} })), /cancel/i);
      } finally {
        await c.close();
      }
    });

    it(`${label}: URL mode reaches the client as a URL elicitation with the full URL`, async () => {
      const seen: Array<{ mode?: string; url?: string; message?: string }> = [];
      const c = v2Client(
        (async (r: { params: { mode?: string; url?: string; message?: string } }) => (seen.push(r.params), { action: 'accept' })) as never,
        mode ? { mode } : {},
      );
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        // req: ELIC-1125-URL-CONSENT
        const r = await c.callTool({
          name: 'everything__trigger-url-elicitation',
          arguments: { url: 'https://example.com/oauth?state=abc' },
        });
        assert.ok(text(r).includes('User completed the URL elicitation flow'), text(r));
        assert.equal(seen.at(-1)?.mode, 'url');
        assert.equal(seen.at(-1)?.url, 'https://example.com/oauth?state=abc');
        assert.match(seen.at(-1)?.message ?? '', /^\[everything\] /);
        // -32042 from downstream: consent goes upstream, then the gateway retries once.
        const viaError = await c.callTool({
          name: 'everything__trigger-url-elicitation',
          arguments: { url: 'https://example.com/pay', errorPath: true },
        });
        assert.notEqual(viaError.isError, true, text(viaError));
        assert.equal(seen.at(-1)?.url, 'https://example.com/pay');
      } finally {
        await c.close();
      }
    });
  }

  it('a client that declared form mode only gets no URL prompt: the consent is refused, not faked', async () => {
    const seen: unknown[] = [];
    const c = v2Client((async (r: unknown) => (seen.push(r), { action: 'accept' })) as never, { caps: { elicitation: { form: {} } } });
    await c.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const r = await c.callTool({ name: 'everything__trigger-url-elicitation', arguments: { url: 'https://example.com/oauth' } });
      assert.equal(seen.length, 0, 'nothing was pushed in a mode the client did not declare');
      assert.match(text(r), /parley: .*the client did not declare url-mode elicitation/, text(r));
    } finally {
      await c.close();
    }
  });
});

describe("gateway: the upstream client's roots reach server-filesystem", () => {
  let dir: string;
  let gw: Gateway;
  let url: string;
  let stop: () => Promise<void>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-gw-roots-'));
    mkdirSync(join(dir, 'ws'));
    writeFileSync(join(dir, 'ws', 'hello.txt'), 'hi from the client workspace');
    gw = createGateway(gatewayConfig({ fs: stdioDef('fs', [FILESYSTEM]) }));
    ({ url, stop } = await serveGateway(gw, {}, () => rmSync(dir, { recursive: true, force: true })));
  });
  after(() => stop());

  it('roots/list of a 2025-era client become the host roots server-filesystem sees; they leave with the session', async () => {
    const ws = pathToFileURL(join(dir, 'ws')).href;
    const c = new Client({ name: 'ide', version: '1' }, { capabilities: { roots: { listChanged: true } } });
    c.setRequestHandler('roots/list', async () => ({ roots: [{ uri: ws, name: 'ws' }] }));
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await c.connect(transport);
    try {
      const until = Date.now() + 30_000; // roots apply asynchronously; bounded
      let allowed = '';
      while (Date.now() < until) {
        allowed = text(await c.callTool({ name: 'fs__list_allowed_directories', arguments: {} }));
        if (allowed.includes(join(dir, 'ws'))) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(allowed.includes(join(dir, 'ws')), allowed);
      assert.match(
        text(await c.callTool({ name: 'fs__read_text_file', arguments: { path: join(dir, 'ws', 'hello.txt') } })),
        /hi from the client workspace/,
      );
      assert.equal(gw.space('default').host.getRoot(ws)?.source, 'upstream');
    } finally {
      await transport.terminateSession(); // HTTP DELETE: the session ends
      await c.close();
    }
    const until = Date.now() + 10_000;
    while (gw.space('default').host.getRoot(ws) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.equal(gw.space('default').host.getRoot(ws), undefined, 'the session closed: its roots are gone');
  });
});

describe('gateway: a 2025-era HTTP session that vanishes without DELETE', () => {
  it('is closed after sessionIdleMs: its roots leave the host and it no longer counts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-gw-idle-'));
    const gw = createGateway(gatewayConfig({ fs: stdioDef('fs', [FILESYSTEM]) }));
    // 1 s: short enough to see the sweep, long enough that no pause between initialize and the next
    // request on a loaded machine sweeps the session before the test looks at it.
    const h = await gw.serve({ http: { sessionIdleMs: 1000 } });
    try {
      const ws = pathToFileURL(dir).href;
      const c = new Client({ name: 'ide', version: '1' }, { capabilities: { roots: { listChanged: true } } });
      c.setRequestHandler('roots/list', async () => ({ roots: [{ uri: ws }] }));
      await c.connect(new StreamableHTTPClientTransport(new URL(h.url)));
      await c.listTools();
      assert.equal(gw.space('default').host.getRoot(ws)?.source, 'upstream');
      assert.equal(gw.stats().sessions, 1);
      await c.close(); // no terminateSession(): the server is never told
      const until = Date.now() + 10_000;
      while ((gw.stats().sessions > 0 || gw.space('default').host.getRoot(ws)) && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
      assert.equal(gw.stats().sessions, 0);
      assert.equal(gw.space('default').host.getRoot(ws), undefined);
    } finally {
      await h.close();
      await gw.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
