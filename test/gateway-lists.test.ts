// The gateway propagates a downstream server's tools/list_changed to 2025-era upstream sessions, and
// the next tools/list (any era) shows the new tool under its namespaced name.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { text } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { watchGetStream } from './helpers/peers.js';
import { bounded } from './helpers/wait.js';
import { verifies } from './helpers/verifies.js';

let gw: Gateway;
let url: string;
let stop: () => Promise<void>;
before(async () => {
  gw = createGateway(gatewayConfig({ grow: fixture('grow', 'v1-grow.mjs') }));
  ({ url, stop } = await serveGateway(gw));
});
after(() => stop());

it('downstream tools/list_changed reaches the upstream session; the new tool is listed and callable', async () => {
  let notified!: () => void;
  const changed = new Promise<void>((r) => (notified = r));
  const c = new Client({ name: 'ide', version: '1' });
  c.setNotificationHandler('notifications/tools/list_changed', () => notified());
  // The notification travels on the session's GET stream, which the client opens in the background
  // after connect(): one sent before the gateway has that stream is lost, so the calls wait for it.
  const get = watchGetStream();
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: get.fetch });
  await c.connect(transport);
  try {
    await bounded(get.opened, 15_000, 'the GET stream');
    assert.deepEqual((await c.listTools()).tools.map((t) => t.name).sort(), ['grow__grow', 'grow__lists']);
    assert.equal(text(await c.callTool({ name: 'grow__grow', arguments: {} })), 'added extra1');
    await bounded(changed, 15_000, 'tools/list_changed');
    assert.deepEqual((await c.listTools()).tools.map((t) => t.name).sort(), ['grow__extra1', 'grow__grow', 'grow__lists']);
    assert.equal(text(await c.callTool({ name: 'grow__extra1', arguments: {} })), 'extra1');
  } finally {
    await transport.terminateSession();
    await c.close();
  }
});

it('a tool registered before its list_changed arrives is still callable by name (one fresh list on a miss)', async () => {
  const c = new Client({ name: 'ide', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await c.connect(transport);
  try {
    const before = (await c.listTools()).tools.map((t) => t.name);
    const added = text(await c.callTool({ name: 'grow__grow', arguments: { quiet: true } })).replace('added ', '');
    assert.ok(!before.includes(`grow__${added}`), `${added} is new`);
    const r = await c.callTool({ name: `grow__${added}`, arguments: {} });
    assert.equal(text(r), added, JSON.stringify(r));
    const miss = await c.callTool({ name: 'grow__nothing_here', arguments: {} }).then(
      (x) => JSON.stringify(x),
      (e: Error) => e.message,
    );
    assert.match(miss, /grow__nothing_here/, 'an unknown name is still refused, naming it');
  } finally {
    await transport.terminateSession();
    await c.close();
  }
});

it("2026-07-28 upstream: a downstream tools/list_changed reaches the client's subscriptions/listen stream", async () => {
  let notified!: () => void;
  const changed = new Promise<void>((r) => (notified = r));
  const c = new Client({ name: 'ide-2607', version: '1' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
  c.setNotificationHandler('notifications/tools/list_changed', () => notified());
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    assert.equal(c.getProtocolEra(), 'modern', 'the client speaks 2026-07-28');
    const sub = await c.listen({ toolsListChanged: true });
    assert.deepEqual(sub.honoredFilter, { toolsListChanged: true }, 'the gateway honours tools list changes');
    const before = (await c.listTools()).tools.map((t) => t.name);
    const added = text(await c.callTool({ name: 'grow__grow', arguments: {} })).replace('added ', '');
    verifies('LIST-2607-LISTEN-DELIVERY');
    await Promise.race([
      changed,
      new Promise((_r, j) => setTimeout(() => j(new Error('no tools/list_changed on the listen stream within 15 s')), 15_000).unref()),
    ]);
    const after = (await c.listTools()).tools.map((t) => t.name);
    assert.ok(
      !before.includes(`grow__${added}`) && after.includes(`grow__${added}`),
      `${added} listed after the notification: ${after.join(', ')}`,
    );
  } finally {
    await c.close();
  }
});

it('unknown names share one fresh downstream list: twenty concurrent misses list the server at most once', async () => {
  const c = new Client({ name: 'ide-misses', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await c.connect(transport);
  try {
    await c.listTools();
    await new Promise((r) => setTimeout(r, 1_100)); // past FRESH_LIST_MIN_MS since any earlier miss
    const before = Number(text(await c.callTool({ name: 'grow__lists', arguments: {} })));
    const misses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        c.callTool({ name: `grow__missing_${i}`, arguments: {} }).then(
          (x) => JSON.stringify(x),
          (e: Error) => e.message,
        ),
      ),
    );
    for (const [i, m] of misses.entries()) assert.match(m, new RegExp(`grow__missing_${i}`), 'each unknown name is refused, naming it');
    const after = Number(text(await c.callTool({ name: 'grow__lists', arguments: {} })));
    assert.ok(after - before <= 1, `downstream tools/list requests for 20 misses: ${after - before}`);
  } finally {
    await transport.terminateSession();
    await c.close();
  }
});
