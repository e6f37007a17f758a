// Parked calls (src/gateway/park.ts): a 2026-07-28 upstream client answers prompts through
// input_required rounds while the downstream call waits in the gateway. The state machine is tested
// directly, then live with a manual-mode SDK v2 client that answers, forges and abandons rounds.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway, ParkingLot } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { waitUntil } from './helpers/wait.js';
import { hostInternals } from '../src/host/internals.js';
import { verifies } from './helpers/verifies.js';

const FORM = { mode: 'form' as const, message: 'm', requestedSchema: { type: 'object' as const, properties: {} } };
const never = new AbortController().signal;

describe('ParkingLot / ParkedCall', () => {
  it('batches prompts into one round, answers them from inputResponses, missing entries are cancel', async () => {
    const lot = new ParkingLot({ ttlMs: 60_000, batchMs: 5 });
    const p = lot.open('ada');
    let finish!: (t: string) => void;
    p.run(() => new Promise((r) => (finish = (t) => r({ content: [{ type: 'text', text: t }] }))));
    const a = p.ask(FORM, never),
      b = p.ask(FORM, never);
    const round = await p.next(never);
    assert.equal(round.kind, 'input');
    assert.deepEqual(Object.keys(round.kind === 'input' ? round.inputRequests : {}), ['e1', 'e2']);
    assert.deepEqual(p.answer({ e1: { action: 'accept', content: { x: 1 } }, e2: { action: 'bogus' } }), ['e2']);
    assert.deepEqual(await a, { action: 'accept', content: { x: 1 } });
    assert.deepEqual(await b, { action: 'cancel' });
    finish('done');
    const end = await p.next(never);
    assert.equal(end.kind, 'result');
    lot.close(p);
    assert.equal(lot.size, 0);
  });

  it('a call is only found by the user who made it', () => {
    const lot = new ParkingLot();
    const p = lot.open('ada');
    assert.equal(lot.get(p.id, 'ada'), p);
    assert.equal(lot.get(p.id, 'bob'), undefined);
    p.expire();
  });

  it('without a retry within ttlMs the call is abandoned: prompts cancel, the downstream call is aborted', async () => {
    const lot = new ParkingLot({ ttlMs: 50, batchMs: 1 });
    const p = lot.open('ada');
    let aborted = false;
    p.run((signal) => new Promise((_r, j) => signal.addEventListener('abort', () => ((aborted = true), j(signal.reason)))));
    const prompt = p.ask(FORM, never);
    assert.equal((await p.next(never)).kind, 'input');
    const keepAlive = setTimeout(() => undefined, 10_000); // the TTL timer is unref'd, as in the gateway
    assert.deepEqual(await prompt, { action: 'cancel' }); // resolves when the TTL fires (50 ms)
    clearTimeout(keepAlive);
    assert.equal(aborted, true);
    assert.equal(lot.size, 0);
  });
});

/** A gateway in front of the SDK v1 push fixture, parking calls for `ttlMs`; `stop()` closes both. */
function parkingGateway(ttlMs: number) {
  const self = { gw: undefined as unknown as Gateway, url: '', stop: async () => {} };
  before(async () => {
    self.gw = createGateway(gatewayConfig({ v1: fixture('v1', 'v1-push.mjs') }), { park: { ttlMs, batchMs: 5 } });
    ({ url: self.url, stop: self.stop } = await serveGateway(self.gw));
  });
  after(() => self.stop());
  return self;
}

async function manualClient(url: string) {
  const c = v2Client((async () => ({ action: 'cancel' })) as never, { mode: 'auto', manual: true });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  const call = (params: Record<string, unknown>) =>
    c.callTool({ name: 'v1__ask', arguments: {}, ...params } as never, { allowInputRequired: true } as never) as Promise<
      Record<string, unknown>
    >;
  return { c, call };
}

describe('gateway: a 2026-07-28 client driving the rounds by hand', () => {
  // The retries below must land within the TTL, which is armed when a round goes out: a long TTL, so a
  // slow machine between a result and its retry cannot expire the call (the TTL is tested on its own below).
  const g = parkingGateway(60_000);
  const manual = () => manualClient(g.url);

  it('input_required carries the downstream prompt; the retry with inputResponses completes the same call', async () => {
    const { c, call } = await manual();
    try {
      verifies('MRTR-INPUT-REQUESTS-SHAPE');
      const first = await call({});
      assert.equal(first.resultType, 'input_required');
      const reqs = first.inputRequests as Record<string, { method: string; params: { message: string } }>;
      const [key] = Object.keys(reqs);
      assert.equal(reqs[key].method, 'elicitation/create');
      assert.equal(reqs[key].params.message, '[v1] Your name?');
      assert.equal(typeof first.requestState, 'string');
      const done = await call({
        inputResponses: { [key]: { action: 'accept', content: { name: 'lin' } } },
        requestState: first.requestState,
      });
      assert.equal(text(done as never), 'hello lin');
      assert.equal(g.gw.stats().parked, 0);
    } finally {
      await c.close();
    }
  });

  it('a requestState is bound to its tool, and answered once at a time', async () => {
    const { c, call } = await manual();
    try {
      const first = await call({});
      const key = Object.keys(first.inputRequests as object)[0];
      await assert.rejects(
        c.callTool(
          { name: 'v1__echo', arguments: {}, inputResponses: {}, requestState: first.requestState } as never,
          { allowInputRequired: true } as never,
        ),
        (e: Error & { code?: number }) => e.code === -32602 && /minted for tool "v1__ask"/.test(e.message),
      );
      const retry = { inputResponses: { [key]: { action: 'accept', content: { name: 'once' } } }, requestState: first.requestState };
      const [a, b] = await Promise.allSettled([call(retry), call(retry)]);
      const ok = [a, b].filter((x) => x.status === 'fulfilled');
      const refused = [a, b].filter((x) => x.status === 'rejected') as PromiseRejectedResult[];
      assert.equal(ok.length, 1, 'one retry completes');
      assert.equal(refused.length, 1, 'the other is refused, not left hanging');
      assert.match(String(refused[0].reason?.message), /already in progress|unknown, expired/);
    } finally {
      await c.close();
    }
  });

  it('a requestState is bound to the arguments: a retry that changes them is -32602, the unchanged retry completes', async () => {
    const { c, call } = await manual();
    try {
      const original = { city: 'Oslo', opts: { units: 'metric', days: [1, 2] } };
      const first = await call({ arguments: original });
      assert.equal(first.resultType, 'input_required');
      const key = Object.keys(first.inputRequests as object)[0];
      const answers = { [key]: { action: 'accept', content: { name: 'ada' } } };
      for (const changed of [
        { ...original, city: 'Bergen' },
        { city: 'Oslo' },
        {},
        { ...original, opts: { units: 'metric', days: [2, 1] } },
      ])
        await assert.rejects(
          call({ arguments: changed, inputResponses: answers, requestState: first.requestState }),
          (e: Error & { code?: number }) =>
            e.code === -32602 &&
            /bound to the tool name and arguments/.test(e.message) &&
            /retry with the arguments of the original call/.test(e.message),
          JSON.stringify(changed),
        );
      // The same arguments with the keys in another order are the same call (canonical JSON).
      const done = await call({
        arguments: { opts: { days: [1, 2], units: 'metric' }, city: 'Oslo' },
        inputResponses: answers,
        requestState: first.requestState,
      });
      assert.equal(text(done as never), 'hello ada');
    } finally {
      await c.close();
    }
  });

  it('a forged requestState is -32602', async () => {
    const { c, call } = await manual();
    try {
      await assert.rejects(
        call({ inputResponses: {}, requestState: '00000000-0000-4000-8000-000000000000' }),
        (e: Error & { code?: number }) => e.code === -32602 && /requestState/.test(e.message),
      );
    } finally {
      await c.close();
    }
  });
});

describe('gateway: a 2026-07-28 client that never retries', () => {
  // Short, yet long enough that the call is surely still parked when the first round is checked.
  const g = parkingGateway(1000);

  it('after ttlMs the downstream prompt is cancelled and nothing stays parked', async () => {
    const gw = g.gw;
    const { c, call } = await manualClient(g.url);
    try {
      const first = await call({});
      assert.equal(first.resultType, 'input_required');
      assert.equal(gw.stats().parked, 1);
      await waitUntil(() => gw.stats().parked === 0 && gw.stats().openCalls === 0);
      assert.equal(gw.stats().parked, 0);
      assert.equal(gw.stats().openCalls, 0);
      assert.equal(hostInternals(gw.space('default').host).broker.pending().length, 0);
    } finally {
      await c.close();
    }
  });
});
