// A legacy HTTP+SSE server (2024-11-05 transport, `type: 'sse'` or the fallback of `type: 'http'`) that
// streams one endless event: parley reads at most MAX_HTTP_MESSAGE_CHARS of it, cuts the stream and
// fails the start, as it does for Streamable HTTP (servers-wire-repair.test.ts). Before, the SDK's
// EventSource buffered the line without bound (3.4 GB and a crash for the Streamable HTTP twin).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServerManager } from '../src/host/servers/index.js';
import { MAX_HTTP_MESSAGE_CHARS } from '../src/host/servers/wire-repair.js';
import type { HttpServerDef } from '../src/host/config/types.js';
import { clientInfo, fastStop, scriptedHandlers } from './fixtures/servers-host/helpers.js';

/** Most the hostile server writes before it gives up: four times the cap. */
const LIMIT = 4 * MAX_HTTP_MESSAGE_CHARS;

test('a legacy SSE server streaming an endless event is cut off at MAX_HTTP_MESSAGE_CHARS and the start fails', {
  timeout: 60_000,
}, async (t) => {
  /** Bytes written on each event stream parley opened, and where each was closed. */
  const streams: Array<{ written: number; closedAt?: number }> = [];
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('event: endpoint\ndata: /messages\n\n');
      res.write('event: message\ndata: {"jsonrpc":"2.0","id":0,"result":{"x":"');
      const chunk = 'a'.repeat(64 * 1024);
      const s: { written: number; closedAt?: number } = { written: 0 };
      streams.push(s);
      const pump = () => {
        while (s.written < LIMIT && !res.destroyed) {
          s.written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.on('close', () => (s.closedAt = s.written));
      pump();
      return;
    }
    req.resume();
    req.on('end', () => res.writeHead(202).end('Accepted'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  t.after(() => server.closeAllConnections());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`;
  const def: HttpServerDef = { name: 'evil', type: 'sse', url, headers: {}, origin: { file: '<test>', pointer: '/servers/evil' } };
  const m = new ServerManager({ evil: def }, { handlers: scriptedHandlers().handlers, clientInfo, stop: fastStop });
  t.after(() => m.stopAll());
  const err = await m.start('evil').then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  assert.match(err?.message ?? 'it started', /an SSE event over 16777216 characters \(MAX_HTTP_MESSAGE_CHARS\)/);
  assert.equal(streams.length, 1, 'the event stream was not opened again');
  const first = streams[0];
  for (let i = 0; i < 100 && first.closedAt === undefined; i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(first.closedAt !== undefined, `parley closed the stream (the server wrote ${first.written} bytes and was still connected)`);
  assert.ok(first.closedAt! < 2 * MAX_HTTP_MESSAGE_CHARS, `closed after ${first.closedAt} bytes, within twice the cap`);
});
