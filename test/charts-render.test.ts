// Chart rendering: every chart type gives a non-empty SVG with the title and a real PNG; fields inferred.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderChart, buildSpec, PNG_SIGNATURE } from '../servers/charts/render.js';
import { chooseFields, columnKinds, CHART_TYPES } from '../servers/charts/infer.js';
import { ChartDataError } from '../servers/charts/data.js';

const columns = ['month', 'region', 'orders', 'revenue'];
const rows = [
  { month: '2025-10', region: '北京', orders: 10, revenue: 120.5 },
  { month: '2025-11', region: '上海', orders: 14, revenue: 180 },
  { month: '2025-12', region: '北京', orders: 7, revenue: 90 },
  { month: '2025-12', region: 'Guangzhou', orders: 5, revenue: 60 },
];

for (const type of CHART_TYPES) {
  test(`${type}: SVG with the escaped title, PNG with the PNG signature`, async () => {
    const title = `Revenue ${type} 销售额 & <Q4>`;
    const r = await renderChart(columns, rows, { type, title });
    assert.match(r.svg, /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.ok(r.svg.includes(`Revenue ${type} 销售额 &amp; &lt;Q4&gt;`), 'title text in the SVG');
    if (type === 'bar' || type === 'pie') assert.ok(r.svg.includes('北京'), 'category labels in the SVG');
    else assert.ok(r.svg.includes(type === 'line' ? '2025-11' : 'orders'), 'axis labels in the SVG');
    assert.ok(r.png.length > 1000);
    assert.deepEqual(r.png.subarray(0, 8), PNG_SIGNATURE);
    // IHDR width/height are the SVG's size
    const [, w, h] = /width="(\d+)" height="(\d+)"/.exec(r.svg) ?? [];
    assert.equal(r.png.readUInt32BE(16), Number(w));
    assert.equal(r.png.readUInt32BE(20), Number(h));
  });
}

test('no title: the chart still renders, and no title text is emitted', async () => {
  const r = await renderChart(columns, rows, { type: 'bar' });
  assert.ok(!r.svg.includes('role-title'));
  assert.deepEqual(r.png.subarray(0, 8), PNG_SIGNATURE);
});

test('marks and aggregation per type', () => {
  const mark = (type: (typeof CHART_TYPES)[number]) =>
    buildSpec(columns, rows, { type }).spec as unknown as {
      mark: { type: string };
      encoding: Record<string, { aggregate?: string; field?: string }>;
    };
  assert.equal(mark('line').mark.type, 'line');
  assert.equal(mark('bar').encoding.y.aggregate, 'sum');
  assert.equal(mark('scatter').mark.type, 'point');
  assert.equal(mark('scatter').encoding.y.aggregate, undefined);
  const pie = mark('pie');
  assert.equal(pie.mark.type, 'arc');
  assert.deepEqual([pie.encoding.theta.field, pie.encoding.color.field], ['revenue', 'region']);
});

test('field inference follows the documented rules', () => {
  assert.deepEqual(chooseFields('line', columns, rows), { x: 'month', y: 'revenue', xKind: 'temporal' });
  assert.deepEqual(chooseFields('bar', columns, rows), { x: 'region', y: 'revenue', xKind: 'nominal' });
  assert.deepEqual(chooseFields('pie', columns, rows), { x: 'region', y: 'revenue', xKind: 'nominal' });
  assert.deepEqual(chooseFields('scatter', columns, rows), { x: 'orders', y: 'revenue', xKind: 'quantitative' });
  // explicit choices win; id columns are never the measure; x/y names are taken literally
  assert.deepEqual(chooseFields('bar', columns, rows, { x: 'month', y: 'orders' }), { x: 'month', y: 'orders', xKind: 'temporal' });
  const idRows = [
    { id: 1, city: 'a', qty: 3 },
    { id: 2, city: 'b', qty: 4 },
  ];
  assert.deepEqual(chooseFields('bar', ['id', 'city', 'qty'], idRows), { x: 'city', y: 'qty', xKind: 'nominal' });
  assert.deepEqual(chooseFields('scatter', ['x', 'y'], [{ x: 1, y: 2 }]), { x: 'x', y: 'y', xKind: 'quantitative' });
  assert.deepEqual([...columnKinds(['t'], [{ t: '2025-01-02T03:04:05Z' }, { t: null }]).values()], ['temporal']);
});

test('unusable data is refused with a clear ChartDataError', async () => {
  const cases: Array<[() => unknown, RegExp]> = [
    [() => chooseFields('bar', ['a', 'b'], [{ a: 'x', b: 'y' }]), /no numeric column to plot as y; columns: a, b/],
    [() => chooseFields('bar', columns, rows, { y: 'region' }), /y field 'region' is not numeric/],
    [() => chooseFields('bar', columns, rows, { x: 'nope' }), /x field 'nope' is not a column/],
    [() => chooseFields('line', ['v'], [{ v: 1 }]), /needs a second column for x/],
    [() => buildSpec(columns, [], { type: 'bar' }), /no rows to chart/],
    [() => buildSpec(columns, rows, { type: 'bar', maxRows: 3 }), /4 rows is over the 3-row chart limit/],
  ];
  for (const [fn, re] of cases) assert.throws(fn, (e: unknown) => e instanceof ChartDataError && re.test(e.message), String(re));
});

test('column names with dots and brackets are plotted literally', async () => {
  const r = await renderChart(
    ['a.b', 'v[0]'],
    [
      { 'a.b': 'x', 'v[0]': 3 },
      { 'a.b': 'y', 'v[0]': 5 },
    ],
    { type: 'bar', title: 'Dots' },
  );
  assert.ok(r.svg.includes('>x<') || r.svg.includes('x</text>'));
  assert.match(r.svg, /role-mark[^"]*"[^>]*><path/);
});
