// wire-repair.ts: Streamable HTTP bodies (SSE and JSON) pass byte for byte unless a message's params
// are not an object; then only that message is rewritten, carrying the original params in _meta.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_HTTP_MESSAGE_CHARS, ORIGINAL_PARAMS, repairingFetch } from '../src/host/servers/wire-repair.js';
import { CALL_HEADER, MAX_STREAM_CALLS, runAsCall, StreamCalls } from '../src/host/servers/calls.js';

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

/** A body that sends `head`, then `piece` `times` times (an endless line when `times` is huge), in chunks. */
function endless(type: string, head: string, piece: string, times: number) {
  let sent = 0;
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent === 0) c.enqueue(enc.encode(head));
      if (sent++ >= times) return c.close();
      c.enqueue(enc.encode(piece));
    },
  });
  return { fetch: async () => new Response(body, { status: 200, headers: { 'content-type': type } }), sent: () => sent };
}

test('an SSE event or a JSON body over the cap ends the body with an error naming MAX_HTTP_MESSAGE_CHARS, read no further', {
  timeout: 60_000,
}, async () => {
  assert.equal(MAX_HTTP_MESSAGE_CHARS, 16 * 1024 * 1024);
  const max = 1024 * 1024;
  const piece = 'a'.repeat(64 * 1024);
  // One line that never ends (a server that streams a result forever without a newline).
  const sse = endless('text/event-stream', 'data: {"jsonrpc":"2.0","id":1,"result":{"x":"', piece, 200);
  const res = await repairingFetch(sse.fetch, max)('x');
  await assert.rejects(res.text(), /an SSE event over 1048576 characters \(MAX_HTTP_MESSAGE_CHARS\)/);
  assert.ok(sse.sent() < 40, `stopped reading after ${sse.sent()} chunks`);
  // Many short lines and no blank line: one event that never ends.
  const lines = endless('text/event-stream', '', `data: ${'b'.repeat(1000)}\n`, 2000);
  await assert.rejects((await repairingFetch(lines.fetch, max)('x')).text(), /an SSE event over/);
  const json = endless('application/json', '{"jsonrpc":"2.0","id":1,"result":{"x":"', piece, 200);
  await assert.rejects(repairingFetch(json.fetch, max)('x'), /a JSON body over 1048576 characters \(MAX_HTTP_MESSAGE_CHARS\)/);
  assert.ok(json.sent() < 40, `stopped reading after ${json.sent()} chunks`);
  // Under the cap, a long event in many chunks passes whole.
  const ok = endless('text/event-stream', 'data: {"jsonrpc":"2.0","id":1,"result":{"x":"', piece, 8);
  const text = await (await repairingFetch(ok.fetch, max)('x')).text();
  assert.equal(text.length, 'data: {"jsonrpc":"2.0","id":1,"result":{"x":"'.length + 8 * piece.length);
});

test('the body of an error status is capped too (the SDK reads it whole for its error message)', { timeout: 60_000 }, async () => {
  const max = 1024 * 1024;
  const piece = 'e'.repeat(64 * 1024);
  let sent = 0;
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent++ >= 2000) return c.close(); // 128 MiB unless reading stops
      c.enqueue(enc.encode(piece));
    },
  });
  const res = await repairingFetch(
    async () => new Response(body, { status: 500, statusText: 'Oops', headers: { 'content-type': 'text/plain' } }),
    max,
  )('x');
  assert.equal(res.status, 500);
  assert.equal(res.statusText, 'Oops');
  await assert.rejects(res.text(), /an error body over 1048576 characters \(MAX_HTTP_MESSAGE_CHARS\)/);
  assert.ok(sent < 40, `stopped reading after ${sent} chunks`);
  // A short error body passes whole.
  const small = await repairingFetch(async () => new Response('no such session', { status: 404 }), max)('x');
  assert.equal(await small.text(), 'no such session');
});

test("a tool call's POST: the call header never leaves parley; the requests on its stream are noted as that call's", async () => {
  const streams = new StreamCalls();
  let sent: Headers | undefined;
  const body = [
    'event: message\ndata: {"jsonrpc":"2.0","id":4,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}\n\n',
    'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n',
    'event: message\ndata: {"jsonrpc":"2.0","id":"r","method":"roots/list"}\n\n',
    'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n',
  ].join('');
  const f = repairingFetch(
    async (_input, init) => {
      sent = new Headers(init?.headers);
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    },
    MAX_HTTP_MESSAGE_CHARS,
    undefined,
    streams,
  );
  const headers = new Headers({ [CALL_HEADER]: 'call-1', accept: 'text/event-stream' });
  await (await f('http://127.0.0.1/mcp', { method: 'POST', headers, body: '{}' })).text();
  assert.equal(sent?.get(CALL_HEADER), null, 'the server never sees the header');
  assert.equal(sent?.get('accept'), 'text/event-stream');
  assert.equal(streams.size, 2, 'the two requests, not the notification or the response');
  assert.equal(streams.take(4), 'call-1');
  assert.equal(streams.take(4), undefined, 'taken once');
  assert.equal(streams.take('r'), 'call-1');
  // A POST without the header (another request, or a 2026-07-28 connection) notes nothing.
  await (await f('http://127.0.0.1/mcp', { method: 'POST', headers: new Headers(), body: '{}' })).text();
  assert.equal(streams.size, 0);
});

test('StreamCalls keeps at most MAX_STREAM_CALLS ids, oldest dropped first', () => {
  const s = new StreamCalls();
  for (let i = 0; i <= MAX_STREAM_CALLS; i++) s.note(i, `c${i}`);
  assert.equal(s.size, MAX_STREAM_CALLS);
  assert.equal(s.take(0), undefined);
  assert.equal(s.take(MAX_STREAM_CALLS), `c${MAX_STREAM_CALLS}`);
});

test('StreamCalls notes nothing while at most one call is in flight on its connection', async () => {
  const s = new StreamCalls();
  s.connection = {};
  s.note(1, 'a');
  assert.equal(s.size, 0, 'no call in flight');
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const one = runAsCall(s.connection, { tool: 't', callId: 'a' }, () => held);
  s.note(2, 'a');
  assert.equal(s.size, 0, 'one call in flight: the request is that call anyway');
  const two = runAsCall(s.connection, { tool: 't', callId: 'b' }, () => held);
  s.note(3, 'b');
  assert.equal(s.take(3), 'b', 'two calls in flight: noted');
  release();
  await Promise.all([one, two]);
});
