// Elicitation through the toolkit on both eras with real SDK v2 peers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod/v4';
import { createMcpHandler, InMemoryTransport } from '@modelcontextprotocol/server';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createParleyServer, createShared } from '../src/server/index.js';
import { legacyPair, modernPair, text, v2Client } from './fixtures/toolkit/peers.js';

for (const era of ['legacy', 'modern'] as const) {
  const pair = era === 'legacy' ? legacyPair : modernPair;
  test(`${era}: accept, decline, cancel`, async () => {
    let action = 'accept';
    const p = await pair(() => (action === 'accept' ? { action, content: { name: 'Ada', age: 36 } } : { action }));
    try {
      assert.equal(text(await p.client.callTool({ name: 'greet', arguments: {} })), 'hello Ada (36)');
      action = 'decline';
      assert.equal(text(await p.client.callTool({ name: 'greet', arguments: {} })), 'no:decline');
      action = 'cancel';
      assert.equal(text(await p.client.callTool({ name: 'greet', arguments: {} })), 'no:cancel');
    } finally {
      await p.close();
    }
  });
  test(`${era}: a handler that catches errors still suspends when it rethrows isSuspendSignal`, async () => {
    const p = await pair(() => ({ action: 'accept', content: { name: 'Ada' } }));
    try {
      assert.equal(text(await p.client.callTool({ name: 'careful', arguments: {} })), 'careful Ada');
    } finally {
      await p.close();
    }
  });
  test(`${era}: a handler that catches every error (the suspend signal too) still gets the person's answer`, async () => {
    const p = await pair(() => ({ action: 'accept', content: { name: 'Ada' } }));
    try {
      const r: any = await p.client.callTool({ name: 'careless', arguments: {} });
      assert.equal(text(r), 'careless Ada');
      assert.notEqual(r.isError, true);
    } finally {
      await p.close();
    }
  });
  test(`${era}: two asks in order`, async () => {
    const p = await pair((r) =>
      r.params.message === 'First?' ? { action: 'accept', content: { first: 'Ada' } } : { action: 'accept', content: { last: 'Lovelace' } },
    );
    try {
      assert.equal(text(await p.client.callTool({ name: 'two', arguments: { x: 1 } })), 'Ada Lovelace 1');
    } finally {
      await p.close();
    }
  });
}

test('resource passthrough reaches the underlying McpServer', async () => {
  const p = await legacyPair(() => ({ action: 'cancel' }));
  try {
    const r: any = await p.client.readResource({ uri: 'parley://readme' });
    assert.equal(r.contents[0].text, 'hello');
  } finally {
    await p.close();
  }
});

// prepare() checks a schema once and remembers it by its JSON text for the revision, not by the object:
// a raw schema object changed after a first ask is checked again, so a sensitive field added to it is
// still refused (a cache keyed by the object would send it).
for (const era of ['legacy', 'modern'] as const) {
  test(`${era}: a raw schema object changed between two asks is checked again (an added password field is refused)`, async () => {
    const shared = createShared();
    const asked: string[] = [];
    const factory = () => {
      const p = createParleyServer({ name: 'mutating', version: '1', shared });
      p.tool('mutate', { description: 'asks twice with one schema object', inputSchema: z.object({}) }, async (_a, ctx) => {
        const form: { type: 'object'; properties: Record<string, { type: 'string'; title?: string }> } = {
          type: 'object',
          properties: { name: { type: 'string' } },
        };
        await ctx.elicit('Name?', form);
        form.properties.password = { type: 'string', title: 'Password' };
        try {
          await ctx.elicit('Again?', form);
          return { content: [{ type: 'text', text: 'sent' }] };
        } catch (e) {
          return { content: [{ type: 'text', text: (e as Error).message }] };
        }
      });
      return p.mcp;
    };
    const client = v2Client(
      (r) => {
        asked.push(r.params.message);
        return { action: 'accept', content: { name: 'Ada' } };
      },
      era === 'modern' ? { mode: 'auto' } : {},
    );
    let stop: () => Promise<unknown>;
    if (era === 'legacy') {
      const server = factory();
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(b);
      await client.connect(a);
      stop = () => server.close();
    } else {
      const handler = createMcpHandler(factory, { legacy: 'reject' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL('http://test.local/mcp'), { fetch: (u, i) => handler.fetch(new Request(u, i)) }),
      );
      stop = async () => handler.close?.();
    }
    try {
      const r = text(await client.callTool({ name: 'mutate', arguments: {} }));
      assert.match(r, /must not ask for sensitive data: field "password"/);
      assert.deepEqual(asked, ['Name?'], 'only the first form was sent');
    } finally {
      await client.close();
      await stop();
    }
  });
}
