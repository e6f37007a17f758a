/**
 * The sales database of the seed essay's SQL example: a SQLite file generated deterministically on first use.
 *
 * Tables (all money in fen = 1/100 CNY, dates as `YYYY-MM-DD` text):
 * - `regions(id, name_zh, name_en)`, `channels(id, code, name)`, `products(id, sku, name, category, price_fen)`
 * - `orders(id, order_date, region_id, channel_id, product_id, quantity, unit_price_fen, revenue_fen)`
 * - `meta(key, value)`: `format`, `version`, `seed`, `orders`, `complete`.
 *
 * Orders cover {@link FIRST_DAY}..{@link LAST_DAY} (two full years; 60,374 orders with the default seed, pinned by test/sales-data.test.ts).
 * Generation runs in one transaction into a temporary file that is renamed into place, so a reader never sees
 * a half-written database. The finished file is re-opened read-only: the query side cannot write.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CHANNELS, MONTH_FACTOR, PRODUCTS, REGIONS } from './catalog.js';
import { mulberry32, pickWeighted } from './prng.js';

export type SalesDb = Database.Database;

/** Bumped whenever the generated content or schema changes; an older file is regenerated. */
export const SALES_DB_VERSION = 1;
export const DEFAULT_SEED = 20240101;
export const DEFAULT_DB_PATH = '.parley/sales.db';
export const FIRST_DAY = '2024-01-01';
export const LAST_DAY = '2025-12-31';
const FORMAT = 'parley-sales';

/** Thrown when `path` holds a file that is not a parley sales database; it is never overwritten. */
export class SalesDbError extends Error {
  override name = 'SalesDbError';
}

export interface OpenSalesDbOptions {
  /** PRNG seed. @default DEFAULT_SEED */
  seed?: number;
}

export interface OpenedSalesDb {
  db: SalesDb;
  /** Absolute path of the database file. */
  path: string;
  /** True when this call generated the file. */
  created: boolean;
}

/**
 * Opens the sales database at `path` (relative to cwd; directories are created), generating it first when it
 * is missing or was written by an older {@link SALES_DB_VERSION} or another seed.
 * @throws SalesDbError when the file exists but is not a parley sales database.
 */
export function openSalesDb(path: string = DEFAULT_DB_PATH, opts: OpenSalesDbOptions = {}): OpenedSalesDb {
  const seed = opts.seed ?? DEFAULT_SEED;
  const abs = resolve(path);
  if (existsSync(abs)) {
    const state = inspect(abs, seed);
    if (state === 'current') return { db: new Database(abs, { readonly: true, fileMustExist: true }), path: abs, created: false };
    if (state === 'foreign') {
      throw new SalesDbError(
        `${abs}: exists but is not a parley sales database (no meta.format = '${FORMAT}'); move it away or pass another path`,
      );
    }
  }
  mkdirSync(dirname(abs), { recursive: true });
  const tmp = `${abs}.tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  const w = new Database(tmp);
  try {
    generate(w, seed);
  } finally {
    w.close();
  }
  renameSync(tmp, abs);
  return { db: new Database(abs, { readonly: true, fileMustExist: true }), path: abs, created: true };
}

function inspect(abs: string, seed: number): 'current' | 'stale' | 'foreign' {
  let db: SalesDb | undefined;
  try {
    db = new Database(abs, { readonly: true, fileMustExist: true });
    const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
    if (!hasMeta) return 'foreign';
    const meta = new Map(
      (db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]),
    );
    if (meta.get('format') !== FORMAT) return 'foreign';
    const ok = meta.get('version') === String(SALES_DB_VERSION) && meta.get('seed') === String(seed) && meta.get('complete') === '1';
    return ok ? 'current' : 'stale';
  } catch {
    return 'foreign';
  } finally {
    db?.close();
  }
}

const DDL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE regions (id INTEGER PRIMARY KEY, name_zh TEXT NOT NULL UNIQUE, name_en TEXT NOT NULL UNIQUE);
CREATE TABLE channels (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
CREATE TABLE products (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, name TEXT NOT NULL, category TEXT NOT NULL, price_fen INTEGER NOT NULL);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY, order_date TEXT NOT NULL,
  region_id INTEGER NOT NULL REFERENCES regions(id), channel_id INTEGER NOT NULL REFERENCES channels(id),
  product_id INTEGER NOT NULL REFERENCES products(id),
  quantity INTEGER NOT NULL, unit_price_fen INTEGER NOT NULL, revenue_fen INTEGER NOT NULL);
`;
const INDEXES = `
CREATE INDEX orders_date ON orders(order_date);
CREATE INDEX orders_region_date ON orders(region_id, order_date);
`;

/** Writes the whole database in one transaction. Orders per day follow month seasonality and 2025 growth. */
function generate(db: SalesDb, seed: number): void {
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec(DDL);
  const rand = mulberry32(seed);
  const regionW = REGIONS.map((r) => r.weight);
  const channelW = CHANNELS.map((c) => c.weight);
  const productW = PRODUCTS.map((p) => p.weight);
  const run = db.transaction(() => {
    const ins = (sql: string) => db.prepare(sql);
    const reg = ins('INSERT INTO regions (id, name_zh, name_en) VALUES (?, ?, ?)');
    REGIONS.forEach((r, i) => reg.run(i + 1, r.nameZh, r.nameEn));
    const ch = ins('INSERT INTO channels (id, code, name) VALUES (?, ?, ?)');
    CHANNELS.forEach((c, i) => ch.run(i + 1, c.code, c.name));
    const pr = ins('INSERT INTO products (id, sku, name, category, price_fen) VALUES (?, ?, ?, ?, ?)');
    PRODUCTS.forEach((p, i) => pr.run(i + 1, p.sku, p.name, p.category, p.priceFen));
    const ord = ins(
      'INSERT INTO orders (order_date, region_id, channel_id, product_id, quantity, unit_price_fen, revenue_fen) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    let count = 0;
    for (const day of days(FIRST_DAY, LAST_DAY)) {
      const month = Number(day.slice(5, 7));
      const growth = day.startsWith('2025') ? 1.12 : 1;
      const n = Math.round(74 * MONTH_FACTOR[month - 1] * growth * (0.8 + 0.4 * rand()));
      for (let k = 0; k < n; k++) {
        const region = pickWeighted(rand, regionW);
        const channel = pickWeighted(rand, channelW);
        const product = pickWeighted(rand, productW);
        const quantity = 1 + Math.floor(rand() * rand() * 6);
        // Partner and wholesale orders get a fixed discount; online orders sometimes a promotion.
        const discount = channel >= 2 ? 0.85 : channel === 0 && rand() < 0.2 ? 0.9 : 1;
        const unit = Math.round(PRODUCTS[product].priceFen * discount);
        ord.run(day, region + 1, channel + 1, product + 1, quantity, unit, unit * quantity);
        count++;
      }
    }
    db.exec(INDEXES);
    const meta = ins('INSERT INTO meta (key, value) VALUES (?, ?)');
    for (const [k, v] of [
      ['format', FORMAT],
      ['version', String(SALES_DB_VERSION)],
      ['seed', String(seed)],
      ['orders', String(count)],
      ['complete', '1'],
    ])
      meta.run(k, v);
  });
  run();
}

/** Every calendar day from `from` to `to` inclusive, as `YYYY-MM-DD` (UTC arithmetic, no DST effects). */
export function days(from: string, to: string): string[] {
  const out: string[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= end; t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** Region names users choose from (`regions.name_zh`, in id order). */
export function regionNames(db: SalesDb): string[] {
  return (db.prepare('SELECT name_zh FROM regions ORDER BY id').all() as { name_zh: string }[]).map((r) => r.name_zh);
}

/** The newest `order_date` in the data; the anchor for `last_month` / `last_quarter`. */
export function newestOrderDate(db: SalesDb): string {
  const row = db.prepare('SELECT MAX(order_date) AS d FROM orders').get() as { d: string | null };
  if (!row.d) throw new SalesDbError('orders table is empty: no newest order date');
  return row.d;
}
