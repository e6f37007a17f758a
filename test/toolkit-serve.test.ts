// serve(): HTTP (sessionful legacy leg + modern handler) and stdio, with SDK v2 (both eras) and v1 clients.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createShared, serve } from '../src/server/index.js';
import { demoServer, text, v2Client } from './fixtures/toolkit/peers.js';

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
    assert.equal(r1.status, 403); // req: TRANS-1125-ORIGIN-403
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
