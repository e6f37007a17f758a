// 2025-era sessions across three replicas WITHOUT session affinity (issue 13 items 4 and 6): the session
// id names the replica that holds it (sealed with PARLEY_SECRET) and any other replica sends the request
// on to it (src/gateway/sessions-route.ts). Real processes (built dist/), real PostgreSQL, real HAProxy in
// plain round-robin (no stick table).
//
// 1. Deterministic: each HTTP request of a session goes to the next replica in turn (the client's own
//    fetch rotates), so two of three requests of every session land on a replica that does not hold it:
//    SDK v1 and v2 clients, a tool call with a pushed elicitation, roots, roots/list_changed (the
//    owner's roots/list travels on the GET stream held through another replica), and DELETE.
// 2. The load: 1,000 interleaved elicitations across 2 tenants × 2 users × 4 sessions through
//    HAProxy (per user: a v2 and a v1 2025-11-25 push session, two v2 2026-07-28 MRTR clients), each call
//    with its own expected answer: 0 cross-deliveries, 0 lost answers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { text } from './fixtures/toolkit/peers.js';
import { existsSync } from 'node:fs';
import { clusterSkipReason, IDS, NGINX, startCluster, TOKENS } from './helpers/replicas.js';
import type { Cluster } from './helpers/replicas.js';
import { pgSkipReason } from './helpers/postgres.js';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A fetch that sends each request to the next of `urls` in turn, and records where each went. */
function rotating(urls: string[], seen: string[] = []): Fetch {
  let i = 0;
  return (_url, init) => {
    const u = urls[i++ % urls.length];
    seen.push(`${init?.method ?? 'GET'} ${u}`);
    return fetch(u, init);
  };
}

/** A 2025-era client (SDK v1 or v2) whose elicitation answer and roots the test sets. */
async function legacyClient(sdk: 'v1' | 'v2', id: string, url: string, fetchFn?: Fetch) {
  const state = { answer: '', roots: [] as Array<{ uri: string; name?: string }> };
  const headers = { authorization: `Bearer ${TOKENS[id]}` };
  if (sdk === 'v1') {
    const c = new V1Client({ name: 'v1', version: '1' }, { capabilities: { elicitation: {}, roots: { listChanged: true } } });
    c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: state.answer } }));
    c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: state.roots }));
    const t = new V1Transport(new URL(url), { requestInit: { headers }, ...(fetchFn ? { fetch: fetchFn as never } : {}) });
    await c.connect(t);
    return {
      state,
      call: (name: string) => c.callTool({ name, arguments: {} }, undefined, { timeout: 60_000 }).then(text),
      rootsChanged: () => c.sendRootsListChanged(),
      sessionId: () => t.sessionId,
      terminate: () => t.terminateSession(),
      close: () => c.close(),
    };
  }
  const c = new Client(
    { name: 'v2', version: '1' },
    { capabilities: { elicitation: { form: {} }, roots: { listChanged: true } } as never },
  );
  c.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: state.answer } }) as never);
  c.setRequestHandler('roots/list', async () => ({ roots: state.roots }) as never);
  const t = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, ...(fetchFn ? { fetch: fetchFn as never } : {}) });
  await c.connect(t);
  return {
    state,
    call: (name: string) => c.callTool({ name, arguments: {} }, { timeout: 60_000 } as never).then(text),
    rootsChanged: () => c.sendRootsListChanged(),
    sessionId: () => t.sessionId,
    terminate: () => t.terminateSession(),
    close: () => c.close(),
  };
}

/** A 2026-07-28 client (SDK v2, MRTR, auto-fulfilled) whose elicitation answer the test sets. */
async function modernClient(id: string, url: string) {
  const state = { answer: '' };
  const c = new Client({ name: 'v2m', version: '1' }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: 'auto' },
  } as never);
  c.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: state.answer } }) as never);
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS[id]}` } } }));
  return {
    state,
    call: (name: string) => c.callTool({ name, arguments: {} }, { timeout: 60_000 } as never).then(text),
    close: () => c.close(),
  };
}

async function until<T>(what: string, f: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(v)} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('2025-era sessions on three replicas without affinity', { skip: clusterSkipReason }, () => {
  let c: Cluster | undefined;
  before(async () => {
    if (!clusterSkipReason) c = await startCluster({ replicas: 3 });
  });
  after(() => c?.stop());

  it('each request of a session sent to the next replica: elicitation, roots, roots/list_changed and DELETE reach the owner (SDK v1 and v2)', async (t) => {
    if (!c) return t.skip(pgSkipReason);
    const urls = c.replicas.map((r) => r.url);
    const runs = IDS.flatMap((id) => (['v1', 'v2'] as const).map((sdk) => ({ id, sdk, tag: `${id}-${sdk}`.replace('/', '_') })));
    await Promise.all(
      runs.map(async ({ id, sdk, tag }, k) => {
        const seen: string[] = [];
        // Rotation starts at a different replica per client, so owners differ.
        const order = [...urls.slice(k % 3), ...urls.slice(0, k % 3)];
        const s = await legacyClient(sdk, id, order[0], rotating(order, seen));
        s.state.roots = [{ uri: `file:///tmp/${tag}/one`, name: 'one' }];
        try {
          for (let n = 0; n < 3; n++) {
            s.state.answer = `${tag}#${n}`;
            assert.equal(await s.call('v2__ask'), `hello ${tag}#${n}`);
          }
          const first = await s.call('v2__roots');
          assert.match(first, new RegExp(`file:///tmp/${tag}/one`));
          // roots/list_changed: the owner asks again on the GET stream, held open through another replica.
          s.state.roots = [{ uri: `file:///tmp/${tag}/two`, name: 'two' }];
          await s.rootsChanged();
          const second = await until(
            `${tag} roots after list_changed`,
            () => s.call('v2__roots'),
            (v) => v.includes(`/tmp/${tag}/two`),
          );
          assert.doesNotMatch(second, new RegExp(`/tmp/${tag}/one`));
          // No other identity's roots (a user's sessions share roots; v1 and v2 of one id are one user).
          for (const other of IDS.filter((o) => o !== id)) assert.doesNotMatch(second, new RegExp(other.replace('/', '_')));
          assert.ok(new Set(seen.map((l) => l.split(' ')[1])).size === 3, `requests went to all three replicas: ${seen.join(', ')}`);
          assert.ok(
            seen.some((l) => l.startsWith('GET ') && !l.endsWith(order[0])),
            `the GET stream went through a replica that does not hold the session: ${seen.join(', ')}`,
          );
          // DELETE through whichever replica is next: the owner ends the session; every replica then answers 404.
          const sid = s.sessionId()!;
          assert.match(sid, /^ps1\./, 'the session id names its replica');
          await s.terminate();
          for (const u of urls) {
            const r = await fetch(u, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${TOKENS[id]}`,
                'mcp-session-id': sid,
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
                'mcp-protocol-version': '2025-11-25',
              },
              body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
            });
            assert.equal(r.status, 404, `${u} after DELETE: ${r.status} ${await r.text()}`);
          }
        } finally {
          await s.close().catch(() => undefined);
        }
      }),
    );
  });

  it("another identity's request naming a session is refused by every replica (404), forwarded or not", async (t) => {
    if (!c) return t.skip(pgSkipReason);
    const s = await legacyClient('v2', IDS[0], c.replicas[0].url);
    try {
      const sid = s.sessionId()!;
      for (const r of c.replicas) {
        const res = await fetch(r.url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${TOKENS[IDS[2]]}`,
            'mcp-session-id': sid,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        });
        assert.equal(res.status, 404, `${r.url}: ${res.status}`);
      }
      // A forged id naming a replica (wrong MAC) is not forwarded: 404 at once.
      const [head, payload, nonce] = sid.split('.');
      const forged = `${head}.${payload}.${nonce}.${'A'.repeat(22)}`;
      const res = await fetch(c.replicas[1].url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKENS[IDS[0]]}`,
          'mcp-session-id': forged,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      assert.equal(res.status, 404);
    } finally {
      await s.close();
    }
  });

  it('through nginx in round-robin (the docs/scaling.md example): SDK v1 and v2 2025-era sessions and 2026-07-28 clients get their own prompts', async (t) => {
    if (!c) return t.skip(pgSkipReason);
    if (!existsSync(NGINX) && !process.env.CI) return t.skip(`${NGINX} not found: install Debian package nginx`);
    const url = await c.nginx();
    const runs = IDS.flatMap((id) => (['v1', 'v2', 'modern'] as const).map((kind) => ({ id, kind, tag: `${id}-${kind}` })));
    const got = await Promise.all(
      runs.map(async ({ id, kind, tag }) => {
        const s = kind === 'modern' ? await modernClient(id, url) : await legacyClient(kind, id, url);
        try {
          const out: string[] = [];
          for (let n = 0; n < 3; n++) {
            s.state.answer = `${tag}#${n}`;
            out.push(await s.call('v2__ask'));
          }
          return out;
        } finally {
          await s.close().catch(() => undefined);
        }
      }),
    );
    assert.deepEqual(
      got,
      runs.map(({ tag }) => [0, 1, 2].map((n) => `hello ${tag}#${n}`)),
    );
  });

  it('1,000 interleaved elicitations, 2 tenants × 2 users × 4 sessions (2025 push v1/v2, 2026-07-28 MRTR) through HAProxy round-robin: 0 cross-deliveries, 0 lost answers', async (t) => {
    if (!c) return t.skip(pgSkipReason);
    const lb = c.lbUrl;
    const sessions = await Promise.all(
      IDS.flatMap((id) =>
        [0, 1, 2, 3].map(async (k) => {
          const tag = `${id}/s${k}`;
          const s = k === 0 ? await legacyClient('v2', id, lb) : k === 1 ? await legacyClient('v1', id, lb) : await modernClient(id, lb);
          return { id, tag, s };
        }),
      ),
    );
    const TOTAL = 1000;
    const per = (i: number) => Math.floor(TOTAL / sessions.length) + (i < TOTAL % sessions.length ? 1 : 0);
    const t0 = Date.now();
    const wrong: string[] = [];
    let done = 0;
    try {
      // Sessions run side by side; inside one session calls are sequential, so the client's one answer
      // handler knows which call a prompt belongs to (2025-era prompts carry no link to their call).
      await Promise.all(
        sessions.map(async ({ tag, s }, i) => {
          for (let n = 0; n < per(i); n++) {
            const want = `${tag}#${n}`;
            s.state.answer = want;
            const got = await s.call('v2__ask').catch((e: Error) => `threw: ${e.message}`);
            if (got !== `hello ${want}`) wrong.push(`${want} → ${got}`);
            done++;
          }
        }),
      );
    } finally {
      await Promise.all(sessions.map(({ s }) => s.close().catch(() => undefined)));
    }
    t.diagnostic(`${done} elicitations in ${Date.now() - t0} ms`);
    if (wrong.length) for (const r of c.replicas) t.diagnostic(`${r.url}:\n${r.log.join('').slice(-3000)}`);
    assert.equal(done, TOTAL);
    assert.deepEqual(wrong, [], `cross-deliveries or lost answers (${wrong.length})`);
  });
});
