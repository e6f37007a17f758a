/**
 * The session configuration `query_sales` negotiates (the seed essay's "table, date range and region"), as a
 * flat zod object so the toolkit can turn it into an elicitation `requestedSchema`.
 *
 * Range semantics, anchored on the newest `order_date` in the data (not the wall clock, so answers are
 * deterministic): `last_month` = the calendar month containing that date, `last_quarter` = the calendar quarter
 * containing it; with the default data (last order 2025-12-31) that is 2025-12-01..2025-12-31 and
 * 2025-10-01..2025-12-31. `custom` uses `from`..`to` inclusive; both are then required. `from`/`to` are ignored
 * for the other ranges.
 */
import { z } from 'zod';

/** The tables a user may query. SQL is chosen by this key from a fixed map; the value never reaches SQL text. */
export const SALES_TABLES = ['orders', 'products', 'regions', 'channels'] as const;
export type SalesTable = (typeof SALES_TABLES)[number];
export const SALES_RANGES = ['last_quarter', 'last_month', 'custom'] as const;
export type SalesRange = (typeof SALES_RANGES)[number];
export const ALL_REGIONS = 'all';

export interface SalesConfig {
  table: SalesTable;
  range: SalesRange;
  from?: string;
  to?: string;
  /** A `regions.name_zh` value, or `all`. */
  region: string;
}

/** Defaults that cut questions: the most common query needs only confirmation. */
export const SALES_CONFIG_DEFAULTS = { table: 'orders', range: 'last_quarter', region: ALL_REGIONS } as const;

/** True for a real calendar date written `YYYY-MM-DD`. */
export function isIsoDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const t = Date.parse(`${s}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === s;
}

// A string with JSON Schema `format: date`; checked in the refinement (no regex, which a flat
// requestedSchema cannot carry).
const dateField = (what: string) =>
  z.string().meta({ format: 'date' }).describe(`${what} (YYYY-MM-DD, inclusive); required when range is custom`);

/**
 * The plain config object for the regions present in the data: what `ctx.config` negotiates (the toolkit
 * asks only for missing required fields, and zod cannot `.pick` from a refined object). `from`/`to` are
 * optional here; {@link checkSalesConfig} adds the cross-field rules.
 * @param regions `regions.name_zh` values (see `regionNames`); `all` is added first.
 */
export function createSalesConfigObject(regions: readonly string[]) {
  if (regions.length === 0) throw new Error('createSalesConfigObject: no regions; the sales database is empty');
  return z.object({
    table: z.enum(SALES_TABLES).describe('Table: orders (one row per order), or products / regions / channels (totals per item)'),
    range: z.enum(SALES_RANGES).describe('Date range: last_quarter or last_month of the data, or custom (from/to)'),
    from: dateField('First day').optional(),
    to: dateField('Last day').optional(),
    region: z.enum([ALL_REGIONS, ...regions] as [string, ...string[]]).describe('Region (地区), or all'),
  });
}
export type SalesConfigObject = ReturnType<typeof createSalesConfigObject>;

/** The cross-field rules: calendar dates, `from`/`to` required when `range` is `custom`, `from` <= `to`. */
export function checkSalesConfig(v: { range: SalesRange; from?: string; to?: string }, ctx: z.RefinementCtx): void {
  for (const key of ['from', 'to'] as const) {
    const value = v[key];
    if (value !== undefined && !isIsoDate(value)) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `${key}: '${value}' is not a calendar date; write it as YYYY-MM-DD, e.g. 2025-03-31`,
      });
    }
  }
  if (v.range !== 'custom') return;
  for (const key of ['from', 'to'] as const) {
    if (v[key] === undefined)
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `${key} is required when range is 'custom'; give a date (YYYY-MM-DD) or choose last_quarter / last_month`,
      });
  }
  if (v.from && v.to && isIsoDate(v.from) && isIsoDate(v.to) && v.from > v.to) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: `to (${v.to}) is before from (${v.from}); swap them` });
  }
}

/** The full validating schema: {@link createSalesConfigObject} plus {@link checkSalesConfig}. */
export function createSalesConfigSchema(regions: readonly string[]) {
  return createSalesConfigObject(regions).superRefine(checkSalesConfig);
}

/**
 * The dates a custom range still needs, asked in a second elicitation when `range` is `custom`. The order
 * rule cannot travel in a requestedSchema; the toolkit runs it on the answer and asks again with its message.
 */
export const customRangeSchema = z.object({ from: dateField('First day'), to: dateField('Last day') }).superRefine((v, ctx) => {
  if (isIsoDate(v.from) && isIsoDate(v.to) && v.from > v.to)
    ctx.addIssue({ code: 'custom', path: ['to'], message: `to (${v.to}) is before from (${v.from}); swap them` });
});
export type SalesConfigSchema = ReturnType<typeof createSalesConfigSchema>;

/** One validation problem, as data: `path` is a JSON pointer into the config (`/from`). */
export interface SalesConfigIssue {
  path: string;
  message: string;
}

/** Thrown by `querySales` for a config the schema refuses; `issues` lists every problem. */
export class SalesConfigError extends Error {
  override name = 'SalesConfigError';
  constructor(readonly issues: SalesConfigIssue[]) {
    super(`invalid sales configuration: ${issues.map((i) => `${i.path || '/'}: ${i.message}`).join('; ')}`);
  }
}

/** Validates `input` against `schema`; returns the typed config or throws {@link SalesConfigError}. */
export function parseSalesConfig(schema: SalesConfigSchema, input: unknown): SalesConfig {
  const r = schema.safeParse(input);
  if (r.success) return r.data as SalesConfig;
  throw new SalesConfigError(r.error.issues.map((i) => ({ path: i.path.map((p) => `/${String(p)}`).join(''), message: i.message })));
}

/**
 * The inclusive date window of a config.
 * @param newest the newest order date (`YYYY-MM-DD`) that `last_month` / `last_quarter` are relative to
 */
export function resolveRange(config: Pick<SalesConfig, 'range' | 'from' | 'to'>, newest: string): { from: string; to: string } {
  if (config.range === 'custom') {
    if (!config.from || !config.to)
      throw new SalesConfigError([{ path: config.from ? '/to' : '/from', message: 'required when range is custom' }]);
    return { from: config.from, to: config.to };
  }
  const year = Number(newest.slice(0, 4));
  const month = Number(newest.slice(5, 7));
  const first = config.range === 'last_month' ? month : month - ((month - 1) % 3);
  const last = config.range === 'last_month' ? month : first + 2;
  const pad = (n: number) => String(n).padStart(2, '0');
  const lastDay = new Date(Date.UTC(year, last, 0)).getUTCDate();
  return { from: `${year}-${pad(first)}-01`, to: `${year}-${pad(last)}-${pad(lastDay)}` };
}
