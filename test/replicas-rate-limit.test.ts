// The broker's rate limit across replicas (issue 13 item 7, docs/scaling.md): two `parley serve --http`
// replicas (built dist/) on one private PostgreSQL count one token bucket per (tenant, user, server) in
// the store, so a user gets `burst` elicitations in all, not `burst` per replica. Overlapping calls from
// 2025-11-25 push sessions and 2026-07-28 MRTR clients, half on each replica; another user and the same
// user name in another tenant keep their own buckets.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { text } from './fixtures/toolkit/peers.js';
import { clusterSkipReason, startCluster, TOKENS } from './helpers/replicas.js';
import type { Cluster } from './helpers/replicas.js';
import { pgSkipReason } from './helpers/postgres.js';

const BURST = 4;

/** An SDK v2 client of `era` for identity `id` at `url`, answering every elicitation with `answer`. */
async function client(id: string, url: string, era: 'legacy' | 'modern', answer: string) {
  const c = new Client({ name: `rl-${era}`, version: '1' }, {
    capabilities: { elicitation: { form: {} } },
    ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {}),
  } as never);
  c.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: answer } }) as never);
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS[id]}` } } }));
  return { call: () => c.callTool({ name: 'v2__ask', arguments: {} }, { timeout: 60_000 } as never).then(text), close: () => c.close() };
}

describe('rate limits counted in the shared store across two replicas', { skip: clusterSkipReason }, () => {
  let c: Cluster | undefined;
  before(async () => {
    // One token a minute after the burst: none refills while the test runs.
    if (!clusterSkipReason) c = await startCluster({ replicas: 2, policy: { burst: BURST, ratePerMinute: 1 } });
  });
  after(() => c?.stop());

  it(`overlapping calls of one user on both replicas and both eras: exactly ${BURST} elicitations pass in all`, async (t) => {
    if (!c) return t.skip(pgSkipReason);
    const [r0, r1] = c.replicas.map((r) => r.url);
    const clients = await Promise.all([
      client('acme/alice', r0, 'legacy', 'push-0'),
      client('acme/alice', r1, 'legacy', 'push-1'),
      client('acme/alice', r0, 'modern', 'mrtr-0'),
      client('acme/alice', r1, 'modern', 'mrtr-1'),
    ]);
    try {
      const got = await Promise.all(clients.flatMap((k) => [k.call(), k.call(), k.call()]));
      const answered = got.filter((g) => g.startsWith('hello '));
      const declined = got.filter((g) => g === 'no name (decline)');
      assert.equal(answered.length, BURST, `answered ${answered.length} of 12: ${got.join(' | ')}`);
      assert.equal(declined.length, 12 - BURST, got.join(' | '));
      // Later calls on either replica: still declined (the bucket is the user's, not the replica's).
      for (const k of [clients[1], clients[2]]) assert.equal(await k.call(), 'no name (decline)');
      // Another user of the tenant, and the same user name in another tenant: their own buckets.
      for (const [id, url] of [
        ['acme/bob', r1],
        ['globex/alice', r0],
      ] as const) {
        const other = await client(id, url, 'legacy', id);
        try {
          assert.equal(await other.call(), `hello ${id}`);
        } finally {
          await other.close();
        }
      }
    } finally {
      await Promise.all(clients.map((k) => k.close()));
    }
  });
});
