// mcp-parley/testing `connect()`: a real SDK v2 client on each revision against a toolkit server that
// elicits (accept, decline, cancel), answers from a function, one answer or a list, and two overlapping
// calls answered in crossed order each getting their own answer. Imports the package by name (the build).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod/v4';
import { createParleyServer, createShared } from 'mcp-parley/server';
import { connect, TEST_REVISIONS, type TestAnswer } from 'mcp-parley/testing';

const shared = createShared();
const eras: string[] = [];
function factory({ era }: { era: 'legacy' | 'modern' }) {
  eras.push(era);
  const server = createParleyServer({ name: 'asker', version: '1.0.0', shared });
  server.tool('ask', { description: 'Asks a name for a tag', inputSchema: z.object({ tag: z.string() }) }, async ({ tag }, ctx) => {
    const r = await ctx.elicit(`Name for ${tag}?`, z.object({ name: z.string().describe('A name') }));
    return { content: [{ type: 'text', text: r.action === 'accept' ? `${tag}:accept:${r.content.name}` : `${tag}:${r.action}` }] };
  });
  return server;
}

const text = (r: unknown) => ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

for (const revision of TEST_REVISIONS) {
  test(`${revision}: accept, decline and cancel reach the tool; the client speaks ${revision}`, async () => {
    eras.length = 0;
    const answers: TestAnswer[] = [{ action: 'accept', content: { name: 'Ada' } }, { action: 'decline' }, { action: 'cancel' }];
    const { client, asked, close } = await connect(factory, { revision, answer: answers });
    try {
      if (revision === '2026-07-28') assert.equal(client.getProtocolEra(), 'modern');
      else assert.equal(client.getNegotiatedProtocolVersion(), revision);
      assert.equal(text(await client.callTool({ name: 'ask', arguments: { tag: 'a' } })), 'a:accept:Ada');
      assert.equal(text(await client.callTool({ name: 'ask', arguments: { tag: 'b' } })), 'b:decline');
      assert.equal(text(await client.callTool({ name: 'ask', arguments: { tag: 'c' } })), 'c:cancel');
      assert.deepEqual(
        asked.map((p) => p.message),
        ['Name for a?', 'Name for b?', 'Name for c?'],
      );
      assert.ok(eras.length > 0 && eras.every((e) => e === (revision === '2026-07-28' ? 'modern' : 'legacy')), eras.join());
      // The list is used up: the fourth elicitation fails the call instead of hanging.
      const fourth = await client.callTool({ name: 'ask', arguments: { tag: 'd' } }).then(
        (r) => JSON.stringify(r),
        (e: Error) => e.message,
      );
      assert.match(fourth, /no answer left for elicitation #4/);
    } finally {
      await close();
      await close(); // idempotent
    }
  });

  test(`${revision}: two overlapping calls answered in crossed order each get their own answer`, async () => {
    const waiting = new Map<string, (a: TestAnswer) => void>();
    let bothAsked: () => void = () => {};
    const both = new Promise<void>((resolve) => {
      bothAsked = resolve;
    });
    const { client, close } = await connect(factory, {
      revision,
      answer: (params) =>
        new Promise<TestAnswer>((resolve) => {
          waiting.set(params.message, resolve);
          if (waiting.size === 2) bothAsked();
        }),
    });
    try {
      const first = client.callTool({ name: 'ask', arguments: { tag: 'first' } });
      const second = client.callTool({ name: 'ask', arguments: { tag: 'second' } });
      await both;
      waiting.get('Name for second?')?.({ action: 'accept', content: { name: 'Bea' } });
      assert.equal(text(await second), 'second:accept:Bea');
      waiting.get('Name for first?')?.({ action: 'accept', content: { name: 'Cy' } });
      assert.equal(text(await first), 'first:accept:Cy');
    } finally {
      await close();
    }
  });
}

test('one fixed answer serves every elicitation; the default answer is cancel', async () => {
  const fixed = await connect(factory, { answer: { action: 'accept', content: { name: 'Dee' } } });
  try {
    assert.equal(text(await fixed.client.callTool({ name: 'ask', arguments: { tag: 'x' } })), 'x:accept:Dee');
    assert.equal(text(await fixed.client.callTool({ name: 'ask', arguments: { tag: 'y' } })), 'y:accept:Dee');
  } finally {
    await fixed.close();
  }
  const none = await connect(factory, { revision: '2025-11-25' });
  try {
    assert.equal(text(await none.client.callTool({ name: 'ask', arguments: { tag: 'z' } })), 'z:cancel');
  } finally {
    await none.close();
  }
});

test('bad arguments are refused with the allowed values named', async () => {
  await assert.rejects(connect(factory, { revision: '2024-11-05' as never }), {
    name: 'RangeError',
    message: /revision must be one of 2025-06-18, 2025-11-25, 2026-07-28; got "2024-11-05"/,
  });
  await assert.rejects(connect(undefined as never), { name: 'TypeError', message: /factory must be a function/ });
});

test('an elicitation after the last listed answer fails the call with its message, on every revision (no hang)', {
  timeout: 30_000,
}, async () => {
  for (const revision of TEST_REVISIONS) {
    const { client, asked, close } = await connect(factory, { revision, answer: [] });
    try {
      const seen = await client.callTool({ name: 'ask', arguments: { tag: 'late' } }).then(
        (r) => (assert.equal(r.isError, true, `${revision}: ${JSON.stringify(r)}`), text(r)),
        (e: Error) => e.message,
      );
      assert.match(seen, /no answer left for elicitation #1 \("Name for late\?"\): the answers list has 0/, revision);
      assert.equal(asked.length, 1, revision);
    } finally {
      await close();
    }
  }
});
