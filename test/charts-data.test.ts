// Chart input: RFC 4180 CSV (quotes, escaped quotes, CRLF, embedded newlines, typed columns) and sales result JSON.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import fc from 'fast-check';
import { parseCsv, readCsvFile, tableFromQueryResult, ChartDataError } from '../servers/charts/data.js';
import { toCsv } from '../servers/sales/results.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-charts-data-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('quoted fields: commas, escaped quotes, CRLF and LF, newlines inside quotes, BOM, no final newline', () => {
  const text = '\ufeffname,note,amount\r\n"Smith, J","said ""hi""",12.5\r\nplain,"two\r\nlines",-3\nlast,"",1e3';
  assert.deepEqual(parseCsv(text), {
    columns: ['name', 'note', 'amount'],
    rows: [
      { name: 'Smith, J', note: 'said "hi"', amount: 12.5 },
      { name: 'plain', note: 'two\r\nlines', amount: -3 },
      { name: 'last', note: null, amount: 1000 },
    ],
  });
});

test('column typing: all-number columns become numbers; leading zeros, mixed text and dates stay text; empty is null', () => {
  const t = parseCsv('zip,n,mixed,day\n007,1,1,2025-01-01\n010,,x,2025-01-02\n');
  assert.deepEqual(t.rows, [
    { zip: '007', n: 1, mixed: '1', day: '2025-01-01' },
    { zip: '010', n: null, mixed: 'x', day: '2025-01-02' },
  ]);
  assert.deepEqual(parseCsv('a,b\n\n1,2\n\n').rows, [{ a: 1, b: 2 }], 'blank lines are skipped');
  assert.deepEqual(parseCsv('only\n""\n').rows, [{ only: null }], 'a one-column empty record is kept');
});

test('malformed CSV is refused with the line and the fix', () => {
  const cases: Array<[string, RegExp, number]> = [
    ['a,b\n1,"open\n2,3\n', /line 2: quoted field is never closed/, 2],
    ['a,b\n1,"x"y\n', /line 2: text after a closing quote/, 2],
    ['a,b\n1,x"y\n', /line 2: a quote inside an unquoted field/, 2],
    ['a,b\n1,2\n3\n', /line 3: 1 field, but the header has 2/, 3],
    ['a,a\n1,2\n', /column name 'a' appears twice/, 1],
    ['a,,c\n1,2,3\n', /column 2 has an empty name/, 1],
  ];
  for (const [text, re, line] of cases) {
    assert.throws(
      () => parseCsv(text),
      (e: unknown) => e instanceof ChartDataError && re.test(e.message) && e.line === line,
      text,
    );
  }
  assert.throws(() => parseCsv(''), /no header row/);
});

test('readCsvFile names the file in errors and enforces a size limit', async () => {
  const good = join(dir, 'good.csv');
  writeFileSync(good, 'month,revenue\r\n2025-01,10\r\n2025-02,12\r\n');
  assert.deepEqual((await readCsvFile(good)).rows[1], { month: '2025-02', revenue: 12 });
  await assert.rejects(readCsvFile(good, 10), /good\.csv: \d+ bytes is over the 10-byte limit/);
  const bad = join(dir, 'bad.csv');
  writeFileSync(bad, 'a,b\n1\n');
  await assert.rejects(readCsvFile(bad), (e: unknown) => e instanceof ChartDataError && e.message.startsWith(`${bad}: line 2`));
});

test('property: any table written by toCsv parses back to the same text cells', () => {
  const cell = fc.string({ unit: fc.constantFrom('a', 'b', ',', '"', '\r', '\n', ' ', '北', 'x') });
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 4 }), fc.array(fc.array(cell, { minLength: 4, maxLength: 4 }), { maxLength: 6 }), (n, data) => {
      const columns = Array.from({ length: n }, (_, k) => `c${k}`);
      const rows = data.map((cells) => Object.fromEntries(columns.map((c, k) => [c, `t${cells[k]}`])));
      const parsed = parseCsv(toCsv(columns, rows));
      assert.deepEqual(parsed.columns, columns);
      assert.deepEqual(parsed.rows, rows);
    }),
    { numRuns: 200, seed: 7 },
  );
});

test('sales result JSON: rows and columns are read; a wrong shape names the JSON pointer', () => {
  const t = tableFromQueryResult(
    JSON.stringify({ uri: 'sales://results/x', columns: ['region', 'revenue'], rows: [{ region: '北京', revenue: 1.5 }] }),
  );
  assert.deepEqual(t, { columns: ['region', 'revenue'], rows: [{ region: '北京', revenue: 1.5 }] });
  assert.deepEqual(tableFromQueryResult('{"rows":[{"a":1,"b":null}]}').columns, ['a', 'b']);
  assert.throws(
    () => tableFromQueryResult('{"rows":[{"a":1},{"a":{"x":1}}]}', 'sales://results/abc'),
    /sales:\/\/results\/abc: \/rows\/1\/a: /,
  );
  assert.throws(() => tableFromQueryResult('not json'), /not JSON/);
  assert.throws(() => tableFromQueryResult('{"data":[]}'), /\/rows: /);
});
