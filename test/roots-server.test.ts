// Server toolkit roots helpers (src/server/roots.ts): vectors RT2 (per-entry drops) and RT3 (escapes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import {
  isPathInside,
  parseRootsList,
  requestRoots,
  resolveInRoots,
  RootsAccessError,
  RootsCache,
  rootsFromInputResponses,
} from '../src/server/roots.js';
import { pathToFileUri } from '../src/schema/uri.js';
import { verifies } from './helpers/verifies.js';

const vectors = JSON.parse(readFileSync('/work/shared/vectors/roots.json', 'utf8')) as Array<{ id: string; input: any }>;
const vec = (id: string) => vectors.find((v) => v.id === id)!;
const posix = { platform: 'posix' } as const;

test('RT2: a non-file root is dropped and logged; the file root survives', () => {
  verifies('ROOTS-URI-FILE');
  const logged: string[] = [];
  const { roots, dropped } = parseRootsList({ roots: vec('RT2-non-file-root').input }, (m) => logged.push(m), posix);
  assert.deepEqual(roots, [{ uri: 'file:///home/u/project', path: '/home/u/project' }]);
  assert.equal(dropped.length, 1);
  assert.equal(dropped[0].index, 1);
  assert.match(dropped[0].reason, /file:\/\/.*https:\/\/example\.com\/repo/);
  assert.equal(logged.length, 1);
  assert.match(logged[0], /\/roots\/1/);
});

test('RT2 kind: every bad entry is dropped on its own, with a reason', () => {
  const raw = {
    roots: [
      null,
      'file:///plain-string',
      { uri: 42 },
      { uri: 'file:///ok', name: 7 },
      { uri: '/no/scheme' },
      { uri: 'file:///bad%zz' },
      { uri: 'file://remote/share' },
      { uri: 'file:///a%20b', name: 'A B' },
      { uri: 'file:///a b/../a%20b'.replace(' b/../a%20b', '%20b') },
      { uri: 'sales://emea' },
    ],
  };
  const { roots, dropped } = parseRootsList(raw, undefined, posix);
  assert.deepEqual(roots, [{ uri: 'file:///a%20b', name: 'A B', path: '/a b' }]);
  assert.deepEqual(
    dropped.map((d) => d.index),
    [0, 1, 2, 3, 4, 5, 6, 8, 9],
  );
  assert.match(dropped.find((d) => d.index === 8)!.reason, /duplicate/);
  assert.match(dropped.find((d) => d.index === 3)!.reason, /name/);
  assert.equal(parseRootsList([{ uri: 'file:///x' }, { uri: 'file:///x/' }], undefined, posix).dropped.length, 1);
  assert.equal(parseRootsList([{ uri: 'file:///C:/X' }, { uri: 'file:///c:/x/' }], undefined, { platform: 'win32' }).dropped.length, 1);
  // A bare array works; a non-list drops everything with index -1 instead of throwing.
  assert.equal(parseRootsList([{ uri: 'file:///x' }], undefined, posix).roots.length, 1);
  for (const bad of [undefined, 'x', { roots: 'nope' }]) {
    const r = parseRootsList(bad, undefined, posix);
    assert.deepEqual([r.roots, r.dropped.map((d) => d.index)], [[], [-1]]);
  }
  // win32 parsing uses drive-letter semantics.
  assert.deepEqual(parseRootsList([{ uri: 'file:///c%3A/temp' }], undefined, { platform: 'win32' }).roots[0].path, 'C:\\temp');
});

function fixture() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'parley-roots-')));
  const data = join(base, 'srv', 'data');
  mkdirSync(join(data, 'sub'), { recursive: true });
  mkdirSync(join(base, 'srv', 'data2'));
  mkdirSync(join(base, 'etc'));
  writeFileSync(join(base, 'etc', 'passwd'), 'secret');
  writeFileSync(join(data, 'hello.txt'), 'hi');
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(base, 'outside', 'secret'), 's');
  symlinkSync(join(base, 'outside'), join(data, 'link-to-outside'));
  symlinkSync(join(data, 'sub'), join(data, 'link-inside'));
  symlinkSync(join(base, 'outside', 'not-yet'), join(data, 'dangling'));
  return { base, data, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

const refused = (code: string) => (e: unknown) => e instanceof RootsAccessError && e.code === code;

test('RT3: ../ escapes, absolute outside paths and a symlink pointing outside are all refused', async () => {
  verifies('ROOTS-SERVER-VALIDATE-PATHS');
  const { base, data, cleanup } = fixture();
  try {
    const { root, paths } = vec('RT3-escape-attempts').input as { root: string; paths: string[] };
    const roots = [pathToFileUri(data, posix)];
    assert.equal(root, 'file:///srv/data');
    for (const p of paths) {
      const local = p.replace('/srv/data', data).replace(/^\/etc\//, `${base}/etc/`);
      await assert.rejects(resolveInRoots(local, roots), refused('OUTSIDE_ROOTS'), local);
      await assert.rejects(resolveInRoots(p, roots), refused('OUTSIDE_ROOTS'), p); // the literal too
    }
    // The error names the candidate and the roots.
    await assert.rejects(
      resolveInRoots('/etc/passwd', roots),
      (e: Error) => e.message.includes('"/etc/passwd"') && e.message.includes(data),
    );
  } finally {
    cleanup();
  }
});

test('containment edge cases: prefix siblings, relative paths, file URIs, missing targets, dangling links', async () => {
  const { base, data, cleanup } = fixture();
  try {
    const roots = [{ path: data }];
    assert.equal(await resolveInRoots(join(data, 'hello.txt'), roots), join(data, 'hello.txt'));
    assert.equal(await resolveInRoots('hello.txt', roots), join(data, 'hello.txt'));
    assert.equal(await resolveInRoots('sub/../hello.txt', roots), join(data, 'hello.txt'));
    assert.equal(await resolveInRoots(pathToFileUri(join(data, 'hello.txt'), posix), roots), join(data, 'hello.txt'));
    assert.equal(await resolveInRoots(data, roots), data);
    // A symlink that stays inside the root resolves to its real target.
    assert.equal(await resolveInRoots('link-inside', roots), join(data, 'sub'));
    // Not yet existing: allowed inside, refused outside.
    assert.equal(await resolveInRoots('new/dir/file.txt', roots), join(data, 'new', 'dir', 'file.txt'));
    await assert.rejects(resolveInRoots('../data2/x', roots), refused('OUTSIDE_ROOTS'));
    await assert.rejects(resolveInRoots(join(base, 'srv', 'data2'), roots), refused('OUTSIDE_ROOTS'));
    await assert.rejects(resolveInRoots('../../..', roots), refused('OUTSIDE_ROOTS'));
    // A file to be created behind a dangling symlink would land outside.
    await assert.rejects(resolveInRoots('dangling', roots), refused('OUTSIDE_ROOTS'));
    await assert.rejects(resolveInRoots('dangling/child', roots), refused('OUTSIDE_ROOTS'));
    await assert.rejects(resolveInRoots('link-to-outside/new-file', roots), refused('OUTSIDE_ROOTS'));
    // Root given through a symlink still contains the real target.
    assert.equal(await resolveInRoots(join(data, 'link-inside', 'x'), [{ path: join(data, 'link-inside') }]), join(data, 'sub', 'x'));
    // Errors of input.
    await assert.rejects(resolveInRoots('x', []), refused('NO_ROOTS'));
    await assert.rejects(resolveInRoots('file:///a%zz', roots), refused('INVALID_PATH'));
    await assert.rejects(resolveInRoots('a\u0000b', roots), refused('INVALID_PATH'));
    await assert.rejects(resolveInRoots('https://x/y', roots), refused('INVALID_PATH'));
  } finally {
    cleanup();
  }
});

test('win32 containment is lexical, segment-based and case-insensitive', async () => {
  const w = { platform: 'win32' } as const;
  assert.equal(await resolveInRoots('file:///c%3A/Data/x.txt', ['C:\\data'], w), 'c:\\Data\\x.txt'.replace('c:', 'C:'));
  assert.equal(await resolveInRoots('sub\\x', ['file:///C:/data'], w), 'C:\\data\\sub\\x');
  await assert.rejects(resolveInRoots('C:\\data2\\x', ['C:\\data'], w), refused('OUTSIDE_ROOTS'));
  await assert.rejects(resolveInRoots('C:\\data\\..\\Windows', ['C:\\data'], w), refused('OUTSIDE_ROOTS'));
  await assert.rejects(resolveInRoots('D:\\data', ['C:\\data'], w), refused('OUTSIDE_ROOTS'));
  assert.equal(isPathInside('/srv/data', '/srv/data2', 'posix'), false);
  assert.equal(isPathInside('/srv/data', '/srv/data/..x', 'posix'), true);
  assert.equal(isPathInside('/', '/anything', 'posix'), true);
});

test('RootsCache: get/set/invalidate per session, with an injected clock for the TTL', () => {
  let now = 1000;
  const c = new RootsCache({ ttlMs: 50, now: () => now });
  const r = [{ uri: 'file:///a', path: '/a' }];
  assert.equal(c.get(), undefined);
  c.set(r);
  c.set([], 's2');
  assert.deepEqual(c.get(), r);
  c.invalidate('s2');
  assert.equal(c.get('s2'), undefined);
  assert.deepEqual(c.get(), r);
  now += 51;
  assert.equal(c.get(), undefined);
  c.set(r, 'a');
  c.set(r, 'b');
  c.invalidate();
  assert.deepEqual([c.get('a'), c.get('b')], [undefined, undefined]);
});

test('requestRoots over real SDK v2 peers keeps the good roots where server.listRoots() loses them all', async () => {
  verifies('ROOTS-URI-FILE');
  const { Client } = await import('@modelcontextprotocol/client');
  const { McpServer, InMemoryTransport } = await import('@modelcontextprotocol/server');
  const server = new McpServer({ name: 'roots-consumer', version: '0.0.0' });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'host', version: '0.0.0' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler('roots/list', async () => ({ roots: vec('RT2-non-file-root').input }));
  try {
    await server.connect(st);
    await client.connect(ct);
    // Measured SDK behaviour (v2 2.4): the strict path rejects the whole list.
    await assert.rejects(
      server.server.listRoots(),
      (e: Error & { code?: unknown }) => e.code === 'INVALID_RESULT' && /file:\/\//.test(e.message),
    );
    const logged: string[] = [];
    const r = await requestRoots(server.server, (m) => logged.push(m), { ...posix, timeoutMs: 5000 });
    assert.deepEqual(r.roots, [{ uri: 'file:///home/u/project', path: '/home/u/project' }]);
    assert.equal(r.dropped.length, 1);
    assert.equal(logged.length, 1);
  } finally {
    await client.close();
    await server.close();
  }
});

test('rootsFromInputResponses filters what the SDK passes through unvalidated on 2026-07-28 (MRTR)', async () => {
  verifies('ROOTS-2607-INPUT-REQUEST');
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const { McpServer, createMcpHandler, inputRequired } = await import('@modelcontextprotocol/server');
  const z = await import('zod');
  const seen: unknown[] = [];
  const handler = createMcpHandler(() => {
    const s = new McpServer({ name: 'roots-consumer', version: '0.0.0' });
    s.registerTool('where', { inputSchema: z.object({}) }, async (_a, ctx) => {
      const got = rootsFromInputResponses(ctx.mcpReq.inputResponses, 'ws', undefined, posix);
      if (!got) return inputRequired({ inputRequests: { ws: inputRequired.listRoots() } });
      seen.push(ctx.mcpReq.inputResponses);
      return { content: [{ type: 'text', text: JSON.stringify(got.roots.map((r) => r.path)) }] };
    });
    return s;
  });
  const client = new Client({ name: 'host', version: '0.0.0' }, { capabilities: { roots: {} }, versionNegotiation: { mode: 'auto' } });
  client.setRequestHandler('roots/list', async () => ({ roots: vec('RT2-non-file-root').input }));
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), { fetch: (u, i) => handler.fetch(new Request(u, i)) }),
    );
    assert.equal(client.getProtocolEra(), 'modern');
    const r = (await client.callTool({ name: 'where', arguments: {} })) as { content: Array<{ text: string }> };
    assert.equal(r.content[0].text, JSON.stringify(['/home/u/project']));
    // The raw answer really carried the https root: the SDK did not filter it.
    assert.match(JSON.stringify(seen[0]), /https:\/\/example\.com\/repo/);
  } finally {
    await client.close();
  }
  assert.equal(rootsFromInputResponses(undefined, 'ws'), undefined);
  assert.equal(rootsFromInputResponses({ other: {} }, 'ws'), undefined);
});
