// SDK v1 1.32.2 client against the toolkit over an in-memory linked pair (v1's InMemoryTransport on
// both ends): accept, an invalid answer, URL mode with completion, and the missing-capability path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as V1InMemory } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, ElicitationCompleteNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createShared } from '../src/server/index.js';
import { demoServer, text } from './fixtures/toolkit/peers.js';
import { waitUntil } from './helpers/wait.js';

async function v1Pair(answer: (params: any) => unknown, capabilities: Record<string, unknown> = { elicitation: { form: {}, url: {} } }) {
  const [a, b] = V1InMemory.createLinkedPair();
  const server = demoServer(createShared());
  await server.mcp.connect(b as never);
  const client = new V1Client({ name: 'v1', version: '1' }, { capabilities });
  if ('elicitation' in capabilities) client.setRequestHandler(ElicitRequestSchema, async (r) => answer(r.params) as never);
  await client.connect(a);
  return {
    client,
    server,
    close: async () => {
      await client.close();
      await server.mcp.close();
    },
  };
}

test('v1 client: accept, and an invalid answer ends the call naming the field', async () => {
  let content: Record<string, unknown> = { name: 'Ada' };
  const p = await v1Pair(() => ({ action: 'accept', content }));
  try {
    assert.equal(text(await p.client.callTool({ name: 'greet', arguments: {} })), 'hello Ada');
    content = { name: 'Ada', age: -1 };
    const r: any = await p.client.callTool({ name: 'greet', arguments: {} });
    assert.equal(r.isError, true);
    assert.match(text(r), /"age" must be at least 0/);
  } finally {
    await p.close();
  }
});

test('v1 client: URL mode gets an elicitationId and the completion notification', async () => {
  const seen: any[] = [];
  const completed: string[] = [];
  const p = await v1Pair((params) => {
    seen.push(params);
    return { action: 'accept' };
  });
  p.client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (n) => void completed.push(n.params.elicitationId));
  try {
    assert.equal(text(await p.client.callTool({ name: 'login', arguments: {} })), 'accept:true:true');
    assert.equal(seen[0].mode, 'url');
    await waitUntil(() => completed.length > 0);
    assert.deepEqual(completed, [seen[0].elicitationId]);
  } finally {
    await p.close();
  }
});

test('v1 client without elicitation: nothing sent, isError lists the fields', async () => {
  const p = await v1Pair(() => ({ action: 'cancel' }), {});
  try {
    const r: any = await p.client.callTool({ name: 'greet', arguments: {} });
    assert.equal(r.isError, true);
    assert.match(text(r), /name \(Your name\)/);
  } finally {
    await p.close();
  }
});
