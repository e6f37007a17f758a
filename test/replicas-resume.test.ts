// A 2025-era call whose stream went through a replica that dies (issue 13 item 5; docs/scaling.md §When a
// replica dies). The session is owned by replica A; the client's requests reach replica B, which forwards
// them to A. A pushes an elicitation on the call's SSE stream (through B), B is SIGKILLed while the person
// is still answering, and the client (SDK v2, protocol 2025-11-25) resumes the stream through the balancer
// with GET Last-Event-ID (basic/transports §Resumability and Redelivery): whichever live replica it lands
// on forwards it to A, which replays the events the client missed, and the call gets its answer. Real
// processes (built dist/), real PostgreSQL, real HAProxy in round-robin without affinity.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema as V1Elicit } from '@modelcontextprotocol/sdk/types.js';
import { text } from './fixtures/toolkit/peers.js';
import { clusterSkipReason, IDS, startCluster, TOKENS } from './helpers/replicas.js';
import type { Cluster } from './helpers/replicas.js';
import { pgSkipReason } from './helpers/postgres.js';

/**
 * The bound on the answer after the person answered: the client's first reconnection (1 s, the SDK
 * default) plus HAProxy's redispatch off the dead server and the replay, with slack for a loaded machine.
 */
const RESUME_BOUND_MS = 8_000;

/**
 * The crossing both tests make: the first request (initialize) goes to `owner`, later ones to `via` until
 * `reroute`; the elicitation handler calls `asked()` and waits for `release()`.
 */
function crossing(owner: string, via: string) {
  let route = via;
  let n = 0;
  let asked = () => {};
  let release = () => {};
  return {
    fetchFn: (_u: string | URL, init?: RequestInit) => fetch(n++ === 0 ? owner : route, init),
    reroute: (url: string) => void (route = url),
    prompted: new Promise<void>((r) => (asked = r)),
    answered: new Promise<void>((r) => (release = r)),
    asked: () => asked(),
    release: () => release(),
  };
}

/** A call's outcome with the time it settled: its text, or the error's message. */
function settled(call: Promise<unknown>): Promise<{ ok?: string; err?: string; at: number }> {
  return call.then(
    (r) => ({ ok: text(r as never), at: Date.now() }),
    (e: Error) => ({ err: e.message, at: Date.now() }),
  );
}

/**
 * The middle of both tests: once the person is asked, replica B (index 1, the forwarder) is SIGKILLed,
 * the client's requests go to the balancer, the person answers, and the call must end with `expected`
 * within {@link RESUME_BOUND_MS} of that answer.
 */
async function killForwarderThenAnswer(
  c: Cluster,
  x: ReturnType<typeof crossing>,
  outcome: ReturnType<typeof settled>,
  expected: string,
): Promise<void> {
  await x.prompted;
  await c.kill(1, 'SIGKILL');
  x.reroute(c.lbUrl);
  const t0 = Date.now();
  x.release();
  const o = await outcome;
  assert.equal(o.ok, expected, `the call's answer after B died: ${JSON.stringify(o)}`);
  assert.ok(o.at - t0 < RESUME_BOUND_MS, `answered within ${RESUME_BOUND_MS} ms of the person's answer (took ${o.at - t0} ms)`);
}

describe('a forwarding replica dies mid-call: the client resumes its stream on a live replica', { skip: clusterSkipReason }, () => {
  let c: Cluster | undefined;
  before(async () => {
    if (!clusterSkipReason) c = await startCluster({ replicas: 3 });
  });
  after(() => c?.stop());

  it('SDK v2 (2025-11-25): session on A, requests through B, B SIGKILLed with an elicitation in flight: the answer arrives through A or C', async (t) => {
    if (!c) return t.skip(pgSkipReason);
    const [a, b] = c.replicas;
    // The client initializes on A; later requests go to B until it dies, then to the balancer.
    const x = crossing(a.url, b.url);
    const client = new Client({ name: 'v2', version: '1' }, { capabilities: { elicitation: { form: {} } } as never });
    client.setRequestHandler('elicitation/create', async () => {
      x.asked();
      await x.answered;
      return { action: 'accept', content: { name: 'resumed' } } as never;
    });
    const tr = new StreamableHTTPClientTransport(new URL(c.lbUrl), {
      requestInit: { headers: { authorization: `Bearer ${TOKENS[IDS[0]]}` } },
      fetch: x.fetchFn as never,
    });
    await client.connect(tr);
    try {
      assert.equal(JSON.parse(Buffer.from(tr.sessionId!.split('.')[1], 'base64url').toString('utf8')).a, a.url, 'A owns the session');
      const outcome = settled(client.callTool({ name: 'v2__ask', arguments: {} }, { timeout: 60_000 } as never));
      await killForwarderThenAnswer(c, x, outcome, 'hello resumed');
      // The session goes on through the balancer.
      const next = client.callTool({ name: 'v2__ask', arguments: {} }, { timeout: 30_000 } as never);
      assert.equal(text(await next), 'hello resumed');
    } finally {
      await client.close().catch(() => undefined);
      await c.restart(1);
    }
  });

  it('SDK v1 1.32.2 (2025-11-25): the same crossing, B SIGKILLed: it resumes too and gets the answer within the bound', async (t) => {
    if (!c) return t.skip(pgSkipReason);
    const [a, b] = c.replicas;
    const x = crossing(a.url, b.url);
    const client = new V1Client({ name: 'v1', version: '1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(V1Elicit, async () => {
      x.asked();
      await x.answered;
      return { action: 'accept', content: { name: 'v1' } };
    });
    const tr = new V1Transport(new URL(c.lbUrl), {
      requestInit: { headers: { authorization: `Bearer ${TOKENS[IDS[1]]}` } },
      fetch: x.fetchFn as never,
    });
    await client.connect(tr);
    try {
      const outcome = settled(client.callTool({ name: 'v2__ask', arguments: {} }, undefined, { timeout: 60_000 }));
      // Without the event store it waited for its own 60 s request timeout.
      await killForwarderThenAnswer(c, x, outcome, 'hello v1');
    } finally {
      await client.close().catch(() => undefined);
      await c.restart(1);
    }
  });
});
