// docs/server.md's runnable example is the fixture file, and it works on both eras.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { InMemoryTransport, createMcpHandler } from '@modelcontextprotocol/server';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { factory } from './fixtures/toolkit/example.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';
import { connectOn, REVISIONS } from './fixtures/toolkit/testing-example.js';

test('the example in docs/server.md is byte-identical to test/fixtures/toolkit/example.ts', () => {
  const md = readFileSync('docs/server.md', 'utf8');
  const block = /```ts\n(\/\/ The runnable example[\s\S]*?)```/.exec(md)?.[1];
  assert.equal(block, readFileSync('test/fixtures/toolkit/example.ts', 'utf8'));
});

test('the example deploys after elicit + confirm on both eras', async () => {
  const answer = (r: any) =>
    r.params.message.startsWith('Where') ? { action: 'accept', content: { env: 'staging' } } : { action: 'accept', content: {} };
  const [a, b] = InMemoryTransport.createLinkedPair();
  const s = factory();
  await s.mcp.connect(b);
  const legacy = v2Client(answer);
  await legacy.connect(a);
  assert.equal(text(await legacy.callTool({ name: 'deploy', arguments: { service: 'api' } })), 'deployed api to staging');
  await legacy.close();
  const h = createMcpHandler(() => factory().mcp, { legacy: 'reject' });
  const modern = v2Client(answer, { mode: 'auto' });
  await modern.connect(new StreamableHTTPClientTransport(new URL('http://t.local/mcp'), { fetch: (u, i) => h.fetch(new Request(u, i)) }));
  assert.equal(text(await modern.callTool({ name: 'deploy', arguments: { service: 'api' } })), 'deployed api to staging');
  await modern.close();
});

test('the testing recipe in docs/server.md is byte-identical to test/fixtures/toolkit/testing-example.ts', () => {
  const md = readFileSync('docs/server.md', 'utf8');
  const block = /```ts\n(\/\/ Testing a toolkit server on every revision[\s\S]*?)```/.exec(md)?.[1];
  assert.equal(block, readFileSync('test/fixtures/toolkit/testing-example.ts', 'utf8'));
});

test('the testing recipe connects on each revision it names and the example deploys there', async () => {
  for (const revision of REVISIONS) {
    const seen: string[] = [];
    const { client, close } = await connectOn(revision, (p) => {
      seen.push(p.message);
      return p.message.startsWith('Where') ? { action: 'accept', content: { env: 'staging' } } : { action: 'accept', content: {} };
    });
    try {
      if (revision === '2026-07-28') assert.equal(client.getProtocolEra(), 'modern');
      else assert.equal(client.getNegotiatedProtocolVersion(), revision);
      assert.equal(text(await client.callTool({ name: 'deploy', arguments: { service: 'api' } })), 'deployed api to staging', revision);
      assert.deepEqual(seen, ['Where should it go?', 'Deploy api to staging?'], revision);
    } finally {
      await close();
    }
  }
});
