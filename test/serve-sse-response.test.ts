// serve() (src/server/serve.ts, ./node-response.ts) writes a 2025-era session's SSE answer as the SDK's
// transport produces it. Through the SDK's Node adapter (@hono/node-server's listener), a POST whose SSE
// stream starts with the event store's priming event alone was held on a timer (setTimeout, ≥ 1 ms) before
// its headers left, on every tools/call of a resumable session (issue 17 item 10). Counted here by a hook
// on the timers the server process arms, with a node:http client (which arms none of them).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import * as z from 'zod/v4';
import { McpServer } from '@modelcontextprotocol/server';
import { serve } from '../src/server/serve.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

function post(
  url: string,
  agent: Agent,
  body: unknown,
  headers: Record<string, string> = {},
  onHeaders?: () => void,
  slow = false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        onHeaders?.();
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
          // A slow reader: the server's socket fills and its writes must wait for `drain`.
          if (slow) {
            res.pause();
            setTimeout(() => res.resume(), 2);
          }
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function session(gate?: Promise<void>) {
  const h = await serve(
    () => {
      const s = new McpServer({ name: 'sse', version: '1' });
      s.registerTool('echo', { inputSchema: z.object({ t: z.string() }) }, async (a) => ({ content: [{ type: 'text', text: a.t }] }));
      s.registerTool('big', { inputSchema: z.object({ n: z.number().int() }) }, async (a) => ({
        content: [{ type: 'text', text: 'x'.repeat(a.n) }],
      }));
      s.registerTool('held', { inputSchema: z.object({}) }, async () => {
        await gate;
        return { content: [{ type: 'text', text: 'released' }] };
      });
      return s;
    },
    { http: {} },
  );
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const init = await post(h.url, agent, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sse-test', version: '1' } },
  });
  assert.equal(init.status, 200, init.text);
  const sid = String(init.headers['mcp-session-id']);
  const hdrs = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  assert.equal((await post(h.url, agent, { jsonrpc: '2.0', method: 'notifications/initialized' }, hdrs)).status, 202);
  return {
    call: (id: number, name: string, args: object, onHeaders?: () => void, slow = false) =>
      post(h.url, agent, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }, hdrs, onHeaders, slow),
    close: async () => {
      agent.destroy();
      await h.close();
    },
  };
}

it('a resumable session answers tools/call with no timer before the SSE headers', async () => {
  const s = await session();
  const calls = 40;
  const original = globalThis.setTimeout;
  let shortTimers = 0;
  try {
    await s.call(1, 'echo', { t: 'warm' });
    // Timers of ≤ 1 ms armed while the calls run: the hold was `setTimeout(resolve)`, one per call.
    globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...rest: unknown[]) => {
      if (!ms || ms <= 1) shortTimers++;
      return original(fn, ms, ...rest);
    }) as typeof setTimeout;
    for (let i = 2; i < calls + 2; i++) {
      const a = await s.call(i, 'echo', { t: `hi ${i}` });
      assert.equal(a.status, 200);
      assert.match(String(a.headers['content-type']), /^text\/event-stream/);
      // The priming event (resumability is on: the session has an event store), then the result.
      assert.match(a.text, /^id: [^\n]+\n(retry: \d+\n)?data: \n\n/);
      assert.ok(a.text.includes(`"text":"hi ${i}"`), a.text);
    }
  } finally {
    globalThis.setTimeout = original;
    await s.close();
  }
  assert.ok(shortTimers < calls / 4, `${shortTimers} short timers armed for ${calls} calls answered at once (the hold arms one per call)`);
});

it("a pending call's SSE headers reach the client before its result", { timeout: 10_000 }, async () => {
  let release!: () => void;
  const s = await session(new Promise<void>((r) => (release = r)));
  try {
    let headersSeen = false;
    const pending = s.call(1, 'held', {}, () => {
      headersSeen = true;
      release();
    });
    const a = await pending;
    assert.ok(headersSeen);
    assert.ok(a.text.includes('"text":"released"'), a.text);
  } finally {
    await s.close();
  }
});

it('a large SSE answer to a slow reader arrives whole (writes wait for drain)', { timeout: 60_000 }, async () => {
  const s = await session();
  try {
    const n = 3_000_000;
    const a = await s.call(1, 'big', { n }, undefined, true);
    assert.equal(a.status, 200);
    const event = a.text.split('\n\n').find((e) => e.includes('"result"'));
    assert.ok(event, a.text.slice(0, 200));
    const message = JSON.parse(event.slice(event.indexOf('data: ') + 6)) as { result: { content: Array<{ text: string }> } };
    assert.equal(message.result.content[0]?.text.length, n);
    // The session still answers on the same connection afterwards.
    assert.ok((await s.call(2, 'echo', { t: 'after' })).text.includes('"text":"after"'));
  } finally {
    await s.close();
  }
});
