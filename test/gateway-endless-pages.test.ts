// A server whose tools/list pagination never ends (every page names a next cursor): the SDK client's walk
// stops at listMaxPages (64 pages, each at most 16 MiB: MAX_STDIO_MESSAGE_BYTES), that server is left out
// of the gateway's list with a log line naming the cap, and the other servers' tools are listed. Real
// peers: raw-lines.mjs --endless-pages (hand-written: an SDK server ends its pages) and an SDK v2 server,
// behind the gateway, with a real SDK v2 client over HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway, DEFAULT_USER } from '../src/gateway/index.js';
import { fixture, text } from './fixtures/servers-host/helpers.js';
import { v2Client } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { bounded } from './helpers/wait.js';

test('endless tools/list pages: at most 64 pages are read, that server is left out, the others are listed', {
  timeout: 60_000,
}, async () => {
  const logs: string[] = [];
  const gw = createGateway(
    gatewayConfig({ raw: fixture('raw', 'raw-lines.mjs', ['2025-11-25', '--endless-pages']), v2: fixture('v2', 'v2-dual.mjs') }),
    { log: (_level, message) => logs.push(message) },
  );
  const { url, stop } = await serveGateway(gw);
  const c = v2Client(async () => ({ action: 'cancel' }));
  try {
    await c.connect(new StreamableHTTPClientTransport(new URL(url)));
    const r = await bounded(c.listTools(), 30_000, 'tools/list');
    assert.deepEqual(r.tools.map((t) => t.name).sort(), ['v2__ask', 'v2__roots']);
    assert.ok(
      logs.some((l) => /tools of server "raw" left out: tools\/list: exceeded listMaxPages \(64\)/.test(l)),
      logs.join('\n'),
    );
    const pages = Number(text(await gw.space(DEFAULT_USER).host.callTool('raw', 'pages', {})));
    assert.ok(pages >= 64 && pages <= 64 * 3, `${pages} pages asked for`);
  } finally {
    await c.close();
    await stop();
  }
});
