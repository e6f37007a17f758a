// Query-result roots (issue 15 item 6; configuration essay §5.2): through the real host and both bundled
// servers over stdio, as the embedded default starts them (charts without any copy of sales). The host
// reads a query_sales result from sales and hands it to charts as a file:// root named with the result's
// URI; only charts receives it. Each table's default chart encodes the totals the query reported.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, HeadlessPresenter, ScriptedPresenter } from '../src/host/index.js';
import type { Host, HostConfig } from '../src/host/index.js';
import { resolveConfig } from '../src/cli/defaults.js';
import { eraVerdictKey, processEraVerdicts } from '../src/host/servers/era-verdict.js';
import { QUERY_RESULT_ROOTS_CAPABILITY } from '../src/host/roots/query-results.js';
import { hostInternals } from '../src/host/internals.js';
import { QUERY_RESULT_ROOTS_CAPABILITY as CHARTS_CAP } from '../servers/charts/server.js';
import { QUERY_RESULT_ROOTS_CAPABILITY as SALES_CAP } from '../servers/sales/server.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const built = existsSync(join(REPO, 'dist/servers/sales/main.js')) && existsSync(join(REPO, 'dist/servers/charts/main.js'));
const skip = built ? false : 'dist/servers is not built: run npm run build';

let dir: string;
let config: HostConfig;
before(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'parley-qr-roots-')));
  const r = resolveConfig({ cwd: dir, home: dir, env: {} });
  assert.equal(r.origin, 'embedded');
  // The embedded default itself (servers run in the temp folder, so .parley/ lands there).
  for (const s of Object.values(r.config.servers)) (s as { cwd?: string }).cwd = dir;
  config = r.config;
});
after(() => rmSync(dir, { recursive: true, force: true }));

const newHost = (presenter: HeadlessPresenter | ScriptedPresenter = new HeadlessPresenter()) =>
  createHost(config, { presenter, queryResultsDir: join(dir, 'query-results') });
const text = (r: any) => (r.content ?? []).map((c: any) => c.text ?? '').join('\n');

async function query(host: Host, table: string, extra: Record<string, unknown> = {}) {
  const r: any = await host.callTool('sales', 'query_sales', { table, range: 'last_quarter', region: 'all', ...extra });
  assert.notEqual(r.isError, true, text(r));
  return r.structuredContent as { uri: string; csvUri: string; rows: unknown[]; truncated: boolean; summary: any };
}

async function chart(host: Host, args: Record<string, unknown>) {
  const r: any = await host.callTool('charts', 'generate_chart', args);
  assert.notEqual(r.isError, true, text(r));
  assert.ok(
    r.content.some((c: any) => c.type === 'image' && c.mimeType === 'image/png'),
    'a PNG',
  );
  return r;
}

test('the two roles declare one capability string', () => {
  assert.equal(CHARTS_CAP, QUERY_RESULT_ROOTS_CAPABILITY);
  assert.equal(SALES_CAP, QUERY_RESULT_ROOTS_CAPABILITY);
});

test('embedded default: charts has no --with-sales; the console lists query_sales under sales only', {
  skip,
  timeout: 120_000,
}, async () => {
  assert.deepEqual(config.servers.charts.type === 'stdio' && config.servers.charts.args.slice(1), []);
  const host = newHost();
  try {
    const started = await host.start();
    assert.ok(
      started.every((s) => s.ok),
      JSON.stringify(started),
    );
    const names = async (s: string) => (await host.listTools(s)).map((t) => t.name).sort();
    assert.deepEqual(await names('charts'), ['generate_chart']);
    assert.deepEqual(await names('sales'), ['query_sales']);
  } finally {
    await host.close();
  }
});

test('a truncated orders result is handed over through the host and charted whole; only charts sees its root', {
  skip,
  timeout: 120_000,
}, async () => {
  const host = newHost();
  try {
    await host.start();
    const q = await query(host, 'orders');
    assert.equal(q.truncated, true);
    assert.equal(q.rows.length, 100, 'the result lists 100 orders');
    // The root: a file:// folder named with the result URI, for charts (a consumer), not for sales.
    const root = host.listRoots().find((r) => r.name === q.uri);
    assert.ok(root, `a query-result root named ${q.uri}: ${JSON.stringify(host.listRoots())}`);
    assert.match(root.uri, /^file:\/\//);
    assert.ok(
      hostInternals(host)
        .roots.rootsForServer('charts')
        .some((r) => r.name === q.uri),
    );
    assert.ok(
      !hostInternals(host)
        .roots.rootsForServer('sales')
        .some((r) => r.name === q.uri),
      'the producer does not receive it',
    );
    const handed = JSON.parse(readFileSync(join(fileURLToPath(root.uri), 'result.json'), 'utf8'));
    assert.equal(handed.summary.orders, q.summary.orders, 'the file holds the result sales serves');

    const r = await chart(host, { data_source: q.uri });
    const s = r.structuredContent;
    assert.deepEqual([s.chart_type, s.x, s.y], ['line', 'date', 'revenue'], 'orders: a daily time series by default');
    assert.equal(s.rows, q.summary.byDay.length);
    assert.equal(s.total, q.summary.revenue, `the chart encodes ¥${q.summary.revenue}, not the 100 rows listed`);
    const listed = (q.rows as Array<{ revenue: number }>).reduce((a, x) => a + x.revenue, 0);
    assert.ok(s.total > listed * 10, `whole result (${s.total}) vs the rows listed (${listed})`);
    assert.match(text(r), new RegExp(`only 100 of ${q.summary.orders} orders.*daily totals of all ${q.summary.orders} orders`));
  } finally {
    await host.close();
  }
  assert.ok(!existsSync(join(dir, 'query-results')) || readdirSync(join(dir, 'query-results')).length === 0, 'close() removes the files');
});

test('each table gets a default chart whose encoded total equals the query total', { skip, timeout: 180_000 }, async () => {
  const host = newHost();
  const want: Record<string, [string, string]> = {
    orders: ['line', 'date'],
    products: ['bar', 'product'],
    regions: ['bar', 'region'],
    channels: ['bar', 'channel_name'],
  };
  try {
    await host.start();
    for (const [table, [type, x]] of Object.entries(want)) {
      const q = await query(host, table);
      const r = await chart(host, { data_source: q.uri });
      const s = r.structuredContent;
      assert.deepEqual([s.chart_type, s.x, s.y], [type, x, 'revenue'], table);
      assert.equal(s.total, q.summary.revenue, `${table}: the marks add up to the reported revenue`);
      assert.match(text(r), /Note: .*this chart shows/, `${table}: the chart says what it shows`);
      // The CSV form of the same result, and an explicit chart type, keep the whole result too.
      const pie = await chart(host, { data_source: q.csvUri, chart_type: 'pie' });
      assert.equal(pie.structuredContent.total, q.summary.revenue, `${table} as pie from /csv`);
    }
  } finally {
    await host.close();
  }
});

for (const era of ['modern', 'legacy'] as const) {
  test(`${era === 'modern' ? '2026-07-28 (MRTR)' : '2025-11-25 (push)'} over stdio: overlapping queries and charts each get their own result, and a result made after charts read its roots reaches it`, {
    skip,
    timeout: 180_000,
  }, async () => {
    // Pin the era as a cached verdict would (no store: the process-wide verdicts), so the same servers
    // run on 2025-11-25 too: roots/list pushed and cached by charts, notifications/roots/list_changed.
    for (const def of Object.values(config.servers))
      await processEraVerdicts.putEraVerdict({ defHash: eraVerdictKey(def), era, verifiedAt: Date.now() });
    const host = newHost();
    try {
      await host.start();
      assert.deepEqual(
        host.listServers().map((s) => s.era),
        [era, era],
      );
      const regions = ['北京', '上海', '广州', '深圳'];
      const qs = await Promise.all(regions.map((region) => query(host, 'regions', { region })));
      const charts = await Promise.all(qs.map((q) => chart(host, { data_source: q.uri, chart_type: 'bar' })));
      charts.forEach((c, i) => {
        assert.equal(c.structuredContent.data_source, qs[i].uri);
        assert.equal(c.structuredContent.total, qs[i].summary.revenue, regions[i]);
      });
      // charts has read (and on 2025-11-25 cached) its roots; a new result must still reach it.
      const later = await query(host, 'channels', { region: '成都' });
      const c = await chart(host, { data_source: later.uri });
      assert.equal(c.structuredContent.total, later.summary.revenue);
    } finally {
      await host.close();
      for (const def of Object.values(config.servers)) await processEraVerdicts.deleteEraVerdict(eraVerdictKey(def));
    }
  });
}

test('after a restart, a result URI from before is handed over again (sales kept it)', { skip, timeout: 180_000 }, async () => {
  let uri: string;
  let revenue: number;
  const first = newHost();
  try {
    await first.start();
    const q = await query(first, 'channels', { range: 'last_month' });
    uri = q.uri;
    revenue = q.summary.revenue;
  } finally {
    await first.close();
  }
  const second = newHost();
  try {
    await second.start();
    assert.ok(!second.listRoots().some((r) => r.name === uri), 'a new host starts with no query-result roots');
    const r = await chart(second, { data_source: uri, chart_type: 'bar' });
    assert.equal(r.structuredContent.total, revenue);
    const missing: any = await second.callTool('charts', 'generate_chart', {
      data_source: 'sales://results/0123456789abcdef',
      chart_type: 'bar',
    });
    assert.equal(missing.isError, true);
    assert.match(text(missing), /no such query result was handed to this server.*run the query/);
  } finally {
    await second.close();
  }
});

test('a chart asked for in a form names the query results handed over, and charts the one chosen', { skip, timeout: 120_000 }, async () => {
  let uri = '';
  const presenter = new ScriptedPresenter([
    (prompt) => {
      assert.match(prompt.message, new RegExp(`Recent query results: .*${uri.replace(/[/.]/g, '\\$&')}`));
      return { action: 'accept', content: { data_source: uri, chart_type: 'pie', title: 'Share by channel' } };
    },
  ]);
  const host = newHost(presenter);
  try {
    await host.start();
    const q = await query(host, 'channels');
    uri = q.uri;
    const r = await chart(host, {});
    assert.equal(presenter.prompts.length, 1);
    assert.deepEqual([r.structuredContent.chart_type, r.structuredContent.x], ['pie', 'channel_name']);
    assert.equal(r.structuredContent.total, q.summary.revenue);
  } finally {
    await host.close();
  }
});
