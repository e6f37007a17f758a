// A 2025-era HTTP session that sends a second request with the id of one still in flight (basic
// §Requests: ids are unique per session). The SDK's transport maps response streams by request id, so
// before the check the second POST took over the first's stream: the first call's answer ("hello A")
// came back on the second POST and the first POST never got an answer. Now the second POST is refused
// 400 with -32600 naming the id, and the first call completes on its own stream. Raw HTTP: an SDK client
// never reuses an id, a hostile or broken one may.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createGateway } from '../src/gateway/index.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';

const H = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The JSON-RPC messages of an SSE or JSON response, as they arrive; `onMessage` may answer them. */
async function messages(res: Response, onMessage: (m: Record<string, unknown>) => void, timeoutMs = 20_000) {
  const got: Array<Record<string, unknown>> = [];
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    got.push((await res.json()) as Record<string, unknown>);
    return got;
  }
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    const x = await Promise.race([reader.read(), new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), Math.max(0, left)))]);
    if (x === 'timeout') {
      await reader.cancel();
      throw new Error(`no end of the response within ${timeoutMs} ms; got ${JSON.stringify(got)}`);
    }
    if (x.done) return got;
    buf += dec.decode(x.value, { stream: true });
    let at: number;
    while ((at = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, at);
      buf = buf.slice(at + 1);
      if (!line.startsWith('data: ') || line.trim() === 'data:') continue; // 2025-11-25's priming event is empty
      const m = JSON.parse(line.slice(6)) as Record<string, unknown>;
      got.push(m);
      onMessage(m);
    }
  }
}

let url: string;
let stop: () => Promise<void>;
before(async () => {
  const gw = createGateway(gatewayConfig({ v2: fixture('v2', 'v2-dual.mjs') }));
  ({ url, stop } = await serveGateway(gw));
});
after(() => stop());

/** A fresh initialized 2025-era session on `revision`: its headers, a POST of one message, and the tools/call of v2__ask with id 1. */
async function openSession(revision: '2025-06-18' | '2025-11-25') {
  const init = await fetch(url, {
    method: 'POST',
    headers: H,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: revision, capabilities: { elicitation: {} }, clientInfo: { name: 'dup', version: '1' } },
    }),
  });
  const sid = init.headers.get('mcp-session-id')!;
  await init.text();
  const h = { ...H, 'mcp-session-id': sid, 'mcp-protocol-version': revision };
  const post = (m: unknown) => fetch(url, { method: 'POST', headers: h, body: JSON.stringify(m) });
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'v2__ask', arguments: {} } };
  /** A `messages` handler that accepts each elicitation with `{name}`. */
  const answer = (name: string) => (m: Record<string, unknown>) => {
    if (m.method === 'elicitation/create')
      void post({ jsonrpc: '2.0', id: m.id, result: { action: 'accept', content: { name } } }).then((r) => r.text());
  };
  return { h, post, call, answer, end: () => fetch(url, { method: 'DELETE', headers: h }) };
}

/** The text of the result for request id 1 among `got`. */
const resultText = (got: Array<Record<string, unknown>>) =>
  (got.find((m) => m.id === 1 && 'result' in m) as { result?: { content: Array<{ text: string }> } } | undefined)?.result?.content[0].text;

describe('gateway: a request id reused while its request is in flight (2025-06-18 over HTTP)', () => {
  it('is refused 400 -32600 naming the id, and the first call still gets its own answer', { timeout: 60_000 }, async () => {
    const { post, call, answer, end } = await openSession('2025-06-18');
    const a = await post(call);
    const first = messages(a, answer('A'));
    // The first call now waits on its elicitation; the same id again:
    const b = await post(call);
    assert.equal(b.status, 400);
    const refused = (await b.json()) as { id: unknown; error: { code: number; message: string } };
    assert.equal(refused.id, 1);
    assert.equal(refused.error.code, -32600);
    assert.match(refused.error.message, /request id 1 is already used by a request in flight on this session/);
    const got = await first;
    assert.equal(resultText(got), 'hello A', JSON.stringify(got));
    // Once that request has ended its id may be used again.
    const again = await messages(await post(call), answer('C'));
    assert.equal(resultText(again), 'hello C', JSON.stringify(again));
    await end();
  });
});

describe('gateway: a request id reused after its POST stream dropped, while the client may resume it (2025-11-25)', () => {
  it('is refused while the first is in flight; the resumed first call gets its own answer, then the id is free', {
    timeout: 60_000,
  }, async () => {
    const { h, post, call, answer, end } = await openSession('2025-11-25');
    // The first call's stream: read up to its elicitation (with its event id), then drop the connection.
    const drop = new AbortController();
    const a = await fetch(url, { method: 'POST', headers: h, body: JSON.stringify(call), signal: drop.signal });
    const reader = a.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    let lastId = '';
    let ask: { id: unknown } | undefined;
    while (!ask) {
      const x = await reader.read();
      assert.ok(!x.done, 'the stream ended before the elicitation');
      buf += dec.decode(x.value, { stream: true });
      for (const ev of buf.split('\n\n').slice(0, -1)) {
        const id = /^id: (.*)$/m.exec(ev)?.[1];
        if (id) lastId = id;
        const data = /^data: (.+)$/m.exec(ev)?.[1];
        if (data && (JSON.parse(data) as { method?: string }).method === 'elicitation/create') ask = JSON.parse(data);
      }
      buf = buf.slice(buf.lastIndexOf('\n\n') + 2);
    }
    drop.abort();
    await new Promise((r) => setTimeout(r, 200));
    // Within resumeWaitMs the first call is still in flight: its id is refused.
    const b = await post(call);
    assert.equal(b.status, 400, 'the reused id was taken while the first request is in flight');
    assert.match(((await b.json()) as { error: { message: string } }).error.message, /already used by a request in flight/);
    // The client resumes, answers, and gets the first call's own answer on the resumed stream.
    const resumed = await fetch(url, { method: 'GET', headers: { ...h, 'last-event-id': lastId } });
    assert.equal(resumed.status, 200);
    await (await post({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'A' } } })).text();
    const reader2 = resumed.body!.getReader();
    let text = '';
    while (!text.includes('hello A')) {
      const x = await reader2.read();
      assert.ok(!x.done, `the resumed stream ended without the answer: ${text}`);
      text += dec.decode(x.value, { stream: true });
    }
    assert.match(text, /hello A/);
    await reader2.cancel().catch(() => {});
    // Answered: the id may be used again.
    const again = await messages(await post(call), answer('C'));
    assert.equal(resultText(again), 'hello C', JSON.stringify(again));
    await end();
  });
});
