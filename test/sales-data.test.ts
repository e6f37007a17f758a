// The generated sales database: deterministic, big enough, complete, reopened rather than regenerated.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import Database from 'better-sqlite3';
import {
  openSalesDb,
  SalesDbError,
  newestOrderDate,
  regionNames,
  days,
  SALES_DB_VERSION,
  FIRST_DAY,
  LAST_DAY,
} from '../servers/sales/data.js';
import { mulberry32 } from '../servers/sales/prng.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-sales-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const FIRST_ROWS = 'SELECT * FROM orders ORDER BY id LIMIT 20';
const COUNTS = 'SELECT COUNT(*) AS n, SUM(revenue_fen) AS rev, SUM(quantity) AS units FROM orders';

test('mulberry32 gives a fixed sequence for a fixed seed (machine independent integer arithmetic)', () => {
  const r = mulberry32(1);
  const first = [r(), r(), r()];
  assert.deepEqual(first, [0.6270739405881613, 0.002735721180215478, 0.5274470399599522]);
  const a = mulberry32(42),
    b = mulberry32(42),
    c = mulberry32(43);
  const sa = Array.from({ length: 100 }, a),
    sb = Array.from({ length: 100 }, b),
    sc = Array.from({ length: 100 }, c);
  assert.deepEqual(sa, sb);
  assert.notDeepEqual(sa, sc);
  assert.ok(sa.every((x) => x >= 0 && x < 1));
});

test('two generations into two files from the same seed are identical; another seed differs', () => {
  const one = openSalesDb(join(dir, 'a', 'sales.db'));
  const two = openSalesDb(join(dir, 'b', 'nested', 'sales.db'));
  const other = openSalesDb(join(dir, 'c.db'), { seed: 7 });
  try {
    assert.equal(one.created, true);
    assert.deepEqual(one.db.prepare(FIRST_ROWS).all(), two.db.prepare(FIRST_ROWS).all());
    assert.deepEqual(one.db.prepare(COUNTS).get(), two.db.prepare(COUNTS).get());
    assert.notDeepEqual(one.db.prepare(FIRST_ROWS).all(), other.db.prepare(FIRST_ROWS).all());
    // Golden values: the default seed gives exactly this data on every machine.
    assert.deepEqual({ ...(one.db.prepare(COUNTS).get() as object) }, { n: 60374, rev: 4622415565, units: 124969 });
  } finally {
    one.db.close();
    two.db.close();
    other.db.close();
  }
});

test('the database holds >= 50,000 orders over two full years, all regions, categories and channels', () => {
  const { db } = openSalesDb(join(dir, 'a', 'sales.db'));
  try {
    const { n } = db.prepare('SELECT COUNT(*) AS n FROM orders').get() as { n: number };
    assert.ok(n >= 50_000, `only ${n} orders`);
    const span = db.prepare('SELECT MIN(order_date) AS lo, MAX(order_date) AS hi, COUNT(DISTINCT order_date) AS d FROM orders').get();
    assert.deepEqual(span, { lo: FIRST_DAY, hi: LAST_DAY, d: 731 });
    assert.equal(newestOrderDate(db), '2025-12-31');
    const names = db.prepare('SELECT name_zh, name_en FROM regions').all() as { name_zh: string; name_en: string }[];
    for (const [zh, en] of [
      ['北京', 'Beijing'],
      ['上海', 'Shanghai'],
      ['广州', 'Guangzhou'],
      ['深圳', 'Shenzhen'],
    ]) {
      assert.ok(
        names.some((r) => r.name_zh === zh && r.name_en === en),
        `region ${zh}/${en} missing`,
      );
    }
    assert.ok(names.length >= 8);
    assert.deepEqual(regionNames(db).slice(0, 4), ['北京', '上海', '广州', '深圳']);
    // every region actually has orders
    const used = db.prepare('SELECT COUNT(DISTINCT region_id) AS k FROM orders').get() as { k: number };
    assert.equal(used.k, names.length);
    const channels = (db.prepare('SELECT code FROM channels').all() as { code: string }[]).map((c) => c.code);
    for (const c of ['online', 'retail', 'partner']) assert.ok(channels.includes(c));
    const cats = db.prepare('SELECT COUNT(DISTINCT category) AS k FROM products').get() as { k: number };
    assert.ok(cats.k >= 3);
    const bad = db.prepare('SELECT COUNT(*) AS k FROM orders WHERE revenue_fen != unit_price_fen * quantity OR quantity < 1').get() as {
      k: number;
    };
    assert.equal(bad.k, 0);
  } finally {
    db.close();
  }
});

test('an existing complete database is reopened read-only, not regenerated', () => {
  const again = openSalesDb(join(dir, 'a', 'sales.db'));
  try {
    assert.equal(again.created, false);
    assert.throws(() => again.db.prepare('DELETE FROM orders').run(), /readonly/i);
    const meta = Object.fromEntries(
      (again.db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]),
    );
    assert.equal(meta.version, String(SALES_DB_VERSION));
    assert.equal(meta.complete, '1');
  } finally {
    again.db.close();
  }
});

test('a stale parley database (older version) is regenerated; an unrelated file is refused and left alone', () => {
  const p = join(dir, 'stale.db');
  openSalesDb(p).db.close();
  const w = new Database(p);
  w.prepare("UPDATE meta SET value = '0' WHERE key = 'version'").run();
  w.close();
  const re = openSalesDb(p);
  assert.equal(re.created, true);
  re.db.close();

  const foreign = join(dir, 'foreign.db');
  writeFileSync(foreign, 'not a database at all');
  assert.throws(
    () => openSalesDb(foreign),
    (e: unknown) => e instanceof SalesDbError && /not a parley sales database/.test(e.message) && e.message.includes(foreign),
  );
  assert.ok(existsSync(foreign));
});

test('days() walks the calendar in UTC, including leap day 2024-02-29', () => {
  const all = days(FIRST_DAY, LAST_DAY);
  assert.equal(all.length, 731);
  assert.ok(all.includes('2024-02-29'));
  assert.deepEqual(days('2025-02-27', '2025-03-01'), ['2025-02-27', '2025-02-28', '2025-03-01']);
});
