/**
 * Chart input: a table of rows from a CSV file or from the JSON of a `sales://results/{id}` resource.
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
  /** Says plainly what the table holds when it is not the rows as given (e.g. totals of a truncated result). */
  note?: string;
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
        `line ${r.line}: ${r.fields.length} fields, but the header has ${columns.length}; every record needs one field per column`,
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

const SalesResultJson = z.object({
  columns: z.array(z.string()).optional(),
  rows: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.null()]))),
  truncated: z.boolean().optional(),
  summary: z
    .object({
      orders: z.number(),
      revenue: z.number(),
      byMonth: z.array(z.object({ month: z.string(), orders: z.number(), revenue: z.number() })),
    })
    .optional(),
});

/**
 * Reads the JSON text of a `sales://results/{id}` resource (`{columns?, rows, …}`).
 * @throws ChartDataError naming the JSON pointer of the first bad value
 */
export function tableFromSalesResult(text: string, source = 'sales result'): Table {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ChartDataError(`${source}: not JSON (${(e as Error).message})`);
  }
  const r = SalesResultJson.safeParse(json);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new ChartDataError(
      `${source}: /${i.path.map(String).join('/')}: ${i.message}; expected {rows: [{column: string | number | null}]}`,
    );
  }
  // A truncated result (the orders table shows its newest rows only): a chart of the rows shown would
  // mislead, so the chart uses the whole result's monthly totals and says so.
  const sum = r.data.summary;
  if (r.data.truncated && sum) {
    return {
      columns: ['month', 'revenue', 'orders'],
      rows: sum.byMonth.map((m) => ({ month: m.month, revenue: m.revenue, orders: m.orders })),
      note: `the result lists only ${r.data.rows.length} of ${sum.orders} orders, so this chart shows the monthly totals of all ${sum.orders} orders (revenue ¥${sum.revenue.toFixed(2)})`,
    };
  }
  const columns = r.data.columns ?? [...new Set(r.data.rows.flatMap((row) => Object.keys(row)))];
  return { columns, rows: r.data.rows };
}
