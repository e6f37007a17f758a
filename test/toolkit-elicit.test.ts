// Elicitation through the toolkit on both eras with real SDK v2 peers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { legacyPair, modernPair, text } from './fixtures/toolkit/peers.js';

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
