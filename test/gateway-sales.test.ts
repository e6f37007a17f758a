// The gateway in front of the bundled servers (issue 6 "Done when"): the seed's story through
// `parley serve` — a 2025-era client and a 2026-07-28 client answer sales' configuration form, read the
// result resource, and charts draws it; decline is bridged too.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { stdioDef } from './fixtures/servers-host/helpers.js';
import { v2Client } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { bounded, waitUntil } from './helpers/wait.js';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const TSX = import.meta.resolve('tsx');

describe('gateway ↔ bundled sales and charts', () => {
  let dir: string;
  let gw: Gateway;
  let url: string;
  let stop: () => Promise<void>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-gw-sales-'));
    const db = join(dir, 'sales.db');
    gw = createGateway(
      gatewayConfig({
        sales: { ...stdioDef('sales', ['--import', TSX, join(REPO, 'servers/sales/main.ts'), '--db', db]), cwd: REPO },
        charts: {
          ...stdioDef('charts', ['--import', TSX, join(REPO, 'servers/charts/main.ts')]),
          cwd: REPO,
        },
      }),
    );
    ({ url, stop } = await serveGateway(gw, {}, () => rmSync(dir, { recursive: true, force: true })));
    await gw.space('default').host.start();
  });
  after(() => stop());

  {
    const mode = undefined;
    it('2025-11-25 client: query_sales asks its form through the gateway, the result is read and charted', async () => {
      const asked: string[] = [];
      const c = v2Client(
        (async (r: { params: { message: string; requestedSchema?: { properties: Record<string, unknown> } } }) => {
          asked.push(r.params.message);
          return { action: 'accept', content: { table: 'products', range: 'last_month', region: 'all' } };
        }) as never,
        mode ? { mode } : {},
      );
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const names = (await c.listTools()).tools.map((t) => t.name);
        assert.ok(names.includes('sales__query_sales') && names.includes('charts__generate_chart'), names.join(', '));
        const r = await c.callTool({ name: 'sales__query_sales', arguments: {} });
        assert.notEqual(r.isError, true, JSON.stringify(r.content));
        assert.match(asked[0] ?? '', /^\[sales\] /);
        const link =
          (r.content as Array<{ type: string; uri?: string }>).find((x) => x.type === 'resource_link')?.uri ??
          (r.structuredContent as { resultUri?: string } | undefined)?.resultUri;
        assert.match(link ?? '', /^sales:\/\/results\//, JSON.stringify(r));
        // No resources/list first: the result URI is found through sales' resource template.
        const read = await c.readResource({ uri: link! });
        assert.ok(read.contents.length > 0);
        const templates = (await c.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
        assert.equal(new Set(templates).size, templates.length, `a template two servers offer is listed once: ${templates.join(', ')}`);
        const chart = await c.callTool({ name: 'charts__generate_chart', arguments: { data_source: link, chart_type: 'bar' } });
        assert.notEqual(chart.isError, true, JSON.stringify(chart.content).slice(0, 400));
        assert.ok(
          (chart.content as Array<{ type: string }>).some((x) => x.type === 'image'),
          'a chart image came back',
        );
      } finally {
        await c.close();
      }
    });
  }

  it('2026-07-28 client: the configuration is remembered by the server; a custom range is asked and a decline is bridged', async () => {
    const asked: string[] = [];
    const c = v2Client((async (r: { params: { message: string } }) => (asked.push(r.params.message), { action: 'decline' })) as never, {
      mode: 'auto',
    });
    await c.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const r = await c.callTool({ name: 'sales__query_sales', arguments: { range: 'custom' } });
      assert.equal(r.isError, true);
      assert.match(JSON.stringify(r.content), /custom date range was declined/);
      assert.equal(asked.length, 1, 'only the custom range was asked: the session configuration was already complete');
      assert.match(asked[0], /^\[sales\] Custom range/);
    } finally {
      await c.close();
    }
  });
  it("two upstream clients call query_sales at once and answer 北京 and 深圳: each gets its own answer, never the other's (issue 12 #1)", async () => {
    // Both clients share the gateway's one sales connection (one session there); the answers cross:
    // the client asked first is answered last, then the other way round.
    const held = new Map<string, (region: string) => void>();
    const connect = async (who: 'x' | 'y', mode?: 'auto') => {
      const c = v2Client(
        ((r: { params: { requestedSchema: { properties: Record<string, unknown> } } }) =>
          new Promise((resolve) => {
            const props = r.params.requestedSchema.properties;
            held.set(who, (region) =>
              resolve({
                action: 'accept',
                content: Object.fromEntries(Object.entries({ table: 'regions', range: 'last_month', region }).filter(([k]) => k in props)),
              }),
            );
          })) as never,
        mode ? { mode } : {},
      );
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
      return c;
    };
    const x = await connect('x', 'auto'),
      y = await connect('y', 'auto');
    const region = { x: '北京', y: '深圳' } as const;
    try {
      for (const [first, second] of [
        ['x', 'y'],
        ['y', 'x'],
      ] as const) {
        // Forget the session configuration (every field given, so nothing is asked or stored).
        await x.callTool({
          name: 'sales__query_sales',
          arguments: { reconfigure: true, table: 'orders', range: 'last_month', region: 'all', limit: 1 },
        });
        const px = x.callTool({ name: 'sales__query_sales', arguments: { table: 'regions' } });
        assert.ok(await waitUntil(() => held.has('x')), 'x was asked');
        const py = y.callTool({ name: 'sales__query_sales', arguments: { range: 'last_month' } });
        assert.ok(await waitUntil(() => held.has('y')), 'y was asked');
        const calls = { x: px, y: py };
        held.get(first)!(region[first]);
        held.delete(first);
        const r1: any = await bounded(calls[first], 30_000, `${first}'s call`);
        held.get(second)!(region[second]);
        held.delete(second);
        const r2: any = await bounded(calls[second], 30_000, `${second}'s call`);
        for (const [who, r] of [
          [first, r1],
          [second, r2],
        ] as const) {
          assert.notEqual(r.isError, true, JSON.stringify(r.content));
          assert.equal(
            r.structuredContent?.config?.region,
            region[who],
            `client ${who} (${first} answered first) gets the data for its own answer`,
          );
        }
        assert.equal(held.size, 0, 'nothing asked again');
      }
    } finally {
      await Promise.all([x.close(), y.close()]);
    }
  });
});
