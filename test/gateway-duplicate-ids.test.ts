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
      if (!line.startsWith('data: ')) continue;
      const m = JSON.parse(line.slice(6)) as Record<string, unknown>;
      got.push(m);
      onMessage(m);
    }
  }
}

describe('gateway: a request id reused while its request is in flight (2025-06-18 over HTTP)', () => {
  let url: string;
  let stop: () => Promise<void>;
  before(async () => {
    const gw = createGateway(gatewayConfig({ v2: fixture('v2', 'v2-dual.mjs') }));
    ({ url, stop } = await serveGateway(gw));
  });
  after(() => stop());

  it('is refused 400 -32600 naming the id, and the first call still gets its own answer', { timeout: 60_000 }, async () => {
    const init = await fetch(url, {
      method: 'POST',
      headers: H,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: { name: 'dup', version: '1' } },
      }),
    });
    const sid = init.headers.get('mcp-session-id')!;
    await init.text();
    const h = { ...H, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
    const post = (m: unknown) => fetch(url, { method: 'POST', headers: h, body: JSON.stringify(m) });
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'v2__ask', arguments: {} } };
    const answer = (name: string) => (m: Record<string, unknown>) => {
      if (m.method === 'elicitation/create')
        void post({ jsonrpc: '2.0', id: m.id, result: { action: 'accept', content: { name } } }).then((r) => r.text());
    };
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
    const result = got.find((m) => m.id === 1 && 'result' in m) as { result: { content: Array<{ text: string }> } } | undefined;
    assert.equal(result?.result.content[0].text, 'hello A', JSON.stringify(got));
    // Once that request has ended its id may be used again.
    const c = await post({ ...call, id: 1 });
    const again = await messages(c, answer('C'));
    assert.equal(
      (again.find((m) => m.id === 1 && 'result' in m) as { result?: { content: Array<{ text: string }> } })?.result?.content[0].text,
      'hello C',
      JSON.stringify(again),
    );
    await fetch(url, { method: 'DELETE', headers: h });
  });
});
