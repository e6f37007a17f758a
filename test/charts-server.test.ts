// generate_chart over real SDK v2 clients: negotiates data source / chart type / title, reads CSV only inside
// the client's roots, reads sales://results/{id} from a query-result root (a file:// root named with the
// result's URI, as a parley host hands it over), returns PNG + SVG.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { openChartsBackend, createChartsServer } from '../servers/charts/server.js';
import { openSalesBackend } from '../servers/sales/server.js';
import type { SalesBackend } from '../servers/sales/server.js';
import { resolveCsvInRoots, DataPathError } from '../servers/charts/paths.js';
import { PNG_SIGNATURE } from '../servers/charts/render.js';
import { legacyConnect, modernConnect, textOf } from './fixtures/servers/clients.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-charts-srv-'));
const root = join(dir, 'root');
const outside = join(dir, 'outside');
const rootUri = pathToFileURL(root).href;
let sales: SalesBackend;
before(() => {
  mkdirSync(join(root, 'sub'), { recursive: true });
  mkdirSync(outside);
  mkdirSync(`${root}2`);
  writeFileSync(
    join(root, 'sales.csv'),
    'month,region,revenue\r\n2025-10,"Beijing, CN",120.5\r\n2025-11,Shanghai,180\r\n2025-12,Beijing,90\r\n',
  );
  writeFileSync(join(root, 'sub', 'points.csv'), 'x,y\n1,2\n2,4\n3,5\n');
  writeFileSync(join(outside, 'secret.csv'), 'a,b\n1,2\n');
  writeFileSync(join(`${root}2`, 'sibling.csv'), 'a,b\n1,2\n');
  symlinkSync(join(outside, 'secret.csv'), join(root, 'link.csv'));
  sales = openSalesBackend({ dbPath: join(dir, 'sales.db') });
});
after(() => {
  sales.close();
  rmSync(dir, { recursive: true, force: true });
});

const standalone = openChartsBackend();
const standaloneFactory = () => createChartsServer(standalone);

function checkChart(r: any, titleText?: string) {
  assert.equal(r.isError, undefined, textOf(r));
  const img = r.content.find((c: any) => c.type === 'image');
  assert.equal(img.mimeType, 'image/png');
  assert.deepEqual(Buffer.from(img.data, 'base64').subarray(0, 8), PNG_SIGNATURE);
  const res = r.content.find((c: any) => c.type === 'resource').resource;
  assert.equal(res.mimeType, 'image/svg+xml');
  assert.match(res.text, /^<svg/);
  if (titleText) assert.ok(res.text.includes(titleText));
  return res.uri as string;
}

test('legacy: missing settings are elicited in one form; the chart comes back as PNG + SVG resource', async () => {
  const c = await legacyConnect(standaloneFactory, {
    roots: [rootUri],
    answer: () => ({ action: 'accept', content: { data_source: 'sales.csv', chart_type: 'bar', title: 'Revenue by region' } }),
  });
  try {
    const r = (await c.client.callTool({ name: 'generate_chart', arguments: {} })) as any;
    const uri = checkChart(r, 'Revenue by region');
    assert.equal(c.seen.length, 1);
    const props = c.seen[0].requestedSchema.properties;
    assert.deepEqual(Object.keys(props).sort(), ['chart_type', 'data_source', 'title']);
    assert.deepEqual(props.chart_type.enum, ['line', 'bar', 'scatter', 'pie']);
    assert.deepEqual([...(c.seen[0].requestedSchema.required ?? [])].sort(), ['chart_type', 'data_source']);
    assert.deepEqual([r.structuredContent.x, r.structuredContent.y, r.structuredContent.rows], ['region', 'revenue', 3]);
    const read = await c.client.readResource({ uri });
    assert.ok((read.contents[0] as any).text.includes('Revenue by region'));

    // Everything given: nothing asked. Absolute path and file:// URI inside the root both work.
    const line = (await c.client.callTool({
      name: 'generate_chart',
      arguments: { data_source: pathToFileURL(join(root, 'sub', 'points.csv')).href, chart_type: 'scatter' },
    })) as any;
    checkChart(line);
    assert.equal(c.seen.length, 1);
    assert.deepEqual([line.structuredContent.x, line.structuredContent.y], ['x', 'y']);
  } finally {
    await c.close();
  }
});

test('paths outside the roots are refused: .., absolute, sibling prefix, symlink escape, other schemes', async () => {
  // req: ROOTS-SERVER-VALIDATE-PATHS
  const c = await legacyConnect(standaloneFactory, { roots: [rootUri], answer: () => ({ action: 'cancel' }) });
  try {
    const cases: Array<[string, RegExp]> = [
      ['../outside/secret.csv', /is outside every root.*give a CSV file inside one of the client's roots/],
      [join(outside, 'secret.csv'), /is outside every root/],
      [join(`${root}2`, 'sibling.csv'), /is outside every root/],
      // The refusal never names the real path a link leads to outside the roots (issue 12 item 16).
      ['link.csv', /"link\.csv" \(allowed roots: [^)]*\); give a CSV file inside/],
      ['https://example.com/x.csv', /only file:\/\/ URIs name local files; .*or give a CSV file inside your roots/],
      ['missing.csv', /does not exist/],
      ['sub', /not a regular file/],
      ['sales://results/0123456789abcdef', /no such query result was handed to this server.*run the query/],
    ];
    for (const [source, re] of cases) {
      const r = (await c.client.callTool({ name: 'generate_chart', arguments: { data_source: source, chart_type: 'bar' } })) as any;
      assert.equal(r.isError, true, source);
      assert.match(textOf(r), re, source);
      if (source === 'link.csv') assert.doesNotMatch(textOf(r), /outside\/secret\.csv/);
      assert.ok(!r.content.some((x: any) => x.type === 'image'));
    }
    const cancelled = (await c.client.callTool({ name: 'generate_chart', arguments: { chart_type: 'pie' } })) as any;
    assert.equal(cancelled.isError, true);
    assert.match(textOf(cancelled), /cancelled; no chart was drawn/);
    assert.deepEqual(Object.keys(c.seen.at(-1)!.requestedSchema.properties).sort(), ['data_source', 'title']);
  } finally {
    await c.close();
  }
  // A client without roots: no file can be read.
  const noRoots = await legacyConnect(standaloneFactory, {});
  try {
    const r = (await noRoots.client.callTool({
      name: 'generate_chart',
      arguments: { data_source: 'sales.csv', chart_type: 'bar' },
    })) as any;
    assert.equal(r.isError, true);
    assert.match(textOf(r), /roots/);
  } finally {
    await noRoots.close();
  }
});

test('resolveCsvInRoots: empty roots and NUL are refused with DataPathError', async () => {
  await assert.rejects(
    resolveCsvInRoots('sales.csv', []),
    (e: unknown) => e instanceof DataPathError && /No roots are available.*add the folder/.test(e.message),
  );
  await assert.rejects(resolveCsvInRoots('a\0b', [rootUri]), DataPathError);
  assert.equal(await resolveCsvInRoots('./sub/../sales.csv', [rootUri]), join(root, 'sales.csv'));
});

let handed = 0;
/** What a parley host does with a result (src/host/roots/query-results.ts): a file:// root named with its URI. */
function handOver(uri: string): { uri: string; name: string } {
  const content = sales.store.read(uri);
  assert.ok(content, uri);
  const folder = join(dir, `handed-${++handed}`);
  mkdirSync(folder);
  writeFileSync(join(folder, content.mimeType === 'text/csv' ? 'result.csv' : 'result.json'), content.text);
  return { uri: pathToFileURL(folder).href, name: uri };
}

test('a query-result root: sales://results/{id} (JSON and /csv) is charted from the root the host handed over', async () => {
  const q = sales.store.save(sales.query.run({ table: 'regions', range: 'last_quarter', region: 'all' }));
  const c = await legacyConnect(standaloneFactory, { roots: [rootUri, handOver(q.uri)], answer: () => ({ action: 'cancel' }) });
  try {
    const pie = (await c.client.callTool({
      name: 'generate_chart',
      arguments: { data_source: q.uri, chart_type: 'pie', title: 'Q4 revenue share' },
    })) as any;
    checkChart(pie, 'Q4 revenue share');
    assert.deepEqual([pie.structuredContent.x, pie.structuredContent.y], ['region', 'revenue']);
    assert.equal(pie.structuredContent.total, q.summary.revenue);
    // `/csv` of a handed-over result reads the same result; fields named in the call win.
    const bar = (await c.client.callTool({
      name: 'generate_chart',
      arguments: { data_source: q.csvUri, chart_type: 'bar', x: 'region_en', y: 'orders' },
    })) as any;
    checkChart(bar);
    assert.deepEqual([bar.structuredContent.x, bar.structuredContent.y], ['region_en', 'orders']);
    assert.equal(bar.structuredContent.total, q.summary.orders);
    const unknown = (await c.client.callTool({
      name: 'generate_chart',
      arguments: { data_source: 'sales://results/0123456789abcdef', chart_type: 'bar' },
    })) as any;
    assert.match(textOf(unknown), /no such query result was handed to this server.*run the query/);
    assert.equal(c.seen.length, 0, 'nothing was asked');
  } finally {
    await c.close();
  }
});

test('a truncated orders result is charted from the whole result (daily totals), and the chart says so', async () => {
  const q = sales.store.save(sales.query.run({ table: 'orders', range: 'last_quarter', region: 'all' }));
  const c = await legacyConnect(standaloneFactory, { roots: [rootUri, handOver(q.uri)], answer: () => ({ action: 'cancel' }) });
  try {
    const result = JSON.parse(sales.store.read(q.uri)!.text);
    assert.equal(result.truncated, true, 'the orders query lists only its newest rows');
    const bar = (await c.client.callTool({
      name: 'generate_chart',
      arguments: { data_source: q.uri, chart_type: 'bar' },
    })) as any;
    checkChart(bar);
    assert.deepEqual([bar.structuredContent.x, bar.structuredContent.y], ['date', 'revenue']);
    assert.equal(bar.structuredContent.rows, result.summary.byDay.length);
    assert.equal(bar.structuredContent.total, result.summary.revenue, 'the bars add up to the revenue the query reported');
    const money = result.summary.revenue.toFixed(2);
    assert.match(
      textOf(bar),
      new RegExp(
        `only ${result.rows.length} of ${result.summary.orders} orders.*daily totals of all ${result.summary.orders} orders \\(revenue ¥${money}\\)`,
      ),
    );
  } finally {
    await c.close();
  }
});

test('2026-07-28: settings and roots arrive through input_required; the chart renders', async () => {
  const c = await modernConnect(standaloneFactory, {
    roots: [rootUri],
    answer: () => ({ action: 'accept', content: { data_source: 'sales.csv', chart_type: 'line', title: 'Monthly revenue' } }),
  });
  try {
    const r = (await c.client.callTool({ name: 'generate_chart', arguments: {} })) as any;
    checkChart(r, 'Monthly revenue');
    assert.deepEqual([r.structuredContent.x, r.structuredContent.chart_type], ['month', 'line']);
  } finally {
    await c.close();
  }
});
