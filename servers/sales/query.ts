/**
 * Runs a validated sales configuration against the database. Parameterised SQL only: every statement below is
 * a constant string; user values travel as bound parameters (`@from`, `@to`, `@region`, `@limit`), and the
 * table choice selects one of the constant statements — it is never spliced into SQL.
 */
import type { SalesDb } from './data.js';
import { newestOrderDate, regionNames } from './data.js';
import type { SalesConfig, SalesConfigObject, SalesConfigSchema, SalesTable } from './config.js';
import { ALL_REGIONS, createSalesConfigObject, checkSalesConfig, parseSalesConfig, resolveRange } from './config.js';

/** A result row: column name → value. Money columns (`unit_price`, `revenue`) are CNY (yuan) numbers. */
export type Row = Record<string, string | number | null>;

export interface SalesSummary {
  /** Orders matching the date window and region (all of them, not only the rows returned). */
  orders: number;
  units: number;
  /** Total revenue in CNY. */
  revenue: number;
  byRegion: Array<{ region: string; region_en: string; orders: number; revenue: number }>;
  byMonth: Array<{ month: string; orders: number; revenue: number }>;
  /** Per day with orders (`YYYY-MM-DD`), oldest first: the whole result as a daily series. */
  byDay: Array<{ date: string; orders: number; revenue: number }>;
}

export interface SalesResult {
  config: SalesConfig;
  /** The resolved inclusive window. */
  from: string;
  to: string;
  columns: string[];
  rows: Row[];
  /** True when the `orders` table had more matching orders than `limit`. */
  truncated: boolean;
  summary: SalesSummary;
}

export interface QueryOptions {
  /** Maximum rows for table `orders` (newest first). @default 100, at most 1000 */
  limit?: number;
}

const WHERE = 'o.order_date BETWEEN @from AND @to AND (@region IS NULL OR r.name_zh = @region)';
const FROM =
  'FROM orders o JOIN regions r ON r.id = o.region_id JOIN channels c ON c.id = o.channel_id JOIN products p ON p.id = o.product_id';
const AGG = 'COUNT(*) AS orders, SUM(o.quantity) AS units, ROUND(SUM(o.revenue_fen) / 100.0, 2) AS revenue';

/** One constant statement per queryable table. */
const TABLE_SQL: Record<SalesTable, string> = {
  orders: `SELECT o.id, o.order_date, r.name_zh AS region, r.name_en AS region_en, c.code AS channel, p.sku, p.name AS product,
    p.category, o.quantity, o.unit_price_fen / 100.0 AS unit_price, o.revenue_fen / 100.0 AS revenue
    ${FROM} WHERE ${WHERE} ORDER BY o.order_date DESC, o.id DESC LIMIT @limit`,
  products: `SELECT p.sku, p.name AS product, p.category, ${AGG} ${FROM} WHERE ${WHERE} GROUP BY p.id ORDER BY revenue DESC, p.id`,
  regions: `SELECT r.name_zh AS region, r.name_en AS region_en, ${AGG} ${FROM} WHERE ${WHERE} GROUP BY r.id ORDER BY revenue DESC, r.id`,
  channels: `SELECT c.code AS channel, c.name AS channel_name, ${AGG} ${FROM} WHERE ${WHERE} GROUP BY c.id ORDER BY revenue DESC, c.id`,
};
const TOTAL_SQL = `SELECT COUNT(*) AS orders, COALESCE(SUM(o.quantity), 0) AS units, COALESCE(ROUND(SUM(o.revenue_fen) / 100.0, 2), 0) AS revenue ${FROM} WHERE ${WHERE}`;
const BY_REGION_SQL = `SELECT r.name_zh AS region, r.name_en AS region_en, COUNT(*) AS orders, ROUND(SUM(o.revenue_fen) / 100.0, 2) AS revenue ${FROM} WHERE ${WHERE} GROUP BY r.id ORDER BY r.id`;
const BY_DAY_SQL = `SELECT o.order_date AS date, COUNT(*) AS orders, ROUND(SUM(o.revenue_fen) / 100.0, 2) AS revenue ${FROM} WHERE ${WHERE} GROUP BY o.order_date ORDER BY o.order_date`;
const BY_MONTH_SQL = `SELECT substr(o.order_date, 1, 7) AS month, COUNT(*) AS orders, ROUND(SUM(o.revenue_fen) / 100.0, 2) AS revenue ${FROM} WHERE ${WHERE} GROUP BY month ORDER BY month`;

/**
 * A query engine bound to one database: caches the config schema (its region enum comes from the data) and
 * the newest order date.
 */
export class SalesQuery {
  /** The plain object `ctx.config` negotiates. */
  readonly object: SalesConfigObject;
  /** The full validating schema (object + cross-field rules). */
  readonly schema: SalesConfigSchema;
  readonly regions: readonly string[];
  readonly newest: string;

  constructor(private readonly db: SalesDb) {
    this.regions = regionNames(db);
    this.object = createSalesConfigObject(this.regions);
    this.schema = this.object.superRefine(checkSalesConfig);
    this.newest = newestOrderDate(db);
  }

  /**
   * Validates `input` against {@link schema} and runs it.
   * @throws SalesConfigError for any invalid field (unknown table or region, bad or missing custom dates)
   */
  run(input: unknown, opts: QueryOptions = {}): SalesResult {
    const config = parseSalesConfig(this.schema, input);
    const limit = Math.max(1, Math.min(1000, Math.floor(opts.limit ?? 100)));
    const { from, to } = resolveRange(config, this.newest);
    const params = { from, to, region: config.region === ALL_REGIONS ? null : config.region };
    const stmt = this.db.prepare(TABLE_SQL[config.table]);
    const rows = (config.table === 'orders' ? stmt.all({ ...params, limit }) : stmt.all(params)) as Row[];
    const total = this.db.prepare(TOTAL_SQL).get(params) as { orders: number; units: number; revenue: number };
    const summary: SalesSummary = {
      ...total,
      byRegion: this.db.prepare(BY_REGION_SQL).all(params) as SalesSummary['byRegion'],
      byMonth: this.db.prepare(BY_MONTH_SQL).all(params) as SalesSummary['byMonth'],
      byDay: this.db.prepare(BY_DAY_SQL).all(params) as SalesSummary['byDay'],
    };
    const columns = stmt.columns().map((c) => c.name);
    return { config, from, to, columns, rows, truncated: config.table === 'orders' && total.orders > rows.length, summary };
  }
}

/** Human-readable text of a result, for a tool's text content. */
export function describeResult(r: SalesResult): string {
  const s = r.summary;
  const head = `${r.config.table} · ${r.from}..${r.to} · region ${r.config.region}: ${count(s.orders, 'order')}, ${count(s.units, 'unit')}, revenue ¥${s.revenue.toFixed(2)}`;
  const months = s.byMonth.map((m) => `${m.month}: ${count(m.orders, 'order')}, ¥${m.revenue.toFixed(2)}`).join('\n');
  const more = r.truncated ? ` (first ${r.rows.length} of ${s.orders}, newest first)` : '';
  return `${head}\nBy month:\n${months}\n${count(r.rows.length, 'row')}${more}`;
}

/** `n` with its noun, singular for one: `count(1, 'row')` is "1 row", `count(2, 'row')` "2 rows". */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
