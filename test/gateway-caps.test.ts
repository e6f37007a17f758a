// Gateway bounds (issue 12, item 15): a per-user cap on open 2025-era HTTP sessions (HTTP 429 naming
// gateway.maxSessionsPerUser) and on elicitations waiting for one user's client (the tool result names
// gateway.maxPendingPerUser), both per user; idle legacy sessions close after gateway.sessionIdleMs.
// Real SDK v2 clients over HTTP on 127.0.0.1, real downstream servers over stdio.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway, hashToken } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { openSqliteStore } from '../src/host/store/index.js';
import type { Store } from '../src/host/index.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { waitUntil } from './helpers/wait.js';

const TOKENS = { alice: 'pt_alice-caps', bob: 'pt_bob-caps' };

describe('gateway caps per user', () => {
  let gw: Gateway;
  let url: string;
  let dir: string;
  let store: Store;
  let stop: () => Promise<void>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-gw-caps-'));
    store = openSqliteStore(join(dir, 'g.db'));
    const config = gatewayConfig({ v1: fixture('v1', 'v1-push.mjs'), v2: fixture('v2', 'v2-dual.mjs') });
    config.gateway = {
      users: { alice: { tokenSha256: hashToken(TOKENS.alice) }, bob: { tokenSha256: hashToken(TOKENS.bob) } },
      maxSessionsPerUser: 2,
      maxPendingPerUser: 1,
      sessionIdleMs: 1500,
    };
    gw = createGateway(config, { store });
    ({ url, stop } = await serveGateway(gw, {}, () => (store.close(), rmSync(dir, { recursive: true, force: true }))));
    await Promise.all([gw.space('alice').host.start(), gw.space('bob').host.start()]);
  });
  after(() => stop());

  const transport = (user: keyof typeof TOKENS) =>
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS[user]}` } } });

  it('open 2025-era sessions: the third of alice is refused with 429 naming the setting; bob is not affected; DELETE frees one', async () => {
    const answer = (async () => ({ action: 'cancel' })) as never;
    const a1 = v2Client(answer);
    const a2 = v2Client(answer);
    const a3 = v2Client(answer);
    const b1 = v2Client(answer);
    const t1 = transport('alice');
    try {
      await a1.connect(t1);
      await a2.connect(transport('alice'));
      await assert.rejects(
        a3.connect(transport('alice')),
        (e: Error) => /gateway\.maxSessionsPerUser/.test(e.message) && /the cap is 2/.test(e.message),
      );
      const init = {
        jsonrpc: '2.0',
        id: 7,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      };
      const raw = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKENS.alice}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(init),
      });
      assert.equal(raw.status, 429);
      const body = (await raw.json()) as { id: number; error: { message: string } };
      assert.equal(body.id, 7);
      assert.match(body.error.message, /too many open MCP sessions for user "alice"/);
      await b1.connect(transport('bob'));
      await b1.listTools();
      await t1.terminateSession();
      await a1.close();
      const a4 = v2Client(answer);
      await a4.connect(transport('alice'));
      await a4.close();
    } finally {
      for (const c of [a1, a2, a3, b1]) await c.close().catch(() => undefined);
    }
  });

  it('an idle 2025-era session closes after gateway.sessionIdleMs, which frees its place', async () => {
    await waitUntil(() => gw.stats().sessions === 0, { ms: 10_000 });
    const c = v2Client((async () => ({ action: 'cancel' })) as never);
    await c.connect(transport('alice'));
    await c.listTools();
    await c.close(); // no DELETE: the gateway is never told
    assert.ok(await waitUntil(() => gw.stats().sessions === 0, { ms: 15_000 }), `sessions left: ${gw.stats().sessions}`);
  });

  for (const [label, mode] of [
    ['2025-11-25', undefined],
    ['2026-07-28', 'auto'],
  ] as const) {
    it(`${label}: a second elicitation waiting for alice over gateway.maxPendingPerUser fails with a clear error; bob's goes through`, async () => {
      assert.ok(await waitUntil(() => gw.stats().sessions === 0, { ms: 15_000 }), 'the earlier sessions have gone idle and closed');
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let arrived!: () => void;
      const first = new Promise<void>((r) => (arrived = r));
      const hold = v2Client(
        (async () => (arrived(), await released, { action: 'accept', content: { name: 'held' } })) as never,
        mode ? { mode } : {},
      );
      const other = v2Client((async () => ({ action: 'accept', content: { name: 'second' } })) as never, mode ? { mode } : {});
      const bob = v2Client((async () => ({ action: 'accept', content: { name: 'bob' } })) as never, mode ? { mode } : {});
      await hold.connect(transport('alice'));
      await other.connect(transport('alice'));
      await bob.connect(transport('bob'));
      try {
        const held = hold.callTool({ name: 'v1__ask', arguments: {} });
        await first;
        const over = await other.callTool({ name: 'v2__ask', arguments: {} });
        assert.equal(over.isError, true, text(over));
        assert.match(text(over), /user "alice" already has 1 elicitations waiting.*gateway\.maxPendingPerUser/);
        assert.equal(text(await bob.callTool({ name: 'v1__ask', arguments: {} })), 'hello bob');
        release();
        assert.equal(text(await held), 'hello held');
        // The place is free again.
        assert.equal(text(await other.callTool({ name: 'v2__ask', arguments: {} })), 'hello second');
      } finally {
        release();
        for (const c of [hold, other, bob]) await c.close().catch(() => undefined);
      }
    });
  }
});
