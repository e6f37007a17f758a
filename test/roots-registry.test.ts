// Host root registry (src/host/roots/registry.ts): scopes, virtual roots (RT2), least privilege,
// change events, health checks, persistence through the Store seam.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RootRegistry, type RootsChange, type RootStore } from '../src/host/roots/index.js';
import { checkRootHealth } from '../src/host/roots/health.js';
import { pathToFileUri, UriError } from '../src/schema/uri.js';
import type { Scope, StoredRoot } from '../src/host/store/types.js';
import { bounded } from './helpers/wait.js';
import { verifies } from './helpers/verifies.js';

function memoryStore(): RootStore & { rows: StoredRoot[] } {
  const rows: StoredRoot[] = [];
  const same = (a: Scope, b: Scope) => a.tenant === b.tenant && a.user === b.user && a.session === b.session;
  return {
    rows,
    async putRoot(r) {
      const i = rows.findIndex((x) => same(x.scope, r.scope) && x.uri === r.uri);
      if (i >= 0) rows[i] = r;
      else rows.push(r);
    },
    async deleteRoot(scope, uri) {
      const i = rows.findIndex((x) => same(x.scope, scope) && x.uri === uri);
      if (i >= 0) rows.splice(i, 1);
      return i >= 0;
    },
    listRoots: async (scope) => rows.filter((x) => same(x.scope, scope)),
  };
}

const uri = (p: string) => pathToFileUri(p, { platform: 'posix' });

test('RT2 (host side): non-file roots stay virtual and never reach roots/list', async () => {
  verifies('ROOTS-URI-FILE');
  const reg = new RootRegistry();
  reg.add('file:///home/u/project', { name: 'project' });
  reg.add('https://example.com/repo', { name: 'repo' });
  reg.add('sales://emea');
  assert.deepEqual(reg.rootsForServer('fs'), [{ uri: 'file:///home/u/project', name: 'project' }]);
  assert.deepEqual(
    reg.list({ virtual: true }).map((r) => r.uri),
    ['https://example.com/repo', 'sales://emea'],
  );
  assert.equal(reg.get('HTTPS://example.com/repo/')?.virtual, true);
  assert.throws(() => reg.add('no scheme'), UriError);
});

test('add/remove/list with lifetime and source; URIs are normalised; requests end', async () => {
  const reg = new RootRegistry();
  const changes: RootsChange[] = [];
  reg.on('change', (c) => changes.push(c));
  reg.add('file:///c%3A/temp/', { lifetime: 'app', source: 'config' });
  reg.add('file:///C:/temp', { lifetime: 'app', source: 'config' }); // same root, nothing new
  reg.add('file:///tmp/req', { lifetime: 'request', source: 'tool', requestId: 'r1' });
  assert.deepEqual(
    reg.list().map((r) => [r.uri, r.lifetime, r.source]),
    [
      ['file:///C:/temp', 'app', 'config'],
      ['file:///tmp/req', 'request', 'tool'],
    ],
  );
  assert.deepEqual(
    changes.map((c) => c.reason),
    ['add', 'add'],
  );
  reg.add('file:///C:/temp', { lifetime: 'app', source: 'user', name: 'temp' });
  assert.equal(changes.at(-1)!.reason, 'update');
  assert.equal(reg.endRequest('r1'), 1);
  assert.equal(reg.remove('file:///c:/temp/'), true);
  assert.equal(reg.remove('file:///C:/temp'), false);
  assert.deepEqual(reg.list(), []);
  assert.deepEqual(
    changes.map((c) => c.reason),
    ['add', 'add', 'update', 'remove', 'remove'],
  );
});

test('least privilege: routed roots only reach their servers; defaultRootsToAll decides unrouted roots', async () => {
  verifies('ROOTS-CLIENT-EXPOSE-PERMITTED');
  const routes = [
    { match: 'file:///srv/data/**', servers: ['fs'] },
    { match: 'file:///srv/crm/**', servers: ['crm'] },
  ];
  for (const defaultRootsToAll of [true, false]) {
    const reg = new RootRegistry({ routes, defaultRootsToAll });
    reg.add('file:///srv/data');
    reg.add('file:///srv/crm/exports');
    reg.add('file:///home/u/scratch'); // no route
    reg.add('file:///srv/data2'); // a prefix sibling is not routed by file:///srv/data/**
    const shared = defaultRootsToAll ? ['file:///home/u/scratch', 'file:///srv/data2'] : [];
    assert.deepEqual(
      reg.rootsForServer('fs').map((r) => r.uri),
      ['file:///srv/data', ...shared],
      `fs, defaultRootsToAll=${defaultRootsToAll}`,
    );
    assert.deepEqual(
      reg.rootsForServer('crm').map((r) => r.uri),
      ['file:///srv/crm/exports', ...shared],
    );
    assert.deepEqual(
      reg.rootsForServer('other').map((r) => r.uri),
      shared,
    );
  }
  // A route for a sub-directory does not grant the parent root.
  const reg = new RootRegistry({ routes: [{ match: 'file:///srv/data/reports/**', servers: ['reports'] }], defaultRootsToAll: false });
  reg.add('file:///srv/data');
  assert.deepEqual(reg.rootsForServer('reports'), []);
});

test('root URIs are normalised before routing, so dot segments cannot borrow a route', async () => {
  verifies('ROOTS-CLIENT-VALIDATE-URIS');
  const reg = new RootRegistry({ routes: [{ match: 'file:///srv/data/**', servers: ['fs'] }], defaultRootsToAll: false });
  for (const u of ['file:///srv/data/../../etc', 'file:///srv/data/%2E%2E/%2e%2E/etc', 'file:///srv/data/./../../etc/']) {
    assert.equal(reg.add(u).uri, 'file:///etc', u);
  }
  assert.deepEqual(reg.rootsForServer('fs'), []);
  assert.throws(() => reg.add('file:///srv/data/%2F..%2F..%2Fetc'), UriError); // encoded separators are refused
  // addChecked validates before anyone sees it; clear() ends a lifetime.
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'parley-add-')));
  try {
    const r = await reg.addChecked(uri(join(base, 'missing')), { lifetime: 'request', requestId: 'q' });
    assert.equal(r.health?.status, 'missing');
    assert.equal(reg.clear('request'), 1);
    assert.equal(reg.clear('session'), 1);
    assert.deepEqual(reg.list(), []);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('dynamic discovery routes roots and announces who lost or gained one', async () => {
  const reg = new RootRegistry();
  reg.add('file:///home/u/p');
  assert.equal(reg.rootsForServer('a').length, 1);
  assert.equal(reg.rootsForServer('fs').length, 1);
  const changes: RootsChange[] = [];
  reg.on('change', (c) => changes.push(c));
  reg.setDiscovery('fs', { uriTemplates: ['file:///{+path}'] });
  assert.deepEqual(changes.at(-1), { reason: 'routes', uris: [], servers: ['a'] }); // a lost the root
  assert.deepEqual(reg.rootsForServer('a'), []);
  assert.deepEqual(reg.serversFor('file:///home/u/p/x'), ['fs']);
});

test('change events name exactly the servers that saw a different list', async () => {
  const reg = new RootRegistry({ routes: [{ match: 'file:///srv/a/**', servers: ['A'] }] });
  const changes: RootsChange[] = [];
  const off = reg.on('change', (c) => changes.push(c));
  reg.on('change', () => {
    throw new Error('a broken listener does not stop others');
  });
  reg.add('file:///srv/a');
  assert.deepEqual(changes.at(-1)!.servers, []); // nobody has asked yet
  reg.rootsForServer('A');
  reg.rootsForServer('B');
  reg.add('file:///srv/a/../a/'); // same root: no event
  assert.equal(changes.length, 1);
  reg.add('file:///home/u'); // unrouted → every server
  assert.deepEqual(changes.at(-1), { reason: 'add', uris: ['file:///home/u'], servers: ['A', 'B'] });
  reg.rootsForServer('A');
  reg.remove('file:///srv/a');
  assert.deepEqual(changes.at(-1)!.servers, ['A', 'B']); // B still holds its old (pre-/home/u) list
  reg.rootsForServer('A');
  reg.rootsForServer('B');
  reg.invalidate('file:///home/u');
  assert.deepEqual(changes.at(-1), { reason: 'invalidate', uris: ['file:///home/u'], servers: ['A', 'B'] });
  off();
  reg.add('file:///x');
  assert.equal(changes.at(-1)!.reason, 'invalidate');
});

test('health: a removed directory emits a change, leaves roots/list, and comes back', async () => {
  verifies('ROOTS-CLIENT-MONITOR');
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'parley-health-')));
  try {
    const dir = join(base, 'proj');
    mkdirSync(dir);
    writeFileSync(join(base, 'file.txt'), 'x');
    const reg = new RootRegistry({ healthTimeoutMs: 10_000 }); // real stats: only a hung disk may time out
    reg.add(uri(dir));
    reg.add(uri(join(base, 'file.txt')));
    reg.add('sales://emea');
    const changes: RootsChange[] = [];
    reg.on('change', (c) => changes.push(c));
    const first = await reg.check();
    assert.deepEqual(
      [...first.values()].map((h) => [h.status, h.kind]),
      [
        ['ok', 'directory'],
        ['ok', 'file'],
        ['virtual', undefined],
      ],
    );
    assert.equal(reg.rootsForServer('fs').length, 2);
    const n = changes.length;
    await reg.check();
    assert.equal(changes.length, n, 'an unchanged status emits nothing');
    rmSync(dir, { recursive: true });
    const second = await reg.check(uri(dir));
    assert.equal(second.get(uri(dir))!.status, 'missing');
    assert.deepEqual(changes.at(-1), { reason: 'health', uris: [uri(dir)], servers: ['fs'] });
    assert.deepEqual(
      reg.rootsForServer('fs').map((r) => r.uri),
      [uri(join(base, 'file.txt'))],
    );
    mkdirSync(dir);
    await reg.check();
    assert.equal(reg.rootsForServer('fs').length, 2);
    if (process.getuid?.() !== 0) {
      chmodSync(dir, 0o000);
      assert.equal((await checkRootHealth(uri(dir))).status, 'unreadable');
      chmodSync(dir, 0o755);
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('a hung file system yields status timeout within the bound', async () => {
  const hung = { stat: () => new Promise<never>(() => {}), access: async () => {} } as never;
  // The stat never settles: only the 30 ms check bound ends the check.
  const h = await bounded(
    checkRootHealth('file:///mnt/hung', { timeoutMs: 30, fs: hung }),
    15_000,
    'the health check of a hung file system',
  );
  assert.equal(h.status, 'timeout');
  assert.match(h.error!, /30 ms/);
  assert.equal((await checkRootHealth('file:///%zz')).status, 'unreadable');
});

test('periodic health checks run on the documented interval and stop on close', async () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'parley-health-')));
  const reg = new RootRegistry({ healthIntervalMs: 10 });
  try {
    reg.add(uri(join(base, 'gone')));
    const got = new Promise<RootsChange>((resolve) => reg.on('change', resolve));
    reg.startHealthChecks();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no health change within 15 s')), 15_000)));
    const change = await Promise.race([got, bound]).finally(() => clearTimeout(timer));
    assert.equal(change.reason, 'health');
    assert.equal(reg.get(uri(join(base, 'gone')))!.health!.status, 'missing');
  } finally {
    reg.close();
    rmSync(base, { recursive: true, force: true });
  }
});

test('persistence: app and session roots go through the Store seam; request and config roots do not', async () => {
  const store = memoryStore();
  const scope = { tenant: 't', user: 'u', session: 's1' };
  const reg = new RootRegistry({ store, scope });
  reg.add('file:///app', { lifetime: 'app' });
  reg.add('file:///sess', { lifetime: 'session' });
  reg.add('file:///req', { lifetime: 'request', requestId: 'r' });
  reg.add('file:///cfg', { lifetime: 'app', source: 'config' });
  reg.add('sales://emea', { lifetime: 'app', source: 'upstream' });
  await reg.flush();
  assert.deepEqual(
    store.rows.map((r) => [r.uri, r.scope.session]),
    [
      ['file:///app', null],
      ['file:///sess', 's1'],
      ['sales://emea', null],
    ],
  );
  reg.add('file:///sess', { lifetime: 'app' }); // moves from session to app scope
  await reg.flush();
  assert.deepEqual(
    store.rows.map((r) => [r.uri, r.scope.session]),
    [
      ['file:///app', null],
      ['sales://emea', null],
      ['file:///sess', null],
    ],
  );
  reg.remove('file:///app');
  await reg.flush();
  // A new registry for another session sees app roots only; the same session would see its own too.
  await store.putRoot({ scope, uri: 'file:///other-sess', lifetime: 'session', source: 'user' });
  await store.putRoot({ scope: { ...scope, session: null }, uri: 'not a uri', lifetime: 'app', source: 'user' }); // corrupt row: skipped
  const other = new RootRegistry({ store, scope: { ...scope, session: 's2' } });
  await other.ready;
  assert.deepEqual(
    other.list().map((r) => r.uri),
    ['sales://emea', 'file:///sess'],
  );
  const same = new RootRegistry({ store, scope });
  await same.ready;
  assert.deepEqual(
    same.list().map((r) => [r.uri, r.virtual]),
    [
      ['sales://emea', true],
      ['file:///sess', false],
      ['file:///other-sess', false],
    ],
  );
});

test('a configuration root over a stored one keeps the stored row; the stored root returns once the configuration drops it', async () => {
  const store = memoryStore();
  const scope = { tenant: 't', user: 'u', session: null };
  const first = new RootRegistry({ store, scope });
  first.add('file:///both', { lifetime: 'app', name: 'mine' });
  await first.flush();
  // Next command: the configuration now names the same root (added after the store is read, as the CLI does).
  const second = new RootRegistry({ store, scope });
  await second.ready;
  second.add('file:///both', { lifetime: 'app', source: 'config', name: 'from config' });
  await second.flush();
  assert.deepEqual(
    second.list().map((r) => [r.uri, r.source, r.name]),
    [['file:///both', 'config', 'from config']],
  );
  assert.deepEqual(
    store.rows.map((r) => [r.uri, r.source, r.name]),
    [['file:///both', 'user', 'mine']],
  );
  // The configuration no longer names it: the stored root is there, as it was added.
  const third = new RootRegistry({ store, scope });
  await third.ready;
  assert.deepEqual(
    third.list().map((r) => [r.uri, r.source, r.name]),
    [['file:///both', 'user', 'mine']],
  );
});
