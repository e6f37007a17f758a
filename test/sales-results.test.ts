// Query results saved as resources sales://results/{id} (JSON) and sales://results/{id}/csv (CSV).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { openSalesDb } from '../servers/sales/data.js';
import { SalesQuery, describeResult } from '../servers/sales/query.js';
import { ResultStore, toCsv } from '../servers/sales/results.js';
import { parseCsv, tableFromQueryResult } from '../servers/charts/data.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-salesr-'));
const { db } = openSalesDb(join(dir, 'sales.db'));
const q = new SalesQuery(db);
after(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a saved result reads back as JSON with its rows and summary; ids are deterministic per query', () => {
  const store = new ResultStore();
  const r = q.run({ table: 'regions', range: 'last_quarter', region: 'all' });
  const saved = store.save(r);
  assert.match(saved.uri, /^sales:\/\/results\/[0-9a-f]{16}$/);
  assert.equal(saved.csvUri, `${saved.uri}/csv`);
  const again = store.save(q.run({ table: 'regions', range: 'last_quarter', region: 'all' }));
  assert.equal(again.id, saved.id);
  assert.equal(store.list().length, 1);
  const other = store.save(q.run({ table: 'regions', range: 'last_month', region: 'all' }));
  assert.notEqual(other.id, saved.id);

  const content = store.read(saved.uri);
  assert.ok(content);
  assert.equal(content.mimeType, 'application/json');
  const body = JSON.parse(content.text);
  assert.equal(body.uri, saved.uri);
  assert.deepEqual(body.rows, r.rows);
  assert.deepEqual(body.summary, r.summary);
  assert.deepEqual([body.from, body.to], ['2025-10-01', '2025-12-31']);
  assert.match(describeResult(r), /2025-10-01\.\.2025-12-31 · region all: \d+ orders/);
});

test('the CSV form round-trips through the charts CSV parser', () => {
  const store = new ResultStore();
  const saved = store.save(q.run({ table: 'orders', range: 'last_month', region: '广州' }, { limit: 50 }));
  const csv = store.read(saved.csvUri);
  assert.ok(csv);
  assert.equal(csv.mimeType, 'text/csv');
  const parsed = parseCsv(csv.text);
  assert.deepEqual(parsed.columns, saved.columns);
  assert.equal(parsed.rows.length, 50);
  assert.deepEqual(parsed.rows[0], saved.rows[0]);
});

test('unknown, malformed or evicted URIs read as undefined', () => {
  const store = new ResultStore(2);
  const a = store.save(q.run({ table: 'regions', range: 'last_month', region: 'all' }));
  store.save(q.run({ table: 'channels', range: 'last_month', region: 'all' }));
  store.save(q.run({ table: 'products', range: 'last_month', region: 'all' }));
  assert.equal(store.read(a.uri), undefined, 'oldest evicted');
  assert.equal(store.list().length, 2);
  for (const uri of [
    'sales://results/',
    'sales://results/zzzz',
    'sales://results/0123456789abcdef',
    `${store.list()[0].uri}/xml`,
    `file:///etc/passwd`,
  ]) {
    assert.equal(store.read(uri), undefined, uri);
  }
});

test('toCsv quotes commas, quotes and newlines (RFC 4180) and writes null as empty', () => {
  const csv = toCsv(
    ['a', 'b', 'c'],
    [
      { a: 'x,y', b: 'say "hi"', c: null },
      { a: 'line\nbreak', b: 1.5, c: '' },
    ],
  );
  assert.equal(csv, 'a,b,c\r\n"x,y","say ""hi""",\r\n"line\nbreak",1.5,\r\n');
});

test('results persist in a directory, so another process opening the same database resolves sales://results/{id}', async () => {
  const { ResultStore } = await import('../servers/sales/results.js');
  const { mkdtempSync, rmSync, readdirSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'parley-results-'));
  try {
    const writer = new ResultStore(10, dir);
    const saved = writer.save({
      config: { table: 'orders', range: 'last_month', region: '北京' },
      from: '2025-12-01',
      to: '2025-12-31',
      columns: ['region', 'revenue'],
      rows: [{ region: '北京', revenue: 12.5 }],
      summary: { count: 1 },
    } as never);
    const reader = new ResultStore(10, dir); // a second process: nothing in memory
    assert.equal(reader.get(saved.id)?.rows.length, 1);
    assert.match(reader.read(saved.uri)!.text, /北京/);
    assert.match(reader.read(saved.csvUri)!.text, /region,revenue/);
    assert.equal(reader.get('0000000000000000'), undefined);
    assert.equal(reader.get('../../etc/passwd'), undefined, 'ids are validated before touching the file system');
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.endsWith('.tmp')),
      [],
      'writes are atomic (no temp files left)',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('counts read as English: one row is "1 row", one order "1 order" (summary text and its chart note)', () => {
  const one = q.run({ table: 'regions', range: 'last_quarter', region: '北京' });
  assert.equal(one.rows.length, 1);
  assert.match(describeResult(one), /\n1 row$/);
  const single = {
    ...one,
    summary: { ...one.summary, orders: 1, units: 1, byMonth: [{ month: '2025-12', orders: 1, units: 1, revenue: 9.5 }] },
  };
  const text = describeResult(single);
  assert.match(text, /: 1 order, 1 unit, revenue/);
  assert.match(text, /2025-12: 1 order, ¥9\.50/);
  const results = new ResultStore();
  const saved = results.read(results.save(single).uri);
  const note = tableFromQueryResult(saved ? saved.text : '', 'sales://results/x').note ?? '';
  assert.match(note, /this chart shows the one region of the result \(revenue ¥[\d.]+ in 1 order\)/);
});
