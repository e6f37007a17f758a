// Upstream roots are capped per user (MAX_UPSTREAM_ROOTS, src/gateway/roots.ts). Each root added to a
// host recomputes every server's list and the health watcher's set, so one client listing 20 000 roots
// froze the whole gateway (every user and tenant) for minutes. Real SDK v2 clients over HTTP (2025-11-25):
// one lists 3 000 roots; the host takes 256, the rest are left out and logged, another user's call is
// answered at once, and a replaced list gets the room the old one frees.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway, hashToken } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { MAX_UPSTREAM_ROOTS } from '../src/gateway/roots.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { bounded } from './helpers/wait.js';

const TOKENS = { alice: 'pt_alice-roots-cap', bob: 'pt_bob-roots-cap' };

describe('gateway: upstream roots per user are capped', () => {
  let gw: Gateway;
  let url: string;
  let stop: () => Promise<void>;
  const logs: string[] = [];
  before(async () => {
    const config = gatewayConfig({ v2: fixture('v2', 'v2-dual.mjs') });
    config.gateway = { users: { alice: { tokenSha256: hashToken(TOKENS.alice) }, bob: { tokenSha256: hashToken(TOKENS.bob) } } };
    gw = createGateway(config, { log: (_l, m) => logs.push(m) });
    ({ url, stop } = await serveGateway(gw));
  });
  after(() => stop());

  async function connect(user: keyof typeof TOKENS, roots: () => Array<{ uri: string }>) {
    const c = new Client({ name: user, version: '1' }, { capabilities: { roots: { listChanged: true } } });
    c.setRequestHandler('roots/list', async () => ({ roots: roots() }));
    await c.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS[user]}` } } }),
    );
    return c;
  }
  const upstream = (user: string) => gw.space(user).host.listRoots({ source: 'upstream' }).length;

  it(`a client listing 3 000 roots gets ${MAX_UPSTREAM_ROOTS}; the rest are logged, other users are not held up`, {
    timeout: 120_000,
  }, async () => {
    assert.equal(MAX_UPSTREAM_ROOTS, 256);
    let list = Array.from({ length: 3000 }, (_, i) => ({ uri: `file:///tmp/parley-roots-cap/a${i}` }));
    const alice = await connect('alice', () => list);
    const bob = await connect('bob', () => [{ uri: 'file:///tmp/parley-roots-cap/bob' }]);
    try {
      await bounded(alice.listTools(), 30_000, 'alice tools/list (reads her roots)');
      assert.equal(upstream('alice'), MAX_UPSTREAM_ROOTS);
      assert.ok(
        logs.some((m) => /listed 2744 roots over the cap of 256 per user \(MAX_UPSTREAM_ROOTS\)/.test(m)),
        logs.join('\n'),
      );
      const t0 = Date.now();
      await bounded(bob.listTools(), 10_000, 'bob tools/list');
      assert.ok(Date.now() - t0 < 5_000, `bob answered in ${Date.now() - t0} ms`);
      assert.equal(upstream('bob'), 1, "bob's own root is his");
      // A new list replaces the old one: the roots it no longer names make room for the new ones.
      list = Array.from({ length: 10 }, (_, i) => ({ uri: `file:///tmp/parley-roots-cap/b${i}` }));
      await alice.sendRootsListChanged();
      const t1 = Date.now();
      while (gw.space('alice').host.getRoot('file:///tmp/parley-roots-cap/b9') === undefined && Date.now() - t1 < 20_000)
        await new Promise((r) => setTimeout(r, 50));
      assert.equal(upstream('alice'), 10);
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });
});
