// Issue 16 item 4, toolkit side: `server.resource(template, config, handler)` gets the variables a read
// leaves out in `ctx.missing` and asks for them with `ctx.elicit`: pushed on 2025-11-25, `input_required`
// on `resources/read` on 2026-07-28. Real SDK v2 clients (in-memory legacy pair; createMcpHandler fetch
// for 2026-07-28) and the parley host over stdio.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { createHost, ScriptedPresenter, type HostConfig, type InputRequestView, type ServerDef } from '../src/host/index.js';
import { DEFAULT_POLICY } from '../src/host/config/policy.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { serve } from '../src/server/index.js';
import { legacyConnect, modernConnect } from './fixtures/servers/clients.js';
import { templatesServer, RANGES } from './fixtures/templates/toolkit-templates.js';
import { hostInternals } from '../src/host/internals.js';

const factory = () => templatesServer();
const textOf = (r: { contents: Array<object> }) => r.contents.map((c) => (c as { text?: string }).text ?? '').join('\n');

for (const [era, connect] of [
  ['2025-11-25', legacyConnect],
  ['2026-07-28', modernConnect],
] as const) {
  describe(`toolkit template resources, ${era}`, () => {
    it('a read without {?range} reaches the handler with missing=[range]; ctx.elicit asks; the answer completes the read', async () => {
      const c = await connect(factory, {
        answer: (req) => ({ action: 'accept', content: { range: req.message.includes('products') ? 'all' : 'last_month' } }),
      });
      try {
        const r = await c.client.readResource({ uri: 'sql-query://orders' });
        assert.equal(textOf(r), 'rows of orders for last_month');
        assert.equal(r.contents[0].uri, 'sql-query://orders?range=last_month');
        assert.equal(c.seen.length, 1);
        assert.match(c.seen[0].message, /Which date range for orders\?/);
        assert.deepEqual(c.seen[0].requestedSchema.properties.range.enum, RANGES);
        // A complete URI is read without asking.
        assert.equal(textOf(await c.client.readResource({ uri: 'sql-query://regions?range=all' })), 'rows of regions for all');
        assert.equal(c.seen.length, 1);
        // Listed as a template; completions come from the config's complete callbacks.
        const { resourceTemplates } = await c.client.listResourceTemplates();
        assert.ok(
          resourceTemplates.some(
            (t) => t.uriTemplate === 'sql-query://{table}{?range}' && t.description === 'Rows of a table for a date range',
          ),
        );
        const done = await c.client.complete({
          ref: { type: 'ref/resource', uri: 'sql-query://{table}{?range}' },
          argument: { name: 'range', value: '' },
        });
        assert.deepEqual(done.completion.values, RANGES);
        // Overlapping reads of two tables: each answer goes to its own read.
        const [a, b] = await Promise.all([
          c.client.readResource({ uri: 'sql-query://orders' }),
          c.client.readResource({ uri: 'sql-query://products' }),
        ]);
        assert.deepEqual([textOf(a), textOf(b)], ['rows of orders for last_month', 'rows of products for all']);
      } finally {
        await c.close();
      }
    });

    it('a decline reads nothing and says why (ElicitationRefusedError → -32602 naming the URI)', async () => {
      const c = await connect(factory, { answer: () => ({ action: 'decline' }) });
      try {
        await assert.rejects(
          c.client.readResource({ uri: 'sql-query://orders' }),
          (e: { code?: number; message: string }) =>
            e.code === -32602 && /sql-query:\/\/orders: the user chose decline for the date range/.test(e.message),
        );
      } finally {
        await c.close();
      }
    });

    it('a handler that catches every error (the suspend signal too) still gets the answer', async () => {
      const c = await connect(factory, { answer: () => ({ action: 'accept', content: { range: 'all' } }) });
      try {
        assert.equal(textOf(await c.client.readResource({ uri: 'careless://orders' })), 'careless orders all');
      } finally {
        await c.close();
      }
    });

    it("a client without the elicitation capability gets the era's missing-capability error naming the URI and the field", async () => {
      const c = await connect(factory, {});
      try {
        await assert.rejects(c.client.readResource({ uri: 'sql-query://orders' }), (e: { code?: number; message: string; data?: any }) => {
          assert.match(e.message, /sql-query:\/\/orders: the client declared no form-mode elicitation capability.*Needed: range/);
          // A read has no tool arguments: the fix named is the URI.
          assert.match(
            e.message,
            /Give them in the URI \(sql-query:\/\/\{table\}\{\?range\}\), or use a client that supports elicitation\.$/,
          );
          // 2026-07-28: -32021 with data.requiredCapabilities, as for tools/call; 2025 eras: -32602.
          if (era === '2026-07-28') {
            assert.equal(e.code, -32021);
            assert.deepEqual(e.data?.requiredCapabilities, { elicitation: { form: {} } });
          } else assert.equal(e.code, -32602);
          return true;
        });
        assert.equal(c.seen.length, 0);
      } finally {
        await c.close();
      }
    });
  });
}

describe('toolkit template resource through the parley host (stdio, dual-era)', () => {
  const SERVER = fileURLToPath(new URL('./fixtures/templates/toolkit-templates-main.ts', import.meta.url));
  const origin = { file: '<test>', pointer: '' };
  const servers = {
    tk: { name: 'tk', origin, type: 'stdio', command: process.execPath, args: ['--import', 'tsx', SERVER], env: {} } as ServerDef,
  };
  const config = {
    servers,
    routes: [],
    policy: { ...DEFAULT_POLICY },
    presets: {},
    profile: {},
    roots: [],
    inputs: {},
    sources: [],
  } as HostConfig;
  const seen: InputRequestView[] = [];
  const host = createHost(config, {
    presenter: new ScriptedPresenter([(p) => (seen.push(p), { action: 'accept', content: { range: 'last_quarter' } })]),
  });
  after(() => host.close());

  it('the server asks (its own form, not the host fallback) and the host answers through the broker', { timeout: 60_000 }, async () => {
    const r = await host.readResource('tk', 'sql-query://orders');
    assert.equal(textOf(r), 'rows of orders for last_quarter');
    assert.equal(seen.length, 1);
    assert.match(seen[0].message, /Which date range for orders\?/);
    assert.equal(hostInternals(host).servers.info('tk')?.era, 'modern');
  });
});

describe('toolkit template resource over HTTP (serve({http}) on 127.0.0.1): parley host on 2026-07-28, SDK client on 2025-11-25', () => {
  let srv: Awaited<ReturnType<typeof serve>> | undefined;
  after(() => srv?.close());

  it('both eras ask for the missing variable and read the completed URI', { timeout: 60_000 }, async () => {
    srv = await serve(() => templatesServer(), { http: { port: 0 } });
    const origin = { file: '<test>', pointer: '' };
    const config = {
      servers: { tk: { name: 'tk', origin, type: 'http', url: srv.url, headers: {} } as ServerDef },
      routes: [],
      policy: { ...DEFAULT_POLICY },
      presets: {},
      profile: {},
      roots: [],
      inputs: {},
      sources: [],
    } as HostConfig;
    const seen: InputRequestView[] = [];
    const host = createHost(config, {
      presenter: new ScriptedPresenter([(p) => (seen.push(p), { action: 'accept', content: { range: 'all' } })]),
    });
    try {
      assert.equal(textOf(await host.readResource('tk', 'sql-query://regions')), 'rows of regions for all');
      assert.equal(hostInternals(host).servers.info('tk')?.era, 'modern');
      assert.match(seen[0].message, /Which date range for regions\?/);
    } finally {
      await host.close();
    }
    const client = new Client({ name: 'legacy-http', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler(
      'elicitation/create',
      async (r) =>
        (asked.push((r.params as { message: string }).message), { action: 'accept', content: { range: 'last_quarter' } }) as never,
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(srv.url)));
    try {
      assert.equal(client.getProtocolEra?.() ?? 'legacy', 'legacy');
      assert.equal(textOf(await client.readResource({ uri: 'sql-query://orders' })), 'rows of orders for last_quarter');
      assert.deepEqual(asked, ['Which date range for orders?']);
    } finally {
      await client.close();
    }
  });
});
