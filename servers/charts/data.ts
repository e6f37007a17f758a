/**
 * Chart input: a table of rows from a CSV file or from the JSON of a query result (`sales://results/{id}`).
 *
 * CSV follows RFC 4180: comma separator, fields optionally in double quotes, `""` inside quotes is one quote,
 * quoted fields may hold commas and line breaks, records end in CRLF or LF, a UTF-8 BOM is dropped, the first
 * record is the header. Column typing: a column whose non-empty cells are all plain decimal numbers (no leading
 * zeros such as `007`, which stay text) becomes numbers; empty cells become `null`.
 */
import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';

export type Cell = string | number | null;
export type DataRow = Record<string, Cell>;

export interface Table {
  columns: string[];
  rows: DataRow[];
  /** Says plainly what the chart of this table shows (e.g. the totals of a result that lists only some rows). */
  note?: string;
  /** The default chart for this data (used when the call names no chart type / fields). */
  suggest?: { type: 'line' | 'bar' | 'scatter' | 'pie'; x: string; y: string };
}

/** Bad input: `line` (1-based, in the CSV text) and `column` (1-based) when known. */
export class ChartDataError extends Error {
  override name = 'ChartDataError';
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
  }
}

/** Splits CSV text into records of raw string fields. @throws ChartDataError on a malformed quote. */
export function splitCsv(text: string): Array<{ line: number; fields: string[] }> {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const out: Array<{ line: number; fields: string[] }> = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let i = 0;
  let started = false; // the current record has consumed at least one character
  const endRecord = () => {
    fields.push(field);
    out.push({ line: recordLine, fields });
    fields = [];
    field = '';
    started = false;
  };
  while (i < src.length) {
    const ch = src[i];
    if (ch === '"' && field === '') {
      const openLine = line;
      i++;
      for (;;) {
        if (i >= src.length)
          throw new ChartDataError(`line ${openLine}: quoted field is never closed; add the closing "`, openLine, fields.length + 1);
        if (src[i] === '"') {
          if (src[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (src[i] === '\n') line++;
        field += src[i++];
      }
      const next = src[i];
      if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
        throw new ChartDataError(
          `line ${line}: text after a closing quote in field ${fields.length + 1}; quote the whole field and write inner quotes as ""`,
          line,
          fields.length + 1,
        );
      }
      started = true;
      continue;
    }
    if (ch === ',') {
      fields.push(field);
      field = '';
      i++;
      started = true;
      continue;
    }
    if (ch === '\r' || ch === '\n') {
      endRecord();
      i += ch === '\r' && src[i + 1] === '\n' ? 2 : 1;
      line++;
      recordLine = line;
      continue;
    }
    if (ch === '"')
      throw new ChartDataError(
        `line ${line}: a quote inside an unquoted field ${fields.length + 1}; quote the whole field and write inner quotes as ""`,
        line,
        fields.length + 1,
      );
    field += ch;
    started = true;
    i++;
  }
  if (started) endRecord();
  return out;
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?$/;

/**
 * Parses CSV text into typed rows (see the module header for rules).
 * @throws ChartDataError for a missing or duplicate header, a ragged record or a malformed quote
 */
export function parseCsv(text: string): Table {
  const records = splitCsv(text);
  const header = records.shift();
  if (!header || header.fields.every((f) => f === ''))
    throw new ChartDataError('CSV has no header row; the first line must name the columns', 1);
  const columns = header.fields.map((f) => f.trim());
  columns.forEach((c, k) => {
    if (c === '') throw new ChartDataError(`line ${header.line}: column ${k + 1} has an empty name; name every column`, header.line, k + 1);
    if (columns.indexOf(c) !== k)
      throw new ChartDataError(`line ${header.line}: column name '${c}' appears twice; names must be unique`, header.line, k + 1);
  });
  const body = records.filter((r) => !(r.fields.length === 1 && r.fields[0] === '' && columns.length > 1));
  for (const r of body) {
    if (r.fields.length !== columns.length) {
      throw new ChartDataError(
        `line ${r.line}: ${count(r.fields.length, 'field')}, but the header has ${columns.length}; every record needs one field per column`,
        r.line,
      );
    }
  }
  const numeric = columns.map(
    (_, k) => body.some((r) => r.fields[k] !== '') && body.every((r) => r.fields[k] === '' || NUMBER.test(r.fields[k])),
  );
  const rows = body.map((r) => {
    const row: DataRow = {};
    columns.forEach((c, k) => {
      const v = r.fields[k];
      row[c] = v === '' ? null : numeric[k] ? Number(v) : v;
    });
    return row;
  });
  return { columns, rows };
}

/**
 * Reads and parses a CSV file.
 * @param maxBytes refuse larger files. @default 10_000_000
 * @throws ChartDataError naming the path for an oversized or malformed file
 */
export async function readCsvFile(path: string, maxBytes = 10_000_000): Promise<Table> {
  const size = (await stat(path)).size;
  if (size > maxBytes)
    throw new ChartDataError(`${path}: ${size} bytes is over the ${maxBytes}-byte limit for chart data; filter the data first`);
  try {
    return parseCsv(await readFile(path, 'utf8'));
  } catch (e) {
    if (e instanceof ChartDataError) throw new ChartDataError(`${path}: ${e.message}`, e.line, e.column);
    throw e;
  }
}

const Total = z.object({ orders: z.number(), revenue: z.number() });
const QueryResultJson = z.object({
  config: z.object({ table: z.string() }).loose().optional(),
  columns: z.array(z.string()).optional(),
  rows: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.null()]))),
  truncated: z.boolean().optional(),
  summary: z
    .object({
      orders: z.number(),
      revenue: z.number(),
      byMonth: z.array(Total.extend({ month: z.string() })),
      byDay: z.array(Total.extend({ date: z.string() })).optional(),
    })
    .optional(),
});

/** Longest window, in months, charted day by day; a longer one is charted month by month. */
export const DAILY_MAX_MONTHS = 3;

/**
 * The default chart of each sales table, by the result's `config.table` (docs/walkthrough.md):
 * - `orders` (one row per order, a daily table): a line of revenue over time drawn from the result's
 *   `summary`, so it covers every matching order, not only the rows listed: per day (`byDay`) for a window
 *   of up to {@link DAILY_MAX_MONTHS} months, else per month (`byMonth`);
 * - `products`, `regions`, `channels` (totals per item of a dimension): bars of revenue per item, by
 *   its readable name (`product`, `region`, `channel_name`).
 */
const DIMENSION_X: Record<string, string> = { products: 'product', regions: 'region', channels: 'channel_name' };

/**
 * Reads the JSON of a query result (`{config?, columns?, rows, truncated?, summary?}`, as `sales://results/{id}`
 * holds). The table is what a chart of the whole result needs (see {@link DAILY_MAX_MONTHS} and the table
 * defaults above), with `suggest` (the default chart) and `note` (what it shows, when not the rows as listed).
 * @throws ChartDataError naming the JSON pointer of the first bad value
 */
export function tableFromQueryResult(text: string, source = 'query result'): Table {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ChartDataError(`${source}: not JSON (${(e as Error).message})`);
  }
  const r = QueryResultJson.safeParse(json);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new ChartDataError(
      `${source}: /${i.path.map(String).join('/')}: ${i.message}; expected {rows: [{column: string | number | null}]}`,
    );
  }
  const table = r.data.config?.table;
  const sum = r.data.summary;
  // Written as the query's own text writes it (`revenue ¥493667.30`), so the two read alike side by side.
  const money = (n: number) => `¥${n.toFixed(2)}`;
  // Orders: one row per order, and the result lists only the newest ones. A chart of the rows listed
  // would mislead, so the chart is the whole result's totals over time, and says so.
  if ((table === 'orders' || (table === undefined && r.data.truncated)) && sum) {
    const daily = sum.byDay !== undefined && sum.byMonth.length <= DAILY_MAX_MONTHS;
    const rows = daily
      ? (sum.byDay ?? []).map((d) => ({ date: d.date, revenue: d.revenue, orders: d.orders }))
      : sum.byMonth.map((m) => ({ month: m.month, revenue: m.revenue, orders: m.orders }));
    const listed = r.data.truncated ? `the result lists only ${r.data.rows.length} of ${count(sum.orders, 'order')}, so ` : '';
    return {
      columns: [daily ? 'date' : 'month', 'revenue', 'orders'],
      rows,
      note: `${listed}this chart shows the ${daily ? 'daily' : 'monthly'} totals of ${sum.orders === 1 ? 'the one order' : `all ${sum.orders} orders`} (revenue ${money(sum.revenue)})`,
      suggest: { type: 'line', x: daily ? 'date' : 'month', y: 'revenue' },
    };
  }
  const columns = r.data.columns ?? [...new Set(r.data.rows.flatMap((row) => Object.keys(row)))];
  const x = table ? DIMENSION_X[table] : undefined;
  const out: Table = { columns, rows: r.data.rows };
  if (x && columns.includes(x) && columns.includes('revenue')) {
    out.suggest = { type: 'bar', x, y: 'revenue' };
    if (sum)
      out.note = `this chart shows ${r.data.rows.length === 1 ? `the one ${table?.slice(0, -1)}` : `all ${r.data.rows.length} ${table}`} of the result (revenue ${money(sum.revenue)} in ${count(sum.orders, 'order')})`;
  }
  return out;
}

/** `n` with its noun, singular for one: `count(1, 'row')` is "1 row", `count(2, 'row')` "2 rows". */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
