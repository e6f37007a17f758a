// serve({http: {streamToolCalls}}) (the gateway's setting): a 2026-07-28 tools/call is answered as an SSE
// stream with keep-alive comments, for a client that accepts text/event-stream; one that accepts only
// application/json gets its result as one JSON body, as without the option (HTTP content negotiation:
// an answer in a type the client did not accept is one it may not read).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '@modelcontextprotocol/server';
import { serve, type ServeHandle } from '../src/server/index.js';

const call = (accept: string) => ({
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'slow',
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: {
      name: 'slow',
      arguments: {},
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
      },
    },
  }),
});

describe('serve(): 2026-07-28 tool calls streamed (streamToolCalls)', () => {
  let h: ServeHandle;
  let aborted = 0;
  before(async () => {
    h = await serve(
      () => {
        const s = new McpServer({ name: 'slow', version: '1' });
        s.registerTool('slow', { description: 'answers after 150 ms' }, async () => {
          await new Promise((r) => setTimeout(r, 150));
          return { content: [{ type: 'text', text: 'done' }] };
        });
        s.registerTool('wait', { description: 'waits until cancelled' }, async (ctx) => {
          await new Promise<void>((r) => ctx.mcpReq.signal.addEventListener('abort', () => r(), { once: true }));
          aborted++;
          return { content: [{ type: 'text', text: 'cancelled' }] };
        });
        return s;
      },
      { http: { port: 0, streamToolCalls: true, keepAliveMs: 40 } },
    );
  });
  after(() => h?.close());

  it('a client that accepts text/event-stream: an SSE stream with keep-alives, then the result', async () => {
    const r = await fetch(h.url, call('application/json, text/event-stream'));
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
    const text = await r.text();
    assert.match(text, /^: keepalive$/m);
    assert.match(text, /"text":"done"/);
  });

  it('a client that accepts application/json only: one JSON body', async () => {
    const r = await fetch(h.url, call('application/json'));
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await r.json()) as { id: number; result: { content: Array<{ text: string }> } };
    assert.equal(body.id, 7);
    assert.equal(body.result.content[0]!.text, 'done');
  });

  it('a client that drops a streamed call: the tool is cancelled (its signal aborts)', async () => {
    const ac = new AbortController();
    const init = call('application/json, text/event-stream');
    const r = await fetch(h.url, {
      ...init,
      headers: { ...init.headers, 'mcp-name': 'wait' },
      body: init.body.replace('"name":"slow"', '"name":"wait"'),
      signal: ac.signal,
    });
    assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
    ac.abort();
    const until = Date.now() + 5_000;
    while (aborted === 0 && Date.now() < until) await new Promise((res) => setTimeout(res, 20));
    assert.equal(aborted, 1);
  });
});
