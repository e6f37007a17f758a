// query_sales over real SDK v2 clients: the session configuration is negotiated by elicitation once, custom
// dates are asked only when needed, results are resources. Both eras.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { openSalesBackend, createSalesServer } from '../servers/sales/server.js';
import type { SalesBackend } from '../servers/sales/server.js';
import { legacyConnect, modernConnect, textOf } from './fixtures/servers/clients.js';
import type { SeenElicitation } from './fixtures/servers/clients.js';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { bounded, waitUntil } from './helpers/wait.js';
import { verifies } from './helpers/verifies.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-sales-srv-'));
let backend: SalesBackend;
before(() => {
  backend = openSalesBackend({ dbPath: join(dir, 'sales.db') });
});
after(() => {
  backend.close();
  rmSync(dir, { recursive: true, force: true });
});
const factory = () => createSalesServer(backend);

const answerConfig = (content: Record<string, unknown>) => (req: SeenElicitation) => {
  const wanted = Object.keys(req.requestedSchema.properties);
  return { action: 'accept', content: Object.fromEntries(Object.entries(content).filter(([k]) => wanted.includes(k))) };
};

test('legacy: the first call elicits table/range/region (enums from the data); the second reuses the session config', async () => {
  const c = await legacyConnect(factory, { answer: answerConfig({ table: 'regions', range: 'last_quarter', region: 'all' }) });
  try {
    const r1 = (await c.client.callTool({ name: 'query_sales', arguments: {} })) as any;
    assert.equal(r1.isError, undefined, textOf(r1));
    assert.equal(c.seen.length, 1);
    verifies('ELIC-0618-SUBSET-FLAT');
    const schema = c.seen[0].requestedSchema;
    for (const [k, prop] of Object.entries(schema.properties)) {
      assert.equal(prop.type, 'string', `${k} is a flat string/enum field`);
      assert.equal(prop.pattern, undefined, `${k} carries no pattern`);
    }
    // Only the missing required fields are asked; from/to wait until range is custom.
    assert.deepEqual(Object.keys(schema.properties).sort(), ['range', 'region', 'table']);
    assert.deepEqual([...(schema.required ?? [])].sort(), ['range', 'region', 'table']);
    assert.deepEqual(schema.properties.region.enum.slice(0, 5), ['all', '北京', '上海', '广州', '深圳']);
    assert.match(c.seen[0].message, /table, the date range .*2025-12-31.* and the region/);
    const sc = r1.structuredContent;
    assert.deepEqual([sc.from, sc.to, sc.config.table], ['2025-10-01', '2025-12-31', 'regions']);
    assert.match(sc.uri, /^sales:\/\/results\/[0-9a-f]{16}$/);
    assert.ok(sc.summary.orders > 0 && sc.rows.length >= 8);
    assert.match(textOf(r1), /regions · 2025-10-01\.\.2025-12-31 · region all/);
    assert.ok(r1.content.some((x: any) => x.type === 'resource_link' && x.uri === sc.uri));

    // Same session: no second question; arguments override the negotiated values.
    const r2 = (await c.client.callTool({ name: 'query_sales', arguments: { region: '深圳', range: 'last_month' } })) as any;
    assert.equal(c.seen.length, 1);
    assert.deepEqual([r2.structuredContent.config.region, r2.structuredContent.from], ['深圳', '2025-12-01']);

    // The result is a readable resource in JSON and CSV.
    const json = await c.client.readResource({ uri: sc.uri });
    assert.deepEqual(JSON.parse((json.contents[0] as any).text).summary, sc.summary);
    const csv = await c.client.readResource({ uri: sc.csvUri });
    assert.equal(csv.contents[0].mimeType, 'text/csv');
    assert.match((csv.contents[0] as any).text, /^region,region_en,orders,units,revenue\r\n/);
    const listed = await c.client.listResources();
    assert.ok(listed.resources.some((r) => r.uri === sc.uri));
    // SDK v2 2.4 answers a resources/read miss with -32602 on every revision (it maps -32002 at its era
    // encode seam, following 2026-07-28); 2025-11-25 resources.mdx names -32002. Measured, not chosen here.
    await assert.rejects(
      c.client.readResource({ uri: 'sales://results/0000000000000000' }),
      (e: any) => e.code === -32602 && /no saved sales result/.test(e.message),
    );
    // After configuration the tool's description names the session settings.
    const tools = await c.client.listTools();
    assert.match(tools.tools.find((t) => t.name === 'query_sales')!.description!, /regions, last_quarter, region all/);
    // reconfigure: forget the session configuration and ask again.
    await c.client.callTool({ name: 'query_sales', arguments: { reconfigure: true } });
    assert.equal(c.seen.length, 2);
  } finally {
    await c.close();
  }
});

test('custom range: from/to are asked in a second form (swapped dates asked again), once per session like the other fields; declining it queries nothing', async () => {
  let dateForms = 0;
  const c = await legacyConnect(factory, {
    answer: (req) => {
      if ('table' in req.requestedSchema.properties)
        return { action: 'accept', content: { table: 'orders', range: 'custom', region: '北京' } };
      dateForms++;
      assert.deepEqual(Object.keys(req.requestedSchema.properties).sort(), ['from', 'to']);
      assert.equal(req.requestedSchema.properties.from.format, 'date');
      if (dateForms === 1) return { action: 'accept', content: { from: '2024-02-29', to: '2024-02-01' } }; // swapped: asked again
      if (dateForms === 2) {
        assert.match(req.message, /Please correct: .*to \(2024-02-01\) is before from \(2024-02-29\); swap them/);
        return { action: 'accept', content: { from: '2024-02-01', to: '2024-02-29' } };
      }
      return { action: 'decline' };
    },
  });
  try {
    const r = (await c.client.callTool({ name: 'query_sales', arguments: { limit: 5 } })) as any;
    assert.equal(r.isError, undefined, textOf(r));
    assert.deepEqual([r.structuredContent.from, r.structuredContent.to, r.structuredContent.rows.length], ['2024-02-01', '2024-02-29', 5]);
    assert.ok(r.structuredContent.rows.every((x: any) => x.region === '北京' && x.order_date.startsWith('2024-02')));
    assert.equal(c.seen.length, 3);
    // Issue 15 item 5: the custom dates are remembered for the session like table/range/region.
    const again = (await c.client.callTool({ name: 'query_sales', arguments: { limit: 5 } })) as any;
    assert.equal(again.isError, undefined, textOf(again));
    assert.deepEqual([again.structuredContent.from, again.structuredContent.to], ['2024-02-01', '2024-02-29']);
    assert.equal(c.seen.length, 3, 'nothing asked again in the same session');
    // reconfigure forgets both forms; declining the dates then queries nothing.
    const declined = (await c.client.callTool({ name: 'query_sales', arguments: { reconfigure: true } })) as any;
    assert.equal(c.seen.length, 5);
    assert.equal(declined.isError, true);
    assert.match(textOf(declined), /custom date range was declined; nothing was queried/);
    // Bad dates given as arguments are refused with the field and the fix.
    verifies('ELIC-VALIDATE-BOTH-SIDES');
    const bad = (await c.client.callTool({ name: 'query_sales', arguments: { from: '2025-03-02', to: '2025-03-01' } })) as any;
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /\/to: to \(2025-03-01\) is before from \(2025-03-02\); swap them/);
  } finally {
    await c.close();
  }
});

test('injection attempts in arguments are refused by the enum before any SQL runs', async () => {
  const c = await legacyConnect(factory, { answer: answerConfig({ table: 'orders', range: 'last_month', region: 'all' }) });
  try {
    const r = (await c.client.callTool({ name: 'query_sales', arguments: { region: "北京'; DROP TABLE orders;--" } })) as any;
    assert.equal(r.isError, true);
    assert.match(textOf(r), /region/);
    assert.equal(c.seen.length, 0, 'nothing was asked for a refused call');
    assert.ok(backend.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'orders'").get());
  } finally {
    await c.close();
  }
});

test('all fields as arguments: no elicitation needed, even for a client without the elicitation capability', async () => {
  const c = await legacyConnect(factory, {});
  try {
    const r = (await c.client.callTool({
      name: 'query_sales',
      arguments: { table: 'channels', range: 'last_month', region: '上海' },
    })) as any;
    assert.equal(r.isError, undefined, textOf(r));
    assert.equal(r.structuredContent.rows.length, 4);
    // Arguments are a one-off override: they never become the negotiated configuration without a
    // person answering, so a later partial call still needs the missing fields.
    const later = (await c.client.callTool({ name: 'query_sales', arguments: { table: 'regions' } })) as any;
    assert.equal(later.isError, true);
    assert.match(textOf(later), /range/);
  } finally {
    await c.close();
  }
  const fresh = await legacyConnect(factory, {});
  try {
    const missing = (await fresh.client.callTool({ name: 'query_sales', arguments: { table: 'channels' } })) as any;
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /no form-mode elicitation capability/);
    assert.match(textOf(missing), /range/);
  } finally {
    await fresh.close();
  }
});

test('2026-07-28: the configuration arrives through input_required and the query runs', async () => {
  const c = await modernConnect(factory, { answer: answerConfig({ table: 'products', range: 'last_month', region: '广州' }) });
  try {
    const r = (await c.client.callTool({ name: 'query_sales', arguments: {} })) as any;
    assert.equal(r.isError, undefined, textOf(r));
    assert.ok(c.seen.length >= 1);
    assert.deepEqual(
      [r.structuredContent.config.table, r.structuredContent.config.region, r.structuredContent.from],
      ['products', '广州', '2025-12-01'],
    );
    const res = await c.client.readResource({ uri: r.structuredContent.uri });
    assert.equal(JSON.parse((res.contents[0] as any).text).config.region, '广州');
  } finally {
    await c.close();
  }
});

// Issue 12 items 1 and 2 through the real parley-sales process over stdio (the process is the session,
// so the configuration cache is shared by every call of the connection), with SDK v2 clients on both eras.
const SALES_MAIN = ['--import', 'tsx', 'servers/sales/main.ts'];
async function stdioSales(mode: 'auto' | undefined, answer: (req: SeenElicitation) => unknown) {
  const seen: SeenElicitation[] = [];
  const c = new Client(
    { name: 'sales-stdio-test', version: '1' },
    { capabilities: { elicitation: { form: {} } }, ...(mode ? { versionNegotiation: { mode } } : {}) },
  );
  c.setRequestHandler('elicitation/create', async (r) => {
    const req = r.params as unknown as SeenElicitation;
    seen.push(req);
    return (await answer(req)) as never;
  });
  await c.connect(
    new StdioClientTransport({ command: process.execPath, args: [...SALES_MAIN, '--db', join(dir, 'sales.db')], stderr: 'ignore' }),
  );
  assert.equal(c.getProtocolEra(), mode ? 'modern' : 'legacy');
  return { client: c, seen };
}

for (const mode of [undefined, 'auto'] as const) {
  const era = mode ? '2026-07-28' : '2025-11-25';
  test(`${era} over stdio, fresh session, range custom: from/to are asked once and the first answer is used (issue 12 #2)`, async () => {
    const { client, seen } = await stdioSales(mode, (req) =>
      'table' in req.requestedSchema.properties
        ? { action: 'accept', content: { table: 'orders', range: 'custom', region: '上海' } }
        : { action: 'accept', content: { from: '2024-03-01', to: '2024-03-31' } },
    );
    try {
      const r = (await client.callTool({ name: 'query_sales', arguments: { limit: 3 } })) as any;
      assert.equal(r.isError, undefined, textOf(r));
      assert.deepEqual(
        seen.map((s) => Object.keys(s.requestedSchema.properties).sort().join(',')),
        ['range,region,table', 'from,to'],
        'the configuration, then the dates: nothing asked twice',
      );
      assert.ok(
        seen.every((s) => !/Please correct/.test(s.message)),
        seen.map((s) => s.message).join(' | '),
      );
      assert.deepEqual(
        [r.structuredContent.from, r.structuredContent.to, r.structuredContent.config.region],
        ['2024-03-01', '2024-03-31', '上海'],
      );
      // The session remembers range custom and its dates (issue 15 item 5): the next call asks nothing.
      const again = (await client.callTool({ name: 'query_sales', arguments: { limit: 1 } })) as any;
      assert.equal(again.isError, undefined, textOf(again));
      assert.equal(seen.length, 2);
      assert.deepEqual([again.structuredContent.from, again.structuredContent.to], ['2024-03-01', '2024-03-31']);
    } finally {
      await client.close();
    }
  });

  test(`${era} over stdio: two concurrent query_sales calls answered 北京 and 深圳 each run with their own answer, in either order (issue 12 #1)`, async () => {
    // Call "T" gives the table (asked: range, region); call "R" gives the range (asked: table, region).
    const held = new Map<'T' | 'R', (region: string) => void>();
    const { client } = await stdioSales(
      mode,
      (req) =>
        new Promise((resolve) => {
          const who = 'table' in req.requestedSchema.properties ? 'R' : 'T';
          held.set(who, (region) =>
            resolve({ action: 'accept', content: who === 'R' ? { table: 'regions', region } : { range: 'last_month', region } }),
          );
        }),
    );
    try {
      for (const [first, second] of [
        ['T', 'R'],
        ['R', 'T'],
      ] as const) {
        await client.callTool({
          name: 'query_sales',
          arguments: { reconfigure: true, table: 'orders', range: 'last_month', region: 'all' },
        });
        const calls = {
          T: client.callTool({ name: 'query_sales', arguments: { table: 'regions', reconfigure: true } }) as Promise<any>,
          R: Promise.resolve(undefined as any),
        };
        assert.ok(await waitUntil(() => held.has('T')), 'the first call was asked');
        calls.R = client.callTool({ name: 'query_sales', arguments: { range: 'last_month' } }) as Promise<any>;
        assert.ok(await waitUntil(() => held.has('R')), 'the second call was asked');
        // The first prompt is answered 北京 and the second 深圳; `first` is answered (and finishes) first.
        const region = { T: '北京', R: '深圳' };
        held.get(first)!(region[first]);
        held.delete(first);
        const r1 = await bounded(calls[first], 15_000, `call ${first}`);
        held.get(second)!(region[second]);
        held.delete(second);
        const r2 = await bounded(calls[second], 15_000, `call ${second}`);
        for (const [who, r] of [
          [first, r1],
          [second, r2],
        ] as const) {
          assert.equal(r.isError, undefined, textOf(r));
          assert.equal(r.structuredContent.config.region, region[who], `call ${who} (${first} answered first) runs with its own answer`);
        }
        assert.equal(held.size, 0, 'nothing was asked again');
      }
    } finally {
      await client.close();
    }
  });
}
