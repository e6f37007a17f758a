// Issue 16 item 4 through the gateway: an upstream client reading `sql-query://orders` against the
// downstream template `sql-query://{table}{?range}` gets the resource, after the missing `range` was asked
// (here by the gateway's fallback presenter, which stands in for the console) and filled into the URI.
// Before, the gateway read the bare URI from the server: "Resource not found", nobody asked.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { ScriptedPresenter, type InputRequestView, type ServerDef } from '../src/host/index.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';

const SERVER = fileURLToPath(new URL('./fixtures/templates/sdk-templates.mjs', import.meta.url));
const origin = { file: '<test>', pointer: '' };

describe('gateway: resources/read of a template URI with variables left out', () => {
  let gw: Gateway;
  let url: string;
  let stop: () => Promise<void>;
  const seen: InputRequestView[] = [];
  before(async () => {
    // One downstream server (2026-07-28, serveStdio); both downstream eras are covered host-side in host-templates.
    const servers: Record<string, ServerDef> = {
      sql: { name: 'sql', origin, type: 'stdio', command: process.execPath, args: [SERVER], env: {} } as ServerDef,
    };
    const console = new ScriptedPresenter([]);
    console.present = async (p) => {
      seen.push(p);
      return { action: 'accept', content: { range: 'last_month' } };
    };
    gw = createGateway(gatewayConfig(servers), { fallback: () => console });
    ({ url, stop } = await serveGateway(gw));
    await gw.space('default').host.start();
  });
  after(() => stop());

  for (const mode of [undefined, 'auto'] as const) {
    it(`${mode ? '2026-07-28' : '2025-11-25'} upstream client`, { timeout: 60_000 }, async () => {
      const c = new Client({ name: 'reader', version: '1' }, { capabilities: {}, ...(mode ? { versionNegotiation: { mode } } : {}) });
      const t = new StreamableHTTPClientTransport(new URL(url));
      await c.connect(t);
      try {
        const before = seen.length;
        const r = await c.readResource({ uri: 'sql-query://orders' });
        assert.equal((r.contents[0] as { text?: string }).text, 'rows of orders for last_month');
        assert.equal(seen.length - before, 1, 'one prompt, for range');
        assert.deepEqual(Object.keys(seen.at(-1)!.schema!.properties), ['range']);
      } finally {
        await t.terminateSession().catch(() => undefined);
        await c.close();
      }
    });
  }
});
