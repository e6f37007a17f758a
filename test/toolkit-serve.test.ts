// serve(): HTTP (sessionful legacy leg + modern handler) and stdio, with SDK v2 (both eras) and v1 clients.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { request } from 'node:http';
import { connect } from 'node:net';
import { createShared, serve } from '../src/server/index.js';
import { MAX_REQUEST_BODY_BYTES, REQUEST_RECEIVE_MS } from '../src/server/serve.js';
import { demoServer, text, v2Client } from './fixtures/toolkit/peers.js';
import { verifies } from './helpers/verifies.js';

const accept = () => ({ action: 'accept', content: { name: 'Ada' } });

function v1Client() {
  const c = new V1Client({ name: 'v1', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
  return c;
}

test('HTTP: v2 legacy, v2 auto (2026-07-28) and v1 clients all elicit', async () => {
  const shared = createShared();
  const h = await serve(() => demoServer(shared), { http: {} });
  try {
    assert.match(h.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const legacy = v2Client(accept);
    await legacy.connect(new StreamableHTTPClientTransport(new URL(h.url)));
    assert.equal(legacy.getProtocolEra?.(), 'legacy');
    assert.equal(text(await legacy.callTool({ name: 'greet', arguments: {} })), 'hello Ada');
    await legacy.close();
    const modern = v2Client(accept, { mode: 'auto' });
    await modern.connect(new StreamableHTTPClientTransport(new URL(h.url)));
    assert.equal(modern.getProtocolEra?.(), 'modern');
    assert.equal(text(await modern.callTool({ name: 'greet', arguments: {} })), 'hello Ada');
    await modern.close();
    const v1 = v1Client();
    await v1.connect(new V1Http(new URL(h.url)));
    assert.equal(text(await v1.callTool({ name: 'greet', arguments: {} })), 'hello Ada');
    await v1.close();
  } finally {
    await h.close();
  }
});

test('HTTP: foreign Host or Origin gets 403', async () => {
  const h = await serve(() => demoServer(createShared()), { http: {} });
  try {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const r1 = await fetch(h.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body,
    });
    assert.equal(r1.status, 403);
    verifies('TRANS-1125-ORIGIN-403');
    const port = new URL(h.url).port;
    const r2 = await new Promise<number>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const q = request(
          { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        q.on('error', reject);
        q.end(body);
      });
    });
    assert.equal(r2, 403);
    const status = async (origin: string) =>
      (await fetch(h.url, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body })).status;
    assert.equal(await status('null'), 403, 'the opaque origin "null" of sandboxed pages is refused');
    assert.equal(await status('localhost'), 403, 'an Origin that is not an origin URL is refused');
    assert.notEqual(await status(`http://localhost:${port}`), 403, 'a loopback page is let through');
  } finally {
    await h.close();
  }
});

/** One raw POST to `url` over a fresh connection: status, `connection` header and the body (`json` when it is JSON). */
function post(url: string, body: string, chunked = false) {
  const u = new URL(url);
  type Json = { id: unknown; error?: { code: number; message: string } };
  return new Promise<{ status: number; connection?: string; text: string; json: Json }>((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (!chunked) headers['content-length'] = String(Buffer.byteLength(body));
    const q = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        const json = /json/.test(res.headers['content-type'] ?? '') ? (JSON.parse(text) as Json) : { id: undefined };
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, text, json });
      });
    });
    q.on('error', reject);
    q.setTimeout(15_000, () => q.destroy(new Error('no answer within 15 s')));
    // Chunked: the body goes in 64 KiB writes, so the server sees it cross the cap while reading.
    if (chunked) for (let i = 0; i < body.length; i += 65_536) q.write(body.slice(i, i + 65_536));
    q.end(chunked ? undefined : body);
  });
}

test('HTTP: request bodies are read up to 4 MiB (UTF-8, a byte-order mark dropped); over it 413 naming the cap, not JSON -32700', {
  timeout: 60_000,
}, async () => {
  const h = await serve(() => demoServer(createShared()), { http: {} });
  try {
    assert.equal(MAX_REQUEST_BODY_BYTES, 4 * 1024 * 1024);
    // An initialize padded to just under the cap is read whole and answered.
    const init = (pad: number) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: { experimental: { pad: { text: 'x'.repeat(pad) } } },
          clientInfo: { name: 'big', version: '1' },
        },
      });
    const fits = init(MAX_REQUEST_BODY_BYTES - 400);
    assert.ok(Buffer.byteLength(fits) <= MAX_REQUEST_BODY_BYTES);
    const ok = await post(h.url, fits);
    assert.equal(ok.status, 200);
    assert.match(ok.text, /"serverInfo":\{"name":"demo"/);
    // Decoded as the SDK's toWebRequest decodes it: a leading byte-order mark is not part of the JSON.
    const bom = await post(h.url, `\uFEFF${init(10)}`, true);
    assert.equal(bom.status, 200, bom.text);
    // One byte over: refused, unread when Content-Length says so, and after reading past the cap when chunked.
    const over = init(MAX_REQUEST_BODY_BYTES);
    for (const chunked of [false, true]) {
      const r = await post(h.url, over, chunked);
      assert.equal(r.status, 413, `chunked: ${chunked}`);
      assert.equal(r.connection, 'close');
      assert.equal(r.json.error?.code, -32000);
      assert.match(r.json.error?.message ?? '', /request body over 4194304 bytes \(4 MiB\)/);
    }
    const bad = await post(h.url, '{"jsonrpc": "2.0", "id": 1, "method": ');
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error?.code, -32700, 'JSON-RPC Parse error');
    assert.equal(bad.json.id, null);
    assert.match(bad.json.error?.message ?? '', /^invalid JSON body: /);
  } finally {
    await h.close();
  }
});

/** Sends `head` and part of a body on a raw socket, then waits; resolves with what came back and when. */
function stall(url: string, head: string): Promise<{ text: string; ms: number }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const sock = connect(Number(u.port), u.hostname, () => sock.write(head));
    let text = '';
    sock.on('data', (d) => (text += d.toString('latin1')));
    sock.on('error', reject);
    sock.on('close', () => resolve({ text, ms: Date.now() - started }));
    setTimeout(() => (sock.destroy(), resolve({ text: `(still open) ${text}`, ms: Date.now() - started })), 15_000).unref();
  });
}

test('HTTP: a request whose body stalls gets 408 within requestReceiveMs (checked every second), and the connection closes; the default is 30 s', {
  timeout: 60_000,
}, async () => {
  assert.equal(REQUEST_RECEIVE_MS, 30_000);
  const h = await serve(() => demoServer(createShared()), { http: { requestReceiveMs: 1_500 } });
  try {
    const u = new URL(h.url);
    const body = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{';
    const partBody = `POST ${u.pathname} HTTP/1.1\r\nhost: ${u.host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 1000\r\n\r\n${body}`;
    const partHeaders = `POST ${u.pathname} HTTP/1.1\r\nhost: ${u.host}\r\ncontent-`;
    const [a, b] = await Promise.all([stall(h.url, partBody), stall(h.url, partHeaders)]);
    for (const r of [a, b]) {
      assert.match(r.text, /^HTTP\/1\.1 408 /, r.text);
      assert.ok(r.ms >= 1_400 && r.ms < 1_500 + 1_000 + 2_000, `ended after ${r.ms} ms`);
    }
    // A well-formed request on the same server is served as usual.
    const ok = await post(
      h.url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    );
    assert.equal(ok.status, 200);
  } finally {
    await h.close();
  }
});

const fixture = ['--import', 'tsx', 'test/fixtures/toolkit/server.ts'];

test('stdio: v2 legacy, v2 auto and v1 clients elicit through the fixture server (children run in parallel)', async () => {
  const v2 = [undefined, 'auto'] as const;
  await Promise.all([
    ...v2.map(async (mode) => {
      const c = v2Client(accept, { mode });
      await c.connect(new StdioClientTransport({ command: process.execPath, args: fixture, stderr: 'ignore' }));
      try {
        assert.equal(c.getProtocolEra(), mode ? 'modern' : 'legacy');
        assert.equal(text(await c.callTool({ name: 'greet', arguments: {} })), 'hello Ada');
      } finally {
        await c.close();
      }
    }),
    (async () => {
      const v1 = v1Client();
      await v1.connect(new V1Stdio({ command: process.execPath, args: fixture, stderr: 'ignore' }));
      try {
        assert.equal(text(await v1.callTool({ name: 'greet', arguments: {} })), 'hello Ada');
      } finally {
        await v1.close();
      }
    })(),
  ]);
});
