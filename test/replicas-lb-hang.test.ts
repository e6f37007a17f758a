// A request sent through the balancer straight to a replica that hangs (SIGSTOP: the kernel still
// accepts its connections, nothing answers). docs/scaling.md §When a replica dies or hangs: with the
// HAProxy configuration shown there (test/helpers/replicas.ts haproxyConfig), the health check marks the
// replica down within fall × (inter + timeout check) = 3 × (500 ms + 2 s) = 7.5 s and
// `on-marked-down shutdown-sessions` ends what was sent to it: the client gets an error (HTTP 502, or
// the connection closed), not silence until its own timeout; later requests go to the live replicas.
// Real HAProxy, real replicas on real PostgreSQL.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { clusterSkipReason, IDS, startCluster, TOKENS } from './helpers/replicas.js';
import type { Cluster } from './helpers/replicas.js';
import { pgSkipReason } from './helpers/postgres.js';

/** fall 3 × (inter 500 ms + timeout check 2 s), the bound docs/scaling.md states. */
const LB_HANG_BOUND_MS = 7_500;
const SLACK_MS = 2_000; // a loaded machine

const headers = { authorization: `Bearer ${TOKENS[IDS[0]]}` };

/** A 2026-07-28 SDK v2 client; each request is a new POST the balancer places round-robin. */
async function modern(url: string) {
  const m = new Client({ name: 'm', version: '1' }, { versionNegotiation: { mode: 'auto' } } as never);
  await m.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return m;
}

describe('a request the balancer sends to a hung replica', { skip: clusterSkipReason }, () => {
  let c: Cluster | undefined;
  before(async () => {
    if (!clusterSkipReason) c = await startCluster({ replicas: 3 });
  });
  after(() => c?.stop());

  it(`HAProxy ends it with an error within ${LB_HANG_BOUND_MS} ms and sends nothing more there; SIGCONT, it serves again`, async (t) => {
    if (!c) return t.skip(pgSkipReason);
    const clients = await Promise.all(Array.from({ length: 6 }, () => modern(c!.lbUrl)));
    try {
      await c.kill(1, 'SIGSTOP');
      const t0 = Date.now();
      // Six calls at once, round-robin over three replicas: about two reach the hung one.
      const outcomes = await Promise.all(
        clients.map((m) =>
          m.listTools(undefined, { timeout: 60_000 } as never).then(
            (r) => ({ ok: r.tools.length, at: Date.now() - t0 }),
            (e: Error) => ({ err: e.message, at: Date.now() - t0 }),
          ),
        ),
      );
      const failed = outcomes.filter((o): o is { err: string; at: number } => 'err' in o);
      assert.ok(failed.length >= 1, `some requests reached the hung replica: ${JSON.stringify(outcomes)}`);
      for (const o of failed) {
        assert.doesNotMatch(o.err, /timed out/i, 'an error from the balancer, not the client’s own timeout');
        assert.ok(o.at < LB_HANG_BOUND_MS + SLACK_MS, `ended within the bound (took ${o.at} ms): ${o.err}`);
      }
      for (const o of outcomes) if ('ok' in o) assert.ok(o.ok > 0);
      // Marked down: every later request is served by the live replicas, at once.
      const t1 = Date.now();
      const later = await Promise.all(clients.map((m) => m.listTools(undefined, { timeout: 10_000 } as never)));
      assert.ok(
        later.every((r) => r.tools.length > 0),
        'later requests succeed',
      );
      // One sent to the hung replica would end only at the 10 s client timeout (and reject above); the
      // live replicas' answers may take seconds on a loaded machine.
      assert.ok(Date.now() - t1 < 8_000, `later requests are not sent to the hung replica (took ${Date.now() - t1} ms)`);
    } finally {
      await c.kill(1, 'SIGCONT');
      await Promise.all(clients.map((m) => m.close().catch(() => undefined)));
    }
    // Continued, it answers the health check again and takes requests (rise 1).
    await new Promise((r) => setTimeout(r, 1_500));
    const r = await fetch(c.replicas[1].url, { method: 'GET' });
    assert.equal(r.status, 401, 'the continued replica answers');
  });
});
