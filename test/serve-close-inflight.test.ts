// ServeHandle.close() with a call in flight: the client hears about it at once on every era instead of
// waiting for its own request timeout (a 2025-era session's stream used to just end, and an SDK v2
// client then waited 60 s by default). Real SDK v2 clients over HTTP on 127.0.0.1.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import * as z from 'zod/v4';
import { createParleyServer, createShared, serve } from '../src/server/index.js';

const shared = createShared();
function factory() {
  const s = createParleyServer({ name: 'closing', version: '1.0.0', shared });
  s.tool('slow', { description: 'Answers after 30 s', inputSchema: z.object({}) }, async () => {
    await new Promise((r) => setTimeout(r, 30_000).unref());
    return { content: [{ type: 'text', text: 'done' }] };
  });
  s.tool('ask', { description: 'Asks a question nobody answers', inputSchema: z.object({}) }, async (_a, ctx) => {
    const r = await ctx.elicit('Your name?', z.object({ name: z.string() }));
    return { content: [{ type: 'text', text: r.action }] };
  });
  return s;
}

const cases = [
  ['2025-11-25', 'slow'],
  ['2025-11-25', 'ask'],
  ['2026-07-28', 'slow'],
] as const;

for (const [revision, tool] of cases) {
  test(`${revision}: close() while "${tool}" is in flight rejects the client's call at once`, async () => {
    const handle = await serve(factory, { http: { port: 0 } });
    const client = new Client(
      { name: 't', version: '1' },
      {
        capabilities: { elicitation: { form: {} } },
        ...(revision === '2026-07-28' ? { versionNegotiation: { mode: 'auto' } } : { supportedProtocolVersions: [revision] }),
      },
    );
    client.setRequestHandler('elicitation/create', () => new Promise(() => {})); // the person never answers
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      const call = client.callTool({ name: tool, arguments: {} }, { timeout: 120_000 }).then(
        () => 'answered',
        (e: Error) => e.message,
      );
      await new Promise((r) => setTimeout(r, 300)); // the call reaches its handler
      const t0 = Date.now();
      await handle.close();
      const outcome = await Promise.race([call, new Promise<string>((r) => setTimeout(() => r('still pending'), 10_000).unref())]);
      assert.notEqual(outcome, 'still pending', `no answer ${Date.now() - t0} ms after close()`);
      assert.notEqual(outcome, 'answered');
      if (revision !== '2026-07-28') assert.match(outcome, /shutting down/);
    } finally {
      await client.close().catch(() => undefined);
      await handle.close().catch(() => undefined);
    }
  });
}
