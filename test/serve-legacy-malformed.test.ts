// A 2025-era HTTP session (serve(), so the toolkit and the gateway) and POST bodies that are JSON but not
// one JSON-RPC 2.0 message. The SDK's session transport answered them -32700 Parse error with id null
// (the body parsed: JSON-RPC 2.0 §5.1 names -32600 Invalid Request, with the request's id), answered an
// empty batch 202 with nothing, and ran a batch's requests although MCP has no batches since 2025-06-18
// (transports §Sending Messages: the body MUST be a single message; parley's stdio guard already refuses
// them). Now each gets HTTP 400 with -32600 naming the rule, as over stdio; good messages are unchanged.
// Raw HTTP (an SDK client cannot send these) against the gateway, which serves through serve().
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createGateway } from '../src/gateway/index.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';

const H = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
type Reply = { id?: unknown; error?: { code: number; message: string }; result?: unknown };

describe('a 2025-era HTTP session and bodies that are not one JSON-RPC message', () => {
  let url: string;
  let stop: () => Promise<void>;
  let session: Record<string, string>;
  const post = async (body: string, headers: Record<string, string> = session) => {
    const r = await fetch(url, { method: 'POST', headers, body });
    const text = await r.text();
    const data = text.split('\n').find((l) => l.startsWith('data: {'));
    return { status: r.status, reply: (text ? JSON.parse(data ? data.slice(6) : text) : undefined) as Reply | undefined };
  };
  before(async () => {
    ({ url, stop } = await serveGateway(createGateway(gatewayConfig({}))));
    const init = await fetch(url, {
      method: 'POST',
      headers: H,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    session = { ...H, 'mcp-session-id': init.headers.get('mcp-session-id')! };
    await init.text();
    await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  });
  after(() => stop());

  for (const [what, body, id, rule] of [
    [
      'a batch of two pings',
      JSON.stringify([
        { jsonrpc: '2.0', id: 2, method: 'ping' },
        { jsonrpc: '2.0', id: 3, method: 'ping' },
      ]),
      null,
      /batches are not part of MCP \(since 2025-06-18\); send one message per request/,
    ],
    ['an empty batch', '[]', null, /batches are not part of MCP/],
    ['a number', '5', null, /a JSON-RPC message is a JSON object/],
    ['jsonrpc 1.0', '{"jsonrpc":"1.0","id":6,"method":"ping"}', 6, /"jsonrpc" must be "2\.0"/],
    ['params an array', '{"jsonrpc":"2.0","id":7,"method":"ping","params":[1]}', 7, /"params" must be an object/],
    ['method a number', '{"jsonrpc":"2.0","id":"m","method":7}', 'm', /"method" must be a string/],
    ['a response without result or error', '{"jsonrpc":"2.0","id":4}', null, /exactly one of "result" and "error"/],
  ] as const) {
    it(`${what}: HTTP 400, -32600 with ${id === null ? 'id null' : 'its id'}, naming the rule`, async () => {
      const { status, reply } = await post(body);
      assert.equal(status, 400);
      assert.equal(reply?.error?.code, -32600, JSON.stringify(reply));
      assert.equal(reply?.id, id);
      assert.match(reply!.error!.message, rule);
    });
  }

  it('a batch without a session id gets the same -32600, not "must be initialize"', async () => {
    const { status, reply } = await post(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }]), H);
    assert.equal(status, 400);
    assert.equal(reply?.error?.code, -32600);
    assert.match(reply!.error!.message, /batches are not part of MCP/);
  });

  it('good messages are unchanged: a ping is answered, a response is accepted', async () => {
    const ping = await post('{"jsonrpc":"2.0","id":20,"method":"ping"}');
    assert.deepEqual([ping.status, ping.reply?.id, ping.reply?.result], [200, 20, {}]);
    assert.equal((await post('{"jsonrpc":"2.0","id":8,"result":{}}')).status, 202);
  });
});
