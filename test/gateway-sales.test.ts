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
    gw = createGateway(gatewayConfig({
      sales: { ...stdioDef('sales', ['--import', TSX, join(REPO, 'servers/sales/main.ts'), '--db', db]), cwd: REPO },
      charts: { ...stdioDef('charts', ['--import', TSX, join(REPO, 'servers/charts/main.ts'), '--with-sales', '--sales-db', db]), cwd: REPO },
    }));
    ({ url, stop } = await serveGateway(gw, {}, () => rmSync(dir, { recursive: true, force: true })));
    await gw.space('default').host.start();
  });
  after(() => stop());

  {
    const mode = undefined;
    it('2025-11-25 client: query_sales asks its form through the gateway, the result is read and charted', async () => {
      const asked: string[] = [];
      const c = v2Client((async (r: { params: { message: string; requestedSchema?: { properties: Record<string, unknown> } } }) => {
        asked.push(r.params.message);
        return { action: 'accept', content: { table: 'products', range: 'last_month', region: 'all' } };
      }) as never, mode ? { mode } : {});
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const names = (await c.listTools()).tools.map((t) => t.name);
        assert.ok(names.includes('sales__query_sales') && names.includes('charts__generate_chart'), names.join(', '));
        const r = await c.callTool({ name: 'sales__query_sales', arguments: {} });
        assert.notEqual(r.isError, true, JSON.stringify(r.content));
        assert.match(asked[0] ?? '', /^\[sales\] /);
        const link = (r.content as Array<{ type: string; uri?: string }>).find((x) => x.type === 'resource_link')?.uri
          ?? (r.structuredContent as { resultUri?: string } | undefined)?.resultUri;
        assert.match(link ?? '', /^sales:\/\/results\//, JSON.stringify(r));
        // No resources/list first: the result URI is found through sales' resource template.
        const read = await c.readResource({ uri: link! });
        assert.ok(read.contents.length > 0);
        const templates = (await c.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
        assert.equal(new Set(templates).size, templates.length, `a template two servers offer is listed once: ${templates.join(', ')}`);
        const chart = await c.callTool({ name: 'charts__generate_chart', arguments: { data_source: link, chart_type: 'bar' } });
        assert.notEqual(chart.isError, true, JSON.stringify(chart.content).slice(0, 400));
        assert.ok((chart.content as Array<{ type: string }>).some((x) => x.type === 'image'), 'a chart image came back');
      } finally {
        await c.close();
      }
    });
  }

  it('2026-07-28 client: the configuration is remembered by the server; a custom range is asked and a decline is bridged', async () => {
    const asked: string[] = [];
    const c = v2Client((async (r: { params: { message: string } }) => (asked.push(r.params.message), { action: 'decline' })) as never, { mode: 'auto' });
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
});
