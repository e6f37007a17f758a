// wire-repair.ts: Streamable HTTP bodies (SSE and JSON) pass byte for byte unless a message's params
// are not an object; then only that message is rewritten, carrying the original params in _meta.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ORIGINAL_PARAMS, repairingFetch } from '../src/host/servers/wire-repair.js';

const serve = (body: string, type: string) =>
  repairingFetch(async () => new Response(body, { status: 200, headers: { 'content-type': type, 'content-length': String(body.length) } }));

test('SSE: other events pass unchanged; a request with params null is rewritten; CRLF and multi-line data are read', async () => {
  const good = 'event: message\r\nid: 1\r\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\r\n\r\n';
  const bad = 'event: message\ndata: {"jsonrpc":"2.0","id":7,\ndata: "method":"elicitation/create","params":null}\n\n';
  const ping = ': keep-alive\n\n';
  const res = await serve(good + bad + ping, 'text/event-stream')('http://127.0.0.1/mcp');
  const text = await res.text();
  assert.ok(text.startsWith('event: message\nid: 1\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'), text);
  const data = /event: message\ndata: (.*)\n\n: keep-alive/.exec(text)?.[1];
  assert.deepEqual(JSON.parse(data!), {
    jsonrpc: '2.0',
    id: 7,
    method: 'elicitation/create',
    params: { _meta: { [ORIGINAL_PARAMS]: null } },
  });
});

test('JSON: a batch with an array params entry is rewritten, a clean body is returned as is', async () => {
  const clean = '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}';
  assert.equal(await (await serve(clean, 'application/json')('x')).text(), clean);
  const batch = JSON.stringify([
    { jsonrpc: '2.0', id: 2, method: 'roots/list', params: [1] },
    { jsonrpc: '2.0', id: 3, result: {} },
  ]);
  const res = await serve(batch, 'application/json')('x');
  assert.equal(res.headers.get('content-length'), null, 'the old length is dropped');
  assert.deepEqual(JSON.parse(await res.text()), [
    { jsonrpc: '2.0', id: 2, method: 'roots/list', params: { _meta: { [ORIGINAL_PARAMS]: [1] } } },
    { jsonrpc: '2.0', id: 3, result: {} },
  ]);
});
