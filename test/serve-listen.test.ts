// List changes reach both eras of serve() over HTTP: 2025-era sessions by their own
// notifications/<kind>/list_changed, 2026-07-28 clients (SDK v2, versionNegotiation auto) on their
// subscriptions/listen streams, only for the kinds they asked for. "Got none" is checked without timers:
// a later announcement of a kind the client did ask for travels the same stream (in order), so once it
// has arrived, an earlier leaked notification would have arrived before it. The stdio leg runs the
// fixture test/fixtures/toolkit/lists-server.ts as a child, one per era, in parallel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { IncomingMessage } from 'node:http';
import { createShared, serve } from '../src/server/index.js';
import type { ListKind, ServeHandle } from '../src/server/index.js';
import { demoServer, text } from './fixtures/toolkit/peers.js';
import { emptyLists, listsServer } from './fixtures/toolkit/lists-server.js';
import { watchGetStream } from './helpers/peers.js';
import { verifies } from './helpers/verifies.js';

const KINDS: ListKind[] = ['tools', 'prompts', 'resources'];
const BOUND_MS = 10_000;

function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>(
    (_r, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing within ${BOUND_MS} ms`)), BOUND_MS)),
  );
  return Promise.race([p, bound]).finally(() => clearTimeout(timer));
}

const byHeader = (req: IncomingMessage): AuthInfo | undefined => {
  const u = req.headers['x-test-user'];
  return typeof u === 'string' ? { token: 't', clientId: 'c', scopes: [], extra: { sub: u } } : undefined;
};

/** A client with per-kind list_changed counters. */
interface Peer {
  c: Client;
  seen: Record<ListKind, number>;
  /** Resolves once `n` notifications of `kind` arrived (bounded). */
  wait(kind: ListKind, n?: number): Promise<void>;
}

function peer(c: Client, name: string): Peer {
  const seen = { tools: 0, prompts: 0, resources: 0 };
  const waiters = new Set<() => void>();
  for (const kind of KINDS) {
    c.setNotificationHandler(`notifications/${kind}/list_changed`, () => {
      seen[kind]++;
      for (const w of waiters) w();
    });
  }
  const wait = (kind: ListKind, n = 1) =>
    within(
      new Promise<void>((resolve) => {
        const check = () => seen[kind] >= n && (waiters.delete(check), resolve());
        waiters.add(check);
        check();
      }),
      `${name}: notifications/${kind}/list_changed #${n}`,
    );
  return { c, seen, wait };
}

/** A 2025-era client whose standalone GET stream (where unsolicited notifications travel) is open. */
async function legacyPeer(h: ServeHandle, name: string, user?: string): Promise<Peer> {
  const get = watchGetStream();
  const c = new Client({ name, version: '1' }, { capabilities: {} });
  const p = peer(c, name);
  await c.connect(
    new StreamableHTTPClientTransport(new URL(h.url), {
      fetch: get.fetch,
      ...(user ? { requestInit: { headers: { 'x-test-user': user } } } : {}),
    }),
  );
  assert.equal(c.getProtocolEra(), 'legacy', `${name} speaks a 2025 revision`);
  await within(get.opened, `${name}: GET stream`);
  return p;
}

/** A 2026-07-28 client with a subscriptions/listen stream for `filter` (ack received). */
async function modernPeer(
  h: ServeHandle,
  name: string,
  filter: { toolsListChanged?: true; promptsListChanged?: true; resourcesListChanged?: true },
  user?: string,
): Promise<Peer> {
  const c = new Client({ name, version: '1' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } });
  c.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { host: `${user}-db` } }));
  const p = peer(c, name);
  await c.connect(new StreamableHTTPClientTransport(new URL(h.url), user ? { requestInit: { headers: { 'x-test-user': user } } } : {}));
  assert.equal(c.getProtocolEra(), 'modern', `${name} speaks 2026-07-28`);
  if (Object.keys(filter).length) {
    const sub = await c.listen(filter);
    assert.deepEqual(sub.honoredFilter, filter, `${name}: the server honours every kind it declared listChanged for`);
  }
  return p;
}

const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name);
const closeAll = (peers: Peer[]) => Promise.all(peers.map((p) => p.c.close()));

test('2026-07-28: a tool added during a request reaches the listen streams that asked for tools, and no other', async () => {
  const lists = emptyLists();
  const h = await serve(listsServer(createShared(), lists), { http: {} });
  try {
    const a = await modernPeer(h, 'tools-listener', { toolsListChanged: true });
    const b = await modernPeer(h, 'prompts-listener', { promptsListChanged: true });
    const caller = await modernPeer(h, 'caller', {});
    assert.ok(!(await names(a.c)).includes('beta'), 'beta is not listed before it is added');
    assert.equal(text(await caller.c.callTool({ name: 'add_tool', arguments: { name: 'beta' } })), 'added beta');
    await a.wait('tools');
    verifies('LIST-2607-LISTEN-DELIVERY');
    assert.ok((await names(a.c)).includes('beta'), 'the next tools/list shows the tool');
    h.listChanged('prompts');
    await b.wait('prompts');
    assert.equal(b.seen.tools, 0, 'a stream that asked only for prompts got no tools/list_changed');
    verifies('LIST-2607-LISTEN-FILTER');
    h.listChanged('tools');
    await a.wait('tools', 2);
    assert.equal(a.seen.prompts, 0, 'a stream that asked only for tools got no prompts/list_changed');
    assert.equal(caller.seen.tools, 0, 'a client without a listen stream is told nothing');
    await closeAll([a, b, caller]);
  } finally {
    await h.close();
  }
});

test('2025 eras: a tool added on a session is announced to that session and to the listen streams; both lists show it', async () => {
  const lists = emptyLists();
  const h = await serve(listsServer(createShared(), lists), { http: {} });
  try {
    const legacy = await legacyPeer(h, 'legacy');
    const modern = await modernPeer(h, 'modern', { toolsListChanged: true });
    assert.equal(text(await legacy.c.callTool({ name: 'add_tool', arguments: { name: 'gamma' } })), 'added gamma');
    await legacy.wait('tools');
    verifies('LIST-1125-TOOLS-LIST-CHANGED');
    assert.ok((await names(legacy.c)).includes('gamma'), 'the session lists the tool it added');
    await modern.wait('tools');
    assert.ok((await names(modern.c)).includes('gamma'), 'a 2026-07-28 client lists it too');
    await closeAll([legacy, modern]);
  } finally {
    await h.close();
  }
});

test('shared.listChanged and handle.listChanged reach every 2025-era session and the listen streams of that kind', async () => {
  const shared = createShared();
  const lists = emptyLists();
  const h = await serve(listsServer(shared, lists), { http: {} });
  const uris = async (c: Client) => (await c.listResources()).resources.map((r) => r.uri);
  try {
    const l1 = await legacyPeer(h, 'legacy-1'),
      l2 = await legacyPeer(h, 'legacy-2');
    const res = await modernPeer(h, 'resources-listener', { resourcesListChanged: true });
    const tools = await modernPeer(h, 'tools-listener', { toolsListChanged: true });
    lists.items.add('one');
    shared.listChanged('resources');
    await Promise.all([l1.wait('resources'), l2.wait('resources'), res.wait('resources')]);
    for (const p of [l1, l2, res]) assert.deepEqual(await uris(p.c), ['item://one'], 'the next resources/list shows the change');
    // A prompt registered on each live session's instance (announced by each), and in the factory.
    lists.prompts.add('later');
    for (const s of h.connections()) ('mcp' in s ? s.mcp : s).registerPrompt('later', { description: 'later' }, () => ({ messages: [] }));
    await Promise.all([l1.wait('prompts'), l2.wait('prompts')]);
    for (const p of [l1, l2])
      assert.ok(
        (await p.c.listPrompts()).prompts.some((x) => x.name === 'later'),
        'the session lists the new prompt',
      );
    h.listChanged(['tools', 'resources']);
    await tools.wait('tools');
    assert.equal(tools.seen.resources, 0, 'the tools-only stream got no resources/list_changed');
    await res.wait('resources', 2);
    assert.equal(res.seen.prompts + res.seen.tools, 0, 'the resources-only stream got nothing else');
    assert.throws(() => shared.listChanged('roots' as ListKind), /unknown list kind "roots"; use one of tools, prompts, resources/);
    await closeAll([l1, l2, res, tools]);
  } finally {
    await h.close();
  }
});

test("scope.user: an announcement for one user reaches that user's sessions and streams only", async () => {
  const lists = emptyLists();
  const h = await serve(listsServer(createShared(), lists), { http: { authenticate: byHeader } });
  try {
    const both = { toolsListChanged: true, promptsListChanged: true } as const;
    const aliceOld = await legacyPeer(h, 'alice-legacy', 'alice'),
      bobOld = await legacyPeer(h, 'bob-legacy', 'bob');
    const aliceNew = await modernPeer(h, 'alice-modern', both, 'alice'),
      bobNew = await modernPeer(h, 'bob-modern', both, 'bob');
    h.listChanged('tools', { user: 'alice' });
    await Promise.all([aliceOld.wait('tools'), aliceNew.wait('tools')]);
    h.listChanged('prompts');
    await Promise.all([bobOld.wait('prompts'), bobNew.wait('prompts')]);
    assert.equal(bobOld.seen.tools, 0, "bob's session was not told about alice's tools");
    assert.equal(bobNew.seen.tools, 0, "bob's listen stream was not told about alice's tools");
    h.listChanged('prompts', { era: 'modern' });
    await bobNew.wait('prompts', 2);
    h.listChanged('tools', { era: 'legacy' });
    await bobOld.wait('tools');
    assert.equal(bobOld.seen.prompts, 1, 'era modern did not reach a 2025-era session');
    h.listChanged('prompts');
    await bobNew.wait('prompts', 3);
    assert.equal(bobNew.seen.tools, 0, 'era legacy did not reach a 2026-07-28 stream');
    await closeAll([aliceOld, bobOld, aliceNew, bobNew]);
  } finally {
    await h.close();
  }
});

test("2026-07-28: completing a user-scope configuration re-announces the tool list on that user's listen streams", async () => {
  const shared = createShared();
  const h = await serve(() => demoServer(shared), { http: { authenticate: byHeader } });
  const desc = async (c: Client) => (await c.listTools()).tools.find((t) => t.name === 'userquery')?.description;
  try {
    const watcher = await modernPeer(h, 'alice-watcher', { toolsListChanged: true }, 'alice');
    const other = await modernPeer(h, 'bob-watcher', { toolsListChanged: true, resourcesListChanged: true }, 'bob');
    const doer = await modernPeer(h, 'alice-doer', {}, 'alice');
    assert.equal(await desc(watcher.c), 'User-scoped config', 'generic description before the configuration');
    assert.equal(text(await doer.c.callTool({ name: 'userquery', arguments: {} })), 'alice-db');
    await watcher.wait('tools');
    assert.equal(await desc(watcher.c), 'User db alice-db', "the user's next tools/list shows the configured description");
    h.listChanged('resources');
    await other.wait('resources');
    assert.equal(other.seen.tools, 0, 'another user is not told');
    await closeAll([watcher, other, doer]);
  } finally {
    await h.close();
  }
});

test('stdio, both eras: a tool added on the connection is announced on it (2026-07-28: on the listen subscription)', async () => {
  const fixture = ['--import', 'tsx', 'test/fixtures/toolkit/lists-server.ts'];
  await Promise.all(
    (['legacy', 'auto'] as const).map(async (mode) => {
      const c = new Client(
        { name: `stdio-${mode}`, version: '1' },
        { capabilities: {}, ...(mode === 'auto' ? { versionNegotiation: { mode } } : {}) },
      );
      const p = peer(c, `stdio-${mode}`);
      await c.connect(new StdioClientTransport({ command: process.execPath, args: fixture, stderr: 'ignore' }));
      try {
        assert.equal(c.getProtocolEra(), mode === 'auto' ? 'modern' : 'legacy', `stdio ${mode} era`);
        if (mode === 'auto') await c.listen({ promptsListChanged: true, toolsListChanged: true });
        assert.equal(text(await c.callTool({ name: 'add_tool', arguments: { name: 'delta' } })), 'added delta');
        await p.wait('tools');
        assert.ok((await names(c)).includes('delta'), `stdio ${mode}: the next tools/list shows the tool`);
      } finally {
        await c.close();
      }
    }),
  );
});
