// The bounded per-session SSE event store behind resumable 2025-era streams (src/server/session-events.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { SessionEvents } from '../src/server/session-events.js';

const note = (i: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `n${i}` } });
const answer = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: {} });

async function replay(s: SessionEvents, last: string) {
  const got: Array<[string, JSONRPCMessage]> = [];
  const stream = await s.replayEventsAfter(last, { send: async (id, m) => void got.push([id, m]) });
  return { stream, got };
}

describe('SessionEvents', () => {
  it('replays only the events after Last-Event-ID on its own stream, not the priming event', async () => {
    const s = new SessionEvents();
    const prime = await s.storeEvent('a', {} as JSONRPCMessage);
    assert.equal(s.resumable, true);
    await s.storeEvent('b', note(0));
    const e1 = await s.storeEvent('a', note(1));
    await s.storeEvent('a', answer(7));
    assert.equal(await s.getStreamIdForEventId(prime), 'a');
    const r = await replay(s, prime);
    assert.equal(r.stream, 'a');
    assert.deepEqual(
      r.got.map(([, m]) => m),
      [note(1), answer(7)],
    );
    assert.deepEqual(
      (await replay(s, e1)).got.map(([, m]) => m),
      [answer(7)],
    );
    assert.ok(s.lastReplayAt > 0);
  });

  it('refuses an unknown, malformed or dropped Last-Event-ID instead of replaying with a gap', async () => {
    const s = new SessionEvents({ maxEvents: 3, maxBytes: 1_048_576, graceMs: 30_000 });
    const first = await s.storeEvent('a', note(1));
    for (let i = 2; i <= 5; i++) await s.storeEvent('a', note(i));
    assert.equal(await s.getStreamIdForEventId(first), undefined, 'its successors were dropped over maxEvents');
    await assert.rejects(replay(s, first), /unknown or expired Last-Event-ID/);
    assert.equal(await s.getStreamIdForEventId('nonsense'), undefined);
    assert.equal(await s.getStreamIdForEventId('99.a'), undefined);
  });

  it('keeps at most maxBytes, dropping the oldest', async () => {
    const s = new SessionEvents({ maxEvents: 1000, maxBytes: 300, graceMs: 30_000 });
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push(await s.storeEvent('a', note(i)));
    const kept = [];
    for (const id of ids) if (await s.getStreamIdForEventId(id)) kept.push(id);
    const size = Buffer.byteLength(JSON.stringify(note(0)));
    assert.ok(kept.length <= Math.floor(300 / size) + 1 && kept.length >= 1, `kept ${kept.length} of 10 at ${size} bytes each`);
    assert.equal(kept.at(-1), ids.at(-1), 'the newest stay');
  });

  it('drops a stream graceMs after its response was stored', async () => {
    const s = new SessionEvents({ maxEvents: 256, maxBytes: 1_048_576, graceMs: 1000 });
    const p = await s.storeEvent('a', {} as JSONRPCMessage);
    await s.storeEvent('a', answer(1));
    const open = await s.storeEvent('b', note(1));
    s.prune(Date.now() + 500);
    assert.equal(await s.getStreamIdForEventId(p), 'a', 'within the grace');
    s.prune(Date.now() + 1500);
    assert.equal(await s.getStreamIdForEventId(p), undefined, 'after the grace');
    assert.equal(await s.getStreamIdForEventId(open), 'b', 'a stream without a response stays');
  });

  it('drops a delivered stream deliveredGraceMs after its HTTP response was written out', async () => {
    const s = new SessionEvents({ graceMs: 30_000, deliveredGraceMs: 1000 });
    const p = await s.storeEvent('a', {} as JSONRPCMessage);
    await s.storeEvent('a', answer(1));
    const q = await s.storeEvent('b', {} as JSONRPCMessage);
    await s.storeEvent('b', answer(2));
    const now = Date.now();
    s.delivered([1], now);
    s.prune(now + 500);
    assert.equal(await s.getStreamIdForEventId(p), 'a', 'within the delivered grace');
    s.prune(now + 1500);
    assert.equal(await s.getStreamIdForEventId(p), undefined, 'delivered and past its grace');
    assert.equal(await s.getStreamIdForEventId(q), 'b', 'not delivered: kept for graceMs');
  });
});
