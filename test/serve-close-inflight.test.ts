// ServeHandle.close() with a call in flight: the client hears about it at once on every era instead of
// waiting for its own request timeout (a 2025-era session's stream used to just end, and an SDK v2
// client then waited 60 s by default). Real SDK v2 clients over HTTP on 127.0.0.1.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import * as z from 'zod/v4';
import { createParleyServer, createShared, serve } from '../src/server/index.js';

const shared = createShared();
/** Called when a call reaches its tool handler (set by each test). */
let reached = () => {};
function factory() {
  const s = createParleyServer({ name: 'closing', version: '1.0.0', shared });
  s.tool('slow', { description: 'Answers after 30 s', inputSchema: z.object({}) }, async () => {
    reached();
    await new Promise((r) => setTimeout(r, 30_000).unref());
    return { content: [{ type: 'text', text: 'done' }] };
  });
  s.tool('ask', { description: 'Asks a question nobody answers', inputSchema: z.object({}) }, async (_a, ctx) => {
    reached();
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
    // The call is in flight once its handler runs and, for "ask", once its question reached the client
    // (the question travels on the call's stream). A fixed sleep could close the server before the
    // request even arrived on a loaded machine: then the client saw a refused connection instead.
    let handled!: () => void;
    const inHandler = new Promise<void>((r) => (handled = r));
    let askedClient!: () => void;
    const asked = new Promise<void>((r) => (askedClient = r));
    reached = handled;
    client.setRequestHandler('elicitation/create', () => (askedClient(), new Promise(() => {}))); // the person never answers
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      const call = client.callTool({ name: tool, arguments: {} }, { timeout: 120_000 }).then(
        () => 'answered',
        (e: Error) => e.message,
      );
      const ready = tool === 'ask' ? Promise.all([inHandler, asked]) : inHandler;
      const before = await Promise.race([ready.then(() => 'in flight'), call]);
      assert.equal(before, 'in flight', 'the call ended before close()');
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
