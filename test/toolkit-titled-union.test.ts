// A toolkit tool that asks for a choice of titled options (a union of z.literal(v).meta({title})) works
// on every revision: 2025-06-18 has no titled options, so the same choice goes as its enum + enumNames;
// later revisions get oneOf of const/title. Real SDK v2 clients (in-memory on the 2025 eras, the
// web-standard handler on 2026-07-28).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMcpHandler, InMemoryTransport } from '@modelcontextprotocol/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import * as z from 'zod/v4';
import { createParleyServer, createShared } from '../src/server/index.js';

const shared = createShared();
const plan = z.union([z.literal('free').meta({ title: 'Free' }), z.literal('pro').meta({ title: 'Pro (paid)' })]);

function factory() {
  const server = createParleyServer({ name: 'plans', version: '1.0.0', shared });
  server.tool('choose', { description: 'Asks for a plan', inputSchema: z.object({}) }, async (_args, ctx) => {
    const r = await ctx.elicit('Which plan?', z.object({ plan }));
    return { content: [{ type: 'text', text: r.action === 'accept' ? `plan:${r.content.plan}` : r.action }] };
  });
  return server;
}

async function connect(revision: '2025-06-18' | '2025-11-25' | '2026-07-28', seen: Array<ElicitRequest['params']>) {
  const client = new Client(
    { name: 't', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(revision === '2026-07-28' ? { versionNegotiation: { mode: 'auto' } } : { supportedProtocolVersions: [revision] }),
    },
  );
  client.setRequestHandler('elicitation/create', async (req) => {
    seen.push(req.params);
    return { action: 'accept', content: { plan: 'pro' } } as ElicitResult;
  });
  if (revision === '2026-07-28') {
    const h = createMcpHandler(() => factory().mcp, { legacy: 'reject' });
    await client.connect(new StreamableHTTPClientTransport(new URL('http://t.local/mcp'), { fetch: (u, i) => h.fetch(new Request(u, i)) }));
  } else {
    const [a, b] = InMemoryTransport.createLinkedPair();
    await factory().mcp.connect(b);
    await client.connect(a);
  }
  return client;
}

for (const revision of ['2025-06-18', '2025-11-25', '2026-07-28'] as const) {
  test(`${revision}: a choice of titled options is asked in the revision's own form and answered`, async () => {
    const seen: Array<ElicitRequest['params']> = [];
    const client = await connect(revision, seen);
    try {
      const r = (await client.callTool({ name: 'choose', arguments: {} })) as { content: Array<{ text: string }>; isError?: boolean };
      assert.notEqual(r.isError, true, r.content[0]?.text);
      assert.equal(r.content[0].text, 'plan:pro');
      const prop = (seen[0] as { requestedSchema: { properties: Record<string, unknown> } }).requestedSchema.properties.plan;
      if (revision === '2025-06-18') assert.deepEqual(prop, { type: 'string', enum: ['free', 'pro'], enumNames: ['Free', 'Pro (paid)'] });
      else
        assert.deepEqual((prop as { oneOf: unknown }).oneOf, [
          { const: 'free', title: 'Free' },
          { const: 'pro', title: 'Pro (paid)' },
        ]);
    } finally {
      await client.close();
    }
  });
}
