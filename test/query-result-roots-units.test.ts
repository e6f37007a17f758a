// QueryResultRoots (src/host/roots/query-results.ts) on a real RootRegistry, with the producer's
// resources/read scripted: the documented bounds (bytes, count), who receives a root, what is ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RootRegistry } from '../src/host/roots/index.js';
import { QueryResultRoots, queryResultRole, QUERY_RESULT_ROOTS_CAPABILITY } from '../src/host/roots/query-results.js';

const caps: Record<string, unknown> = {
  sales: { experimental: { [QUERY_RESULT_ROOTS_CAPABILITY]: { produces: ['sales://results/{id}'] } } },
  charts: { experimental: { [QUERY_RESULT_ROOTS_CAPABILITY]: { consumes: true } } },
  other: {},
};

function setup(o: { maxRoots?: number; maxBytes?: number; read?: (uri: string) => unknown } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'parley-qr-units-'));
  const roots = new RootRegistry();
  const reads: string[] = [];
  const qr = new QueryResultRoots(
    {
      roots,
      capabilities: (s) => caps[s],
      names: () => Object.keys(caps),
      ensureRunning: async () => undefined,
      readResource: async (server, uri) => {
        reads.push(`${server} ${uri}`);
        return (o.read?.(uri) ?? { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ uri, rows: [] }) }] }) as never;
      },
    },
    { dir, maxRoots: o.maxRoots, maxBytes: o.maxBytes },
  );
  const link = (uri: string) => ({ content: [{ type: 'resource_link' as const, uri, name: 'r' }] });
  return { dir, roots, qr, reads, link, done: () => (qr.close(), roots.close(), rmSync(dir, { recursive: true, force: true })) };
}

test('queryResultRole reads both roles and ignores other shapes', () => {
  assert.deepEqual(queryResultRole(caps.sales), { produces: ['sales://results/{id}'], consumes: false });
  assert.deepEqual(queryResultRole(caps.charts), { produces: [], consumes: true });
  for (const bad of [undefined, null, 7, { experimental: { [QUERY_RESULT_ROOTS_CAPABILITY]: { produces: 'x', consumes: 'yes' } } }])
    assert.deepEqual(queryResultRole(bad), { produces: [], consumes: false });
});

test('a linked result becomes a 0600 file in a file:// root named with its URI, for consumers only', async () => {
  const t = setup();
  try {
    await t.qr.afterCall('sales', t.link('sales://results/aaaa') as never);
    const [root] = t.roots.list();
    assert.equal(root.name, 'sales://results/aaaa');
    const file = join(fileURLToPath(root.uri), 'result.json');
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).uri, 'sales://results/aaaa');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(
      t.roots.rootsForServer('charts').map((r) => r.name),
      ['sales://results/aaaa'],
    );
    assert.deepEqual(t.roots.rootsForServer('sales'), []);
    assert.deepEqual(t.roots.rootsForServer('other'), []);
  } finally {
    t.done();
  }
});

test('ignored: links of servers that declared nothing, links outside the templates, error results', async () => {
  const t = setup();
  try {
    await t.qr.afterCall('other', t.link('sales://results/aaaa') as never);
    await t.qr.afterCall('sales', t.link('https://example.com/x') as never);
    await t.qr.afterCall('sales', { ...t.link('sales://results/bbbb'), isError: true } as never);
    await t.qr.afterCall('sales', t.link('sales://results/cccc/csv') as never);
    assert.deepEqual(t.reads, []);
    assert.deepEqual(t.roots.list(), []);
  } finally {
    t.done();
  }
});

test('bounds: a result over maxBytes is not handed over; past maxRoots the oldest root and its file go', async () => {
  const t = setup({
    maxRoots: 2,
    maxBytes: 100,
    read: (uri) => ({ contents: [{ uri, mimeType: 'text/csv', text: uri.endsWith('big') ? 'x'.repeat(101) : 'a,b\n1,2\n' }] }),
  });
  try {
    await t.qr.afterCall('sales', t.link('sales://results/big') as never);
    assert.deepEqual(t.roots.list(), [], 'over 100 bytes');
    for (const id of ['one', 'two', 'three']) await t.qr.afterCall('sales', t.link(`sales://results/${id}`) as never);
    assert.deepEqual(
      t.qr.list().map((e) => e.resource),
      ['sales://results/two', 'sales://results/three'],
    );
    assert.deepEqual(
      t.roots
        .list()
        .map((r) => r.name)
        .sort(),
      ['sales://results/three', 'sales://results/two'],
    );
    assert.ok(t.qr.list().every((e) => e.file.endsWith('result.csv') && existsSync(e.file)));
    assert.equal(readdirSync(t.dir).length, 1, 'one session folder');
    t.qr.close();
    assert.deepEqual(readdirSync(t.dir), [], 'close() removed the files');
    assert.deepEqual(t.roots.list(), [], 'and the roots');
  } finally {
    t.done();
  }
});

test('beforeCall: only a consumer, only an uncaptured result URI of another server, read from its producer', async () => {
  const t = setup();
  try {
    await t.qr.beforeCall('other', { data_source: 'sales://results/dddd' });
    await t.qr.beforeCall('charts', { data_source: 'file:///tmp/x.csv', n: 3, other: 'not a uri' });
    assert.deepEqual(t.reads, []);
    await t.qr.beforeCall('charts', { data_source: 'sales://results/dddd' });
    assert.deepEqual(t.reads, ['sales sales://results/dddd']);
    await t.qr.beforeCall('charts', { data_source: 'sales://results/dddd' });
    assert.equal(t.reads.length, 1, 'captured once');
    // Removed by a person (console Roots panel): the next call hands it over again.
    t.roots.remove(t.roots.list()[0].uri);
    await t.qr.beforeCall('charts', { data_source: 'sales://results/dddd' });
    assert.equal(t.reads.length, 2, 'captured again');
    assert.equal(t.roots.list().length, 1);
    // A failing read is logged, not thrown: the consumer then says the result is missing.
    const failing = setup({
      read: () => {
        throw new Error('gone');
      },
    });
    await failing.qr.beforeCall('charts', { data_source: 'sales://results/eeee' });
    assert.deepEqual(failing.roots.list(), []);
    failing.done();
  } finally {
    t.done();
  }
});
