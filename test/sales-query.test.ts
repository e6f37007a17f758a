// query_sales domain: the negotiated configuration (table, range, from/to, region), parameterised SQL only.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { z } from 'zod';
import fc from 'fast-check';
import { openSalesDb } from '../servers/sales/data.js';
import { SalesQuery } from '../servers/sales/query.js';
import { resolveRange, SalesConfigError, SALES_TABLES, SALES_CONFIG_DEFAULTS, isIsoDate } from '../servers/sales/config.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-salesq-'));
const { db } = openSalesDb(join(dir, 'sales.db'));
const q = new SalesQuery(db);
after(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function refusal(fn: () => unknown): SalesConfigError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof SalesConfigError, `expected SalesConfigError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the config to be refused');
}

test('last_month and last_quarter are the calendar month/quarter containing the newest order date', () => {
  assert.equal(q.newest, '2025-12-31');
  assert.deepEqual(resolveRange({ range: 'last_month' }, q.newest), { from: '2025-12-01', to: '2025-12-31' });
  assert.deepEqual(resolveRange({ range: 'last_quarter' }, q.newest), { from: '2025-10-01', to: '2025-12-31' });
  assert.deepEqual(resolveRange({ range: 'last_month' }, '2024-02-10'), { from: '2024-02-01', to: '2024-02-29' });
  assert.deepEqual(resolveRange({ range: 'last_quarter' }, '2025-05-01'), { from: '2025-04-01', to: '2025-06-30' });
  assert.deepEqual(resolveRange({ range: 'custom', from: '2024-03-01', to: '2024-03-02' }, q.newest), {
    from: '2024-03-01',
    to: '2024-03-02',
  });
});

test('every range option runs; summaries agree with the rows and with each other', () => {
  const month = q.run({ table: 'orders', range: 'last_month', region: 'all' });
  const quarter = q.run({ ...SALES_CONFIG_DEFAULTS });
  const custom = q.run({ table: 'orders', range: 'custom', from: '2024-01-01', to: '2025-12-31', region: 'all' });
  assert.deepEqual([month.from, month.to], ['2025-12-01', '2025-12-31']);
  assert.deepEqual(
    quarter.summary.byMonth.map((m) => m.month),
    ['2025-10', '2025-11', '2025-12'],
  );
  assert.equal(month.summary.byMonth.length, 1);
  assert.equal(month.summary.orders, quarter.summary.byMonth[2].orders);
  assert.equal(custom.summary.orders, 60374);
  assert.equal(custom.summary.byMonth.length, 24);
  for (const r of [month, quarter, custom]) {
    assert.equal(r.rows.length, 100);
    assert.equal(r.truncated, true);
    assert.ok(r.rows.every((row) => String(row.order_date) >= r.from && String(row.order_date) <= r.to));
    assert.equal(
      r.summary.byRegion.reduce((a, x) => a + x.orders, 0),
      r.summary.orders,
    );
    assert.equal(
      r.summary.byMonth.reduce((a, x) => a + x.orders, 0),
      r.summary.orders,
    );
    const sum = r.summary.byRegion.reduce((a, x) => a + x.revenue, 0);
    assert.ok(Math.abs(sum - r.summary.revenue) < 0.01 * r.summary.byRegion.length);
  }
  assert.deepEqual(month.rows[0], q.run({ table: 'orders', range: 'last_month', region: 'all' }).rows[0]);
  assert.equal(month.rows[0].order_date, '2025-12-31');
  assert.deepEqual(month.columns.slice(0, 4), ['id', 'order_date', 'region', 'region_en']);
});

test('region filter, aggregate tables and the row limit', () => {
  const bj = q.run({ table: 'orders', range: 'last_quarter', region: '北京' }, { limit: 5000 });
  assert.ok(bj.rows.length > 0 && bj.rows.length <= 1000);
  assert.ok(bj.rows.every((r) => r.region === '北京' && r.region_en === 'Beijing'));
  assert.deepEqual(
    bj.summary.byRegion.map((r) => r.region),
    ['北京'],
  );
  const regions = q.run({ table: 'regions', range: 'last_quarter', region: 'all' });
  assert.equal(regions.rows.length, q.regions.length);
  assert.equal(regions.truncated, false);
  assert.equal(regions.rows.find((r) => r.region === '北京')?.orders, bj.summary.orders);
  const products = q.run({ table: 'products', range: 'last_month', region: '深圳' });
  assert.ok(products.rows.length > 0 && products.columns.includes('category'));
  const channels = q.run({ table: 'channels', range: 'last_month', region: 'all' });
  assert.deepEqual(new Set(channels.rows.map((r) => r.channel)), new Set(['online', 'retail', 'partner', 'wholesale']));
  assert.equal(
    channels.rows.reduce((a, r) => a + Number(r.orders), 0),
    channels.summary.orders,
  );
  const empty = q.run({ table: 'orders', range: 'custom', from: '2030-01-01', to: '2030-12-31', region: 'all' });
  assert.deepEqual([empty.rows.length, empty.summary.orders, empty.summary.revenue, empty.truncated], [0, 0, 0, false]);
});

test('custom range: from and to are required, must be calendar dates and in order; clear messages name the field', () => {
  let e = refusal(() => q.run({ table: 'orders', range: 'custom', region: 'all' }));
  assert.deepEqual(e.issues.map((i) => i.path).sort(), ['/from', '/to']);
  assert.match(e.issues[0].message, /required when range is 'custom'.*YYYY-MM-DD/);
  e = refusal(() => q.run({ table: 'orders', range: 'custom', from: '2024-01-01', region: 'all' }));
  assert.deepEqual(
    e.issues.map((i) => i.path),
    ['/to'],
  );
  e = refusal(() => q.run({ table: 'orders', range: 'custom', from: '2025-02-30', to: '2025-03-01', region: 'all' }));
  assert.deepEqual(
    e.issues.map((i) => i.path),
    ['/from'],
  );
  assert.match(e.message, /not a calendar date/);
  e = refusal(() => q.run({ table: 'orders', range: 'custom', from: '2025-03-02', to: '2025-03-01', region: 'all' }));
  assert.match(e.message, /\/to: to \(2025-03-01\) is before from \(2025-03-02\)/);
  // from/to are optional for relative ranges
  assert.equal(q.run({ table: 'orders', range: 'last_month', region: 'all' }).from, '2025-12-01');
  assert.ok(isIsoDate('2024-02-29') && !isIsoDate('2025-02-29') && !isIsoDate('2025-1-01'));
});

test('the config schema is flat: enums from the data, date fields as format date (no regex)', () => {
  const json = z.toJSONSchema(q.schema) as {
    properties: Record<string, { enum?: string[]; format?: string; pattern?: string }>;
    required: string[];
  };
  assert.deepEqual(json.properties.table.enum, [...SALES_TABLES]);
  assert.deepEqual(json.properties.range.enum, ['last_quarter', 'last_month', 'custom']);
  assert.deepEqual(json.properties.region.enum, ['all', ...q.regions]);
  assert.equal(json.properties.from.format, 'date');
  assert.equal(json.properties.from.pattern, undefined);
  assert.deepEqual(json.required.sort(), ['range', 'region', 'table']);
});

test('SQL injection in region or table is refused by the enum; nothing user-supplied reaches SQL text', () => {
  const evilRegion = "北京'; DROP TABLE orders;--";
  let e = refusal(() => q.run({ table: 'orders', range: 'last_month', region: evilRegion }));
  assert.deepEqual(
    e.issues.map((i) => i.path),
    ['/region'],
  );
  e = refusal(() => q.run({ table: 'orders; DROP TABLE orders', range: 'last_month', region: 'all' }));
  assert.deepEqual(
    e.issues.map((i) => i.path),
    ['/table'],
  );
  refusal(() => q.run({ table: 'sqlite_master', range: 'last_month', region: 'all' }));
  assert.ok(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'orders'").get());
  assert.ok((db.prepare('SELECT COUNT(*) AS n FROM orders').get() as { n: number }).n >= 50_000);

  // Record every SQL text prepared during valid queries: no user value appears in any of them.
  const seen: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => (seen.push(sql), prepare(sql))) as typeof db.prepare;
  try {
    for (const table of SALES_TABLES) q.run({ table, range: 'custom', from: '2024-06-01', to: '2024-06-30', region: '上海' });
  } finally {
    db.prepare = prepare;
  }
  assert.ok(seen.length >= SALES_TABLES.length);
  for (const sql of seen) {
    for (const v of ['上海', '2024-06-01', '2024-06-30']) assert.ok(!sql.includes(v), `SQL text contains user value ${v}: ${sql}`);
  }
});

test('property: any region or table value outside the enums is refused, and the data is untouched', () => {
  const before = (db.prepare('SELECT COUNT(*) AS n FROM orders').get() as { n: number }).n;
  const sqlish = fc.oneof(
    fc.string(),
    fc.constantFrom("' OR 1=1 --", '"; DELETE FROM orders; --', '北京\u0000', ' 北京', '北京 ', 'ALL', 'orders ', 'Orders'),
  );
  fc.assert(
    fc.property(sqlish, (v) => {
      fc.pre(!q.regions.includes(v) && v !== 'all');
      assert.deepEqual(
        refusal(() => q.run({ table: 'orders', range: 'last_month', region: v })).issues.map((i) => i.path),
        ['/region'],
      );
      fc.pre(!(SALES_TABLES as readonly string[]).includes(v));
      assert.deepEqual(
        refusal(() => q.run({ table: v, range: 'last_month', region: 'all' })).issues.map((i) => i.path),
        ['/table'],
      );
    }),
    { numRuns: 300, seed: 11 },
  );
  assert.equal((db.prepare('SELECT COUNT(*) AS n FROM orders').get() as { n: number }).n, before);
});
