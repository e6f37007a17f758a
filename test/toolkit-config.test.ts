// Session configuration negotiation: ask once per scope, defaults, TTL, isolation, re-announced tools.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createShared, serve } from '../src/server/index.js';
import { DB_CONFIG_TTL_MS, demoServer, legacyPair, modernPair, text, v2Client } from './fixtures/toolkit/peers.js';
import { waitUntil } from './helpers/wait.js';

test('config: only missing fields are asked (defaults merged), once while fresh, again after TTL or reset', async () => {
  let now = 0;
  const shared = createShared({ now: () => now });
  const asked: any[] = [];
  const p = await legacyPair(
    (r) => {
      asked.push(r.params.requestedSchema);
      return { action: 'accept', content: { host: 'db.local' } };
    },
    { shared },
  );
  try {
    assert.equal(text(await p.client.callTool({ name: 'query', arguments: { q: 'a' } })), 'db.local:5432 a');
    assert.deepEqual(Object.keys(asked[0].properties), ['host']); // port has a default
    assert.equal(text(await p.client.callTool({ name: 'query', arguments: { q: 'b' } })), 'db.local:5432 b');
    assert.equal(asked.length, 1);
    now = DB_CONFIG_TTL_MS - 1;
    await p.client.callTool({ name: 'query', arguments: { q: 'b2' } });
    assert.equal(asked.length, 1);
    now = DB_CONFIG_TTL_MS + 1; // counted from the answer (using the value does not extend it)
    await p.client.callTool({ name: 'query', arguments: { q: 'c' } });
    assert.equal(asked.length, 2);
    await p.client.callTool({ name: 'forget', arguments: {} });
    await p.client.callTool({ name: 'query', arguments: { q: 'd' } });
    assert.equal(asked.length, 3);
  } finally {
    await p.close();
  }
});

test('config: two sessions sharing one process are isolated', async () => {
  const shared = createShared();
  const a = await legacyPair(() => ({ action: 'accept', content: { host: 'alpha' } }), { shared });
  const b = await legacyPair(() => ({ action: 'accept', content: { host: 'beta' } }), { shared });
  try {
    assert.equal(text(await a.client.callTool({ name: 'query', arguments: { q: '1' } })), 'alpha:5432 1');
    assert.equal(text(await b.client.callTool({ name: 'query', arguments: { q: '1' } })), 'beta:5432 1');
    assert.equal(text(await a.client.callTool({ name: 'query', arguments: { q: '2' } })), 'alpha:5432 2');
  } finally {
    await a.close();
    await b.close();
  }
});

test('config: declined configuration ends the call with an error naming the fields', async () => {
  const p = await legacyPair(() => ({ action: 'decline' }));
  try {
    const r: any = await p.client.callTool({ name: 'query', arguments: { q: 'x' } });
    assert.equal(r.isError, true);
    assert.match(text(r), /decline.*host/);
  } finally {
    await p.close();
  }
});

test('config: a dependent tool is listed generically, then re-announced with tools/list_changed (legacy)', async () => {
  const p = await legacyPair(() => ({ action: 'accept', content: { host: 'db.local' } }));
  let changed = 0;
  p.client.setNotificationHandler('notifications/tools/list_changed', () => void changed++);
  try {
    const before = (await p.client.listTools()).tools.find((t) => t.name === 'query');
    assert.equal(before?.description, 'Database query');
    await p.client.callTool({ name: 'query', arguments: { q: 'x' } });
    await waitUntil(() => changed > 0);
    assert.ok(changed >= 1);
    const after = (await p.client.listTools()).tools.find((t) => t.name === 'query');
    assert.equal(after?.description, 'Query db.local:5432');
  } finally {
    await p.close();
  }
});

test('config modern: completed within one call through input_required', async () => {
  const p = await modernPair(() => ({ action: 'accept', content: { host: 'm.local' } }));
  try {
    assert.equal(text(await p.client.callTool({ name: 'query', arguments: { q: 'z' } })), 'm.local:5432 z');
  } finally {
    await p.close();
  }
});

test('config scope user over HTTP: keyed by the authenticated user, isolated between users, shared across sessions of one user', async () => {
  const shared = createShared();
  const h = await serve(() => demoServer(shared), {
    http: {
      authenticate: (req) => {
        const u = req.headers['x-test-user'];
        return typeof u === 'string' ? { token: 't', clientId: 'c', scopes: [], extra: { sub: u } } : undefined;
      },
    },
  });
  const connect = async (user: string, host: string, counter: { n: number }, mode?: 'auto') => {
    const c = v2Client(
      () => {
        counter.n++;
        return { action: 'accept', content: { host } };
      },
      { mode },
    );
    await c.connect(new StreamableHTTPClientTransport(new URL(h.url), { requestInit: { headers: { 'x-test-user': user } } }));
    return c;
  };
  try {
    const ca = { n: 0 },
      cb = { n: 0 };
    const a1 = await connect('alice', 'alice-db', ca);
    const b1 = await connect('bob', 'bob-db', cb);
    assert.equal(text(await a1.callTool({ name: 'userquery', arguments: {} })), 'alice-db');
    assert.equal(text(await b1.callTool({ name: 'userquery', arguments: {} })), 'bob-db');
    const a2 = await connect('alice', 'other', ca, 'auto'); // a second session (2026-07-28) of the same user
    assert.equal(text(await a2.callTool({ name: 'userquery', arguments: {} })), 'alice-db');
    assert.equal(ca.n, 1);
    assert.equal(cb.n, 1);
    // 2026-07-28: no list_changed; each tools/list is computed for the requesting user
    const desc = async (c: any) => (await c.listTools()).tools.find((t: any) => t.name === 'userquery')?.description;
    assert.equal(await desc(a2), 'User db alice-db');
    const carol = await connect('carol', 'x', { n: 0 }, 'auto');
    assert.equal(await desc(carol), 'User-scoped config');
    await Promise.all([a1.close(), b1.close(), a2.close(), carol.close()]);
  } finally {
    await h.close();
  }
});

test('config scope session over HTTP without auth: keyed by MCP-Session-Id, two sessions isolated', async () => {
  const shared = createShared();
  const h = await serve(() => demoServer(shared), { http: {} });
  const mk = async (host: string, counter: { n: number }) => {
    const c = v2Client(() => {
      counter.n++;
      return { action: 'accept', content: { host } };
    });
    await c.connect(new StreamableHTTPClientTransport(new URL(h.url)));
    return c;
  };
  const ca = { n: 0 },
    cb = { n: 0 };
  const a = await mk('a-db', ca),
    b = await mk('b-db', cb);
  try {
    assert.equal(text(await a.callTool({ name: 'query', arguments: { q: '1' } })), 'a-db:5432 1');
    assert.equal(text(await b.callTool({ name: 'query', arguments: { q: '1' } })), 'b-db:5432 1');
    assert.equal(text(await a.callTool({ name: 'query', arguments: { q: '2' } })), 'a-db:5432 2');
    assert.deepEqual([ca.n, cb.n], [1, 1]);
  } finally {
    await a.close();
    await b.close();
    await h.close();
  }
});

test('config scope session on 2026-07-28 over HTTP: with an authenticated user it is asked once, per user', async () => {
  // 2026-07-28 has no sessions; the authenticated user is the stable principal (review of issue 3).
  const shared = createShared();
  const h = await serve(() => demoServer(shared), {
    http: {
      authenticate: (req) => {
        const u = req.headers['x-test-user'];
        return typeof u === 'string' ? { token: 't', clientId: 'c', scopes: [], extra: { sub: u } } : undefined;
      },
    },
  });
  try {
    const asks = { alice: 0, bob: 0 };
    const connect = async (user: 'alice' | 'bob') => {
      const c = v2Client(
        () => {
          asks[user]++;
          return { action: 'accept', content: { host: `${user}.db` } };
        },
        { mode: 'auto' },
      );
      await c.connect(new StreamableHTTPClientTransport(new URL(h.url), { requestInit: { headers: { 'x-test-user': user } } }));
      return c;
    };
    const [a, b] = [await connect('alice'), await connect('bob')];
    assert.equal(text(await a.callTool({ name: 'query', arguments: { q: '1' } })), 'alice.db:5432 1');
    assert.equal(text(await a.callTool({ name: 'query', arguments: { q: '2' } })), 'alice.db:5432 2');
    assert.equal(text(await b.callTool({ name: 'query', arguments: { q: '3' } })), 'bob.db:5432 3');
    assert.deepEqual(asks, { alice: 1, bob: 1 });
    await Promise.all([a.close(), b.close()]);
  } finally {
    await h.close();
  }
});

test("config scope user, 2025 eras: completing it on one connection re-announces the tool list on the user's other connections, not on other users'", async () => {
  const shared = createShared();
  const h = await serve(() => demoServer(shared), {
    http: {
      authenticate: (req) => {
        const u = req.headers['x-test-user'];
        return typeof u === 'string' ? { token: 't', clientId: 'c', scopes: [], extra: { sub: u } } : undefined;
      },
    },
  });
  const connect = async (user: string) => {
    const c = v2Client(() => ({ action: 'accept', content: { host: `${user}-db` } }));
    const seen = { changed: 0 };
    c.setNotificationHandler('notifications/tools/list_changed', () => void seen.changed++);
    await c.connect(new StreamableHTTPClientTransport(new URL(h.url), { requestInit: { headers: { 'x-test-user': user } } }));
    await c.listTools(); // this connection shows configuration-dependent tools
    return { c, seen };
  };
  const desc = async (c: any) => (await c.listTools()).tools.find((t: any) => t.name === 'userquery')?.description;
  try {
    const a1 = await connect('alice'),
      a2 = await connect('alice'),
      b = await connect('bob');
    assert.equal(await desc(a2.c), 'User-scoped config');
    assert.equal(text(await a1.c.callTool({ name: 'userquery', arguments: {} })), 'alice-db');
    await waitUntil(() => a1.seen.changed > 0 && a2.seen.changed > 0); // a2 hears it on its standalone GET stream
    assert.ok(a1.seen.changed >= 1, 'the completing connection');
    assert.ok(a2.seen.changed >= 1, "the user's other connection");
    assert.equal(await desc(a2.c), 'User db alice-db');
    assert.equal(b.seen.changed, 0, 'another user is not told');
    assert.equal(await desc(b.c), 'User-scoped config');
    await Promise.all([a1.c.close(), a2.c.close(), b.c.close()]);
  } finally {
    await h.close();
  }
});

test('config cache: entries expire after their TTL, and the cache is bounded (least recently used dropped first)', async () => {
  const { ConfigCache, CONFIG_CACHE_MAX } = await import('../src/server/index.js');
  let now = 0;
  const cache = new ConfigCache(() => now, 3);
  cache.set('a', { v: 1 }, 100);
  now = 99;
  assert.deepEqual(cache.get('a'), { v: 1 });
  now = 100;
  assert.equal(cache.get('a'), undefined, 'expired at set + ttlMs');
  cache.set('a', { v: 1 }, Infinity);
  cache.set('b', { v: 2 }, Infinity);
  cache.set('c', { v: 3 }, Infinity);
  cache.get('a'); // a is now the most recently used
  cache.set('d', { v: 4 }, Infinity);
  assert.equal(cache.size, 3);
  assert.equal(cache.get('b'), undefined, 'the least recently used went');
  assert.deepEqual([cache.get('a'), cache.get('c'), cache.get('d')], [{ v: 1 }, { v: 3 }, { v: 4 }]);
  // The default bound holds with more live entries than it (before, only expired entries were swept).
  const big = new ConfigCache(() => 0);
  for (let i = 0; i <= CONFIG_CACHE_MAX; i++) big.set(`k${i}`, {}, 3_600_000);
  assert.equal(big.size, CONFIG_CACHE_MAX);
});
