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
import { gatewayConfig } from './helpers/gateway.js';

const FORM = { mode: 'form' as const, message: 'm', requestedSchema: { type: 'object' as const, properties: {} } };
const never = new AbortController().signal;

describe('ParkingLot / ParkedCall', () => {
  it('batches prompts into one round, answers them from inputResponses, missing entries are cancel', async () => {
    const lot = new ParkingLot({ ttlMs: 60_000, batchMs: 5 });
    const p = lot.open('ada');
    let finish!: (t: string) => void;
    p.run(() => new Promise((r) => (finish = (t) => r({ content: [{ type: 'text', text: t }] }))));
    const a = p.ask(FORM, never), b = p.ask(FORM, never);
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

describe('gateway: a 2026-07-28 client driving the rounds by hand', () => {
  let gw: Gateway;
  let url: string;
  let stop: () => Promise<void>;
  before(async () => {
    gw = createGateway(gatewayConfig({ v1: fixture('v1', 'v1-push.mjs') }), { park: { ttlMs: 300, batchMs: 5 } });
    const h = await gw.serve({ http: {} });
    url = h.url;
    stop = async () => (await h.close(), await gw.close());
  });
  after(() => stop());

  async function manualClient() {
    const c = v2Client((async () => ({ action: 'cancel' })) as never, { mode: 'auto', manual: true });
    await c.connect(new StreamableHTTPClientTransport(new URL(url)));
    const call = (params: Record<string, unknown>) => c.callTool({ name: 'v1__ask', arguments: {}, ...params } as never, { allowInputRequired: true } as never) as Promise<Record<string, unknown>>;
    return { c, call };
  }

  it('input_required carries the downstream prompt; the retry with inputResponses completes the same call', async () => {
    const { c, call } = await manualClient();
    try {
      // req: MRTR-INPUT-REQUESTS-SHAPE
      const first = await call({});
      assert.equal(first.resultType, 'input_required');
      const reqs = first.inputRequests as Record<string, { method: string; params: { message: string } }>;
      const [key] = Object.keys(reqs);
      assert.equal(reqs[key].method, 'elicitation/create');
      assert.equal(reqs[key].params.message, '[v1] Your name?');
      assert.equal(typeof first.requestState, 'string');
      const done = await call({ inputResponses: { [key]: { action: 'accept', content: { name: 'lin' } } }, requestState: first.requestState });
      assert.equal(text(done as never), 'hello lin');
      assert.equal(gw.stats().parked, 0);
    } finally {
      await c.close();
    }
  });

  it('a forged requestState is -32602', async () => {
    const { c, call } = await manualClient();
    try {
      await assert.rejects(call({ inputResponses: {}, requestState: '00000000-0000-4000-8000-000000000000' }), (e: Error & { code?: number }) => e.code === -32602 && /requestState/.test(e.message));
    } finally {
      await c.close();
    }
  });

  it('a client that never retries: after ttlMs the downstream prompt is cancelled and nothing stays parked', async () => {
    const { c, call } = await manualClient();
    try {
      const first = await call({});
      assert.equal(first.resultType, 'input_required');
      assert.equal(gw.stats().parked, 1);
      const until = Date.now() + 10_000;
      while ((gw.stats().parked > 0 || gw.stats().openCalls > 0) && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
      assert.equal(gw.stats().parked, 0);
      assert.equal(gw.stats().openCalls, 0);
      assert.equal(gw.space('default').host.broker.pending().length, 0);
    } finally {
      await c.close();
    }
  });
});
