/**
 * Chooses the x and y fields of a chart from the columns of a table when the caller does not name them.
 *
 * Column kinds: `quantitative` (every non-null value a finite number), `temporal` (every non-null value an ISO
 * date text `YYYY-MM`, `YYYY-MM-DD` or date-time), otherwise `nominal`. Columns named `id` or ending in `_id`
 * are never chosen as y.
 * - y: the caller's, else a column named `y`, else a quantitative column by name: first one saying money
 *   (revenue, amount, sales, total), then value (value, price), then a count (count, orders, units, qty,
 *   quantity); else for scatter the second quantitative column (the first is x), else the first one.
 * - x: the caller's, else a column named `x`, else by chart type: line prefers temporal, then nominal, then
 *   quantitative; bar and pie prefer nominal, then temporal, then quantitative; scatter prefers quantitative,
 *   then temporal, then nominal. x is never the y column.
 */
import type { DataRow } from './data.js';
import { ChartDataError } from './data.js';

export const CHART_TYPES = ['line', 'bar', 'scatter', 'pie'] as const;
export type ChartType = (typeof CHART_TYPES)[number];
export type FieldKind = 'quantitative' | 'temporal' | 'nominal';

export interface ChosenFields {
  x: string;
  y: string;
  xKind: FieldKind;
}

const TEMPORAL = /^\d{4}-\d{2}(?:-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)?$/;
/** Measure-name preferences, strongest first. */
const MEASURES = [/revenue|amount|sales|total/i, /value|price/i, /count|orders|units|qty|quantity/i];
const isId = (c: string) => c === 'id' || /_id$/i.test(c);

/** The kind of each column, judged over all rows. */
export function columnKinds(columns: readonly string[], rows: readonly DataRow[]): Map<string, FieldKind> {
  const kinds = new Map<string, FieldKind>();
  for (const c of columns) {
    const values = rows.map((r) => r[c]).filter((v) => v !== null && v !== undefined);
    if (values.length > 0 && values.every((v) => typeof v === 'number' && Number.isFinite(v))) kinds.set(c, 'quantitative');
    else if (values.length > 0 && values.every((v) => typeof v === 'string' && TEMPORAL.test(v))) kinds.set(c, 'temporal');
    else kinds.set(c, 'nominal');
  }
  return kinds;
}

/**
 * @throws ChartDataError when a named field is not a column, y is not numeric, or no x/y pair exists
 */
export function chooseFields(
  type: ChartType,
  columns: readonly string[],
  rows: readonly DataRow[],
  want: { x?: string; y?: string } = {},
): ChosenFields {
  const kinds = columnKinds(columns, rows);
  const list = `columns: ${columns.join(', ') || '(none)'}`;
  for (const k of ['x', 'y'] as const) {
    const name = want[k];
    if (name !== undefined && !kinds.has(name)) throw new ChartDataError(`${k} field '${name}' is not a column; ${list}`);
  }
  const of = (kind: FieldKind, except?: string) => columns.filter((c) => kinds.get(c) === kind && c !== except);
  const quant = of('quantitative').filter((c) => !isId(c));
  let y = want.y;
  if (y === undefined) {
    if (quant.includes('y')) y = 'y';
    else
      y =
        MEASURES.map((re) => quant.find((c) => re.test(c))).find((c) => c !== undefined) ??
        (type === 'scatter' && quant.length > 1 ? quant[1] : quant[0]);
  }
  if (y === undefined) throw new ChartDataError(`no numeric column to plot as y; ${list}`);
  if (kinds.get(y) !== 'quantitative')
    throw new ChartDataError(`y field '${y}' is not numeric (it is ${kinds.get(y)}); choose a numeric column; ${list}`);

  let x = want.x;
  if (x === undefined) {
    const order: FieldKind[] =
      type === 'line'
        ? ['temporal', 'nominal', 'quantitative']
        : type === 'scatter'
          ? ['quantitative', 'temporal', 'nominal']
          : ['nominal', 'temporal', 'quantitative'];
    const y0 = y;
    x =
      columns.includes('x') && y0 !== 'x'
        ? 'x'
        : order.map((k) => of(k, y0).filter((c) => k !== 'quantitative' || !isId(c))[0]).find((c) => c !== undefined);
  }
  if (x === undefined) throw new ChartDataError(`a ${type} chart needs a second column for x besides '${y}'; ${list}`);
  return { x, y, xKind: kinds.get(x) as FieldKind };
}
