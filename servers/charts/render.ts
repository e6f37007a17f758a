/**
 * Renders a table as a chart: a vega-lite spec compiled to vega, drawn headless to SVG (`renderer: 'none'`),
 * rasterised to PNG by resvg. Nothing touches the network: the vega loader refuses every load (data is
 * inline), and resvg uses system fonts plus any `fontFiles` given. Without a CJK font installed, Chinese
 * labels are correct in the SVG but draw as missing glyphs in the PNG.
 *
 * Marks: line → `line` (with points), bar → `bar`, scatter → `point`, pie → `arc` (theta = y, colour = x).
 * line, bar and pie sum y per x value; scatter plots every row. Temporal x uses UTC so output does not
 * depend on the machine's time zone.
 */
import * as vl from 'vega-lite';
import * as vega from 'vega';
import { Resvg } from '@resvg/resvg-js';
import type { DataRow } from './data.js';
import { ChartDataError } from './data.js';
import type { ChartType, ChosenFields } from './infer.js';
import { chooseFields } from './infer.js';

export interface ChartOptions {
  type: ChartType;
  title?: string;
  /** Field names; inferred when absent (see infer.ts). */
  x?: string;
  y?: string;
  /** Plot size in CSS px. @default 640 × 400 (pie 400 × 400) */
  width?: number;
  height?: number;
  /** Refuse tables with more rows. @default 10_000 */
  maxRows?: number;
  /** Extra font files (TTF/OTF paths) for the PNG, e.g. a CJK font. */
  fontFiles?: string[];
  /** Family resvg uses for vega's `sans-serif` text in the PNG. @default 'DejaVu Sans' (also resvg's default family; resvg's own defaults, Arial/Times New Roman, are often absent on Linux) */
  sansSerifFamily?: string;
}

export interface RenderedChart {
  svg: string;
  png: Buffer;
  /** The vega-lite spec that was rendered (data inline). */
  spec: vl.TopLevelSpec;
  fields: ChosenFields;
}

/** vega-lite reads `.` `[` `]` in a field name as nested access; escape them so column names are literal. */
const field = (name: string) => name.replace(/[.[\]\\]/g, (c) => `\\${c}`);

/** Builds the vega-lite spec for `rows` (exported for tests and for clients that render themselves). */
export function buildSpec(
  columns: readonly string[],
  rows: readonly DataRow[],
  opts: ChartOptions,
): { spec: vl.TopLevelSpec; fields: ChosenFields } {
  const max = opts.maxRows ?? 10_000;
  if (rows.length === 0) throw new ChartDataError('no rows to chart; the data source is empty');
  if (rows.length > max)
    throw new ChartDataError(`${rows.length} rows is over the ${max}-row chart limit; aggregate or filter the data first`);
  const fields = chooseFields(opts.type, columns, rows, { x: opts.x, y: opts.y });
  const { x, y, xKind } = fields;
  const pie = opts.type === 'pie';
  const base = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    ...(opts.title ? { title: opts.title } : {}),
    width: opts.width ?? (pie ? 400 : 640),
    height: opts.height ?? 400,
    data: { values: rows.map((r) => ({ ...r })) },
    config: { font: 'sans-serif' },
  };
  const yEnc = { field: field(y), type: 'quantitative' as const, title: y };
  const xType: 'quantitative' | 'temporal' | 'nominal' | 'ordinal' = xKind === 'quantitative' && opts.type === 'bar' ? 'ordinal' : xKind;
  // Month texts (YYYY-MM) get month ticks; other temporal values keep vega's automatic UTC ticks.
  const monthly = xKind === 'temporal' && rows.every((r) => r[x] === null || /^\d{4}-\d{2}$/.test(String(r[x])));
  const temporal = monthly ? { timeUnit: 'utcyearmonth' as const, axis: { format: '%Y-%m' } } : { scale: { type: 'utc' as const } };
  const xEnc = { field: field(x), type: xType, title: x, ...(xKind === 'temporal' ? temporal : {}) };
  let spec: vl.TopLevelSpec;
  if (pie) {
    spec = {
      ...base,
      mark: { type: 'arc' },
      encoding: { theta: { ...yEnc, aggregate: 'sum' }, color: { field: field(x), type: 'nominal', title: x } },
    };
  } else if (opts.type === 'scatter') {
    spec = { ...base, mark: { type: 'point', filled: true }, encoding: { x: xEnc, y: yEnc } };
  } else {
    const mark = opts.type === 'line' ? { type: 'line' as const, point: true } : { type: 'bar' as const };
    spec = { ...base, mark, encoding: { x: xEnc, y: { ...yEnc, aggregate: 'sum' } } };
  }
  return { spec, fields };
}

/** A loader that refuses every fetch or file read: chart data is always inline. */
function offlineLoader(): vega.Loader {
  const l = vega.loader();
  const refuse = async (uri: string) => {
    throw new ChartDataError(`chart rendering does not load external resources (asked for '${uri}')`);
  };
  l.load = refuse as vega.Loader['load'];
  l.sanitize = refuse as unknown as vega.Loader['sanitize'];
  return l;
}

/**
 * Renders `rows` to SVG text and PNG bytes.
 * @throws ChartDataError for empty/oversized data or unusable fields
 */
export async function renderChart(columns: readonly string[], rows: readonly DataRow[], opts: ChartOptions): Promise<RenderedChart> {
  const { spec, fields } = buildSpec(columns, rows, opts);
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none', loader: offlineLoader(), logLevel: vega.None });
  try {
    const svg = await view.toSVG();
    const sans = opts.sansSerifFamily ?? 'DejaVu Sans';
    const png = new Resvg(svg, {
      font: { loadSystemFonts: true, fontFiles: opts.fontFiles ?? [], sansSerifFamily: sans, defaultFontFamily: sans },
      background: 'white',
    })
      .render()
      .asPng();
    return { svg, png, spec, fields };
  } finally {
    view.finalize();
  }
}

/** The 8-byte PNG signature (`\x89PNG\r\n\x1a\n`). */
export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
