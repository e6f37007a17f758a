// Abort signals of one elicitation: the input bridge gives the broker one signal per request
// (the Connection's own abort, which the SDK's request signal also reaches on 2026-07-28), and the broker's
// presenter loop (ask) gives the presenter one signal combining it with the answer deadline and the
// broker's shutdown. Reasons kept, nothing left listening when the request settles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { ask } from '../src/host/broker/ask.js';
import { ElicitationBroker } from '../src/host/broker/index.js';
import { ctx } from './fixtures/broker/ctx.js';
import type { PresenterAnswer, InputRequestView } from '../src/host/presenter.js';
import type { ConnectOptions } from '../src/host/servers/connection.js';
import type { InputContext } from '../src/host/servers/handlers.js';
import { type Pending, wireHandlers } from '../src/host/servers/input-bridge.js';
import { PauseGate } from '../src/host/servers/tool-clock.js';
import { legacyServer } from './fixtures/broker/peers.js';
import { waitUntil } from './helpers/wait.js';

// Every assert.ok carries a message (a failing message-less assert.ok can hang under tsx).

const VIEW: InputRequestView = {
  id: 'in-1',
  server: 'srv',
  message: 'Name?',
  mode: 'form',
  schema: { type: 'object', properties: { name: { type: 'string' } } },
  prefill: {},
  prefillSources: {},
  repairs: [],
  warnings: [],
  sensitiveFields: [],
  round: 1,
};
const listeners = (s: AbortSignal) => getEventListeners(s, 'abort').length;

/** A presenter that holds until its signal aborts (bounded: rejects after 2000 ms) and records the signal. */
function holdingPresenter() {
  const seen: AbortSignal[] = [];
  return {
    seen,
    interactive: true,
    notify: () => {},
    present: (_p: InputRequestView, signal: AbortSignal) =>
      new Promise<PresenterAnswer>((_res, rej) => {
        seen.push(signal);
        const t = setTimeout(() => rej(new Error('presenter not aborted within 2000 ms')), 2000);
        signal.addEventListener('abort', () => (clearTimeout(t), rej(new Error('closed'))), { once: true });
      }),
  };
}

const stops = (server: AbortSignal, answerMs = 60_000, shutdown = new AbortController().signal) => ({ server, shutdown, answerMs });

test("ask: a server abort reaches the presenter's signal with the server's reason; nothing is left listening on the server signal", async () => {
  const server = new AbortController();
  const presenter = holdingPresenter();
  const pending = ask(presenter, VIEW, VIEW.schema, stops(server.signal), 3, Date.now);
  await waitUntil(() => presenter.seen.length === 1);
  const reason = new Error('server gave up');
  server.abort(reason);
  const r = await pending;
  assert.equal(r.kind, 'cancelled-by-server');
  assert.equal(presenter.seen[0].aborted, true);
  assert.equal(presenter.seen[0].reason, reason);
  assert.equal(listeners(server.signal), 0, 'AbortSignal.any adds no listener to its sources');
});

test("ask: on timeout only the presenter's signal aborts (TimeoutError); the server signal is untouched", async () => {
  const server = new AbortController();
  const presenter = holdingPresenter();
  const r = await ask(presenter, VIEW, VIEW.schema, stops(server.signal, 30), 3, Date.now);
  assert.equal(r.kind, 'timeout');
  assert.equal(presenter.seen[0].aborted, true);
  assert.equal((presenter.seen[0].reason as Error).name, 'TimeoutError');
  assert.equal(server.signal.aborted, false);
});

test('ask: shutdown ends the wait as its own outcome; a server signal aborted on arrival never reaches the presenter', async () => {
  const closing = new AbortController();
  const presenter = holdingPresenter();
  const pending = ask(presenter, VIEW, VIEW.schema, stops(new AbortController().signal, 60_000, closing.signal), 3, Date.now);
  await waitUntil(() => presenter.seen.length === 1);
  closing.abort(new Error('closing'));
  assert.equal((await pending).kind, 'shutdown');

  const gone = new AbortController();
  gone.abort('already');
  const seen: AbortSignal[] = [];
  const accept = {
    interactive: false,
    notify: () => {},
    present: async (_p: InputRequestView, s: AbortSignal) => (seen.push(s), { action: 'accept' as const, content: {} }),
  };
  const r2 = await ask(accept, VIEW, VIEW.schema, stops(gone.signal), 3, Date.now);
  assert.equal(r2.kind, 'cancelled-by-server');
  assert.deepEqual(seen, []);
});

/** A real SDK client and legacy server (InMemoryTransport) with parley's input bridge on the client. */
async function bridged(
  elicit: (ctx: InputContext) => Promise<{ action: 'accept' | 'decline' | 'cancel' }>,
  abortAfterMs?: number,
  era: 'legacy' | 'modern' = 'legacy',
) {
  const server = legacyServer('bridge', abortAfterMs === undefined ? {} : { abortAfterMs });
  const client = new Client({ name: 'parley-test', version: '0.0.1' }, { capabilities: { elicitation: { form: {} }, roots: {} } });
  // Records the SDK's own handler signal and its abort listeners before and after our handler.
  const sdk: Array<{ signal: AbortSignal; before: number; after?: number }> = [];
  const set = client.setRequestHandler.bind(client) as (
    m: string,
    h: (req: unknown, ctx: { mcpReq: { signal: AbortSignal } }) => Promise<unknown>,
  ) => void;
  (client as unknown as { setRequestHandler: typeof set }).setRequestHandler = (method, handler) =>
    set(method, async (req, ctx) => {
      const rec: (typeof sdk)[number] = { signal: ctx.mcpReq.signal, before: listeners(ctx.mcpReq.signal) };
      sdk.push(rec);
      try {
        return await handler(req, ctx);
      } finally {
        rec.after = listeners(ctx.mcpReq.signal);
      }
    });
  const pending = new Set<Pending>();
  const o = {
    name: 'bridge',
    handlers: { elicit: (_p: unknown, ctx: InputContext) => elicit(ctx), listRoots: async () => ({ roots: [] }) },
    pause: new PauseGate(),
  } as unknown as ConnectOptions;
  wireHandlers(client, o, pending, { era, revision: era === 'legacy' ? '2025-11-25' : '2026-07-28' });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  await client.connect(ct);
  const askTool = () =>
    client.callTool({
      name: 'ask',
      arguments: { params: JSON.stringify({ message: 'Name?', requestedSchema: { type: 'object', properties: {} } }) },
    });
  return {
    sdk,
    pending,
    askTool,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

test("input bridge, modern era: the SDK's abort (its MRTR round) reaches the broker's signal with the SDK's reason; its listener is removed", async () => {
  // (the era label is what selects the forwarding; the abort itself is a real SDK cancellation)
  const seen: AbortSignal[] = [];
  const peer = await bridged(
    async (ctx) => {
      seen.push(ctx.signal);
      await new Promise<void>((res, rej) => {
        const t = setTimeout(() => rej(new Error('not aborted within 2000 ms')), 2000);
        ctx.signal.addEventListener('abort', () => (clearTimeout(t), res()), { once: true });
      });
      return { action: 'cancel' };
    },
    50,
    'modern',
  );
  try {
    const r = await peer.askTool();
    assert.equal(r.isError, true, 'the server saw its own abort');
    await waitUntil(() => peer.sdk[0]?.after !== undefined);
    assert.equal(seen.length, 1);
    assert.equal(peer.sdk.length, 1);
    assert.equal(peer.sdk[0].signal.aborted, true);
    assert.equal(seen[0].aborted, true);
    assert.notEqual(seen[0], peer.sdk[0].signal, "the broker gets the bridge's own signal");
    assert.equal(seen[0].reason, peer.sdk[0].signal.reason);
    assert.equal(peer.sdk[0].after, peer.sdk[0].before, 'the bridge removed its listener from the SDK signal');
    assert.equal(peer.pending.size, 0);
  } finally {
    await peer.close();
  }
});

test('input bridge: an answered request leaves no listener on the SDK signal and nothing pending', async () => {
  const seen: AbortSignal[] = [];
  const peer = await bridged(async (ctx) => (seen.push(ctx.signal), { action: 'decline' }));
  try {
    const r = await peer.askTool();
    assert.equal(r.isError, undefined, JSON.stringify(r));
    assert.match((r.content as Array<{ text: string }>)[0].text, /decline/);
    assert.equal(seen[0].aborted, false);
    assert.equal(peer.sdk[0].after, peer.sdk[0].before, 'the bridge removed its listener from the SDK signal');
    assert.equal(peer.pending.size, 0);
  } finally {
    await peer.close();
  }
});

test('input bridge, legacy era: no listener on the SDK signal; the Connection aborts the request (see servers-lifecycle, Q2)', async () => {
  let during = -1;
  const peer = await bridged(async (ctx) => {
    during = listeners(peer.sdk[0].signal);
    return { action: 'decline' };
  });
  try {
    await peer.askTool();
    assert.equal(during, peer.sdk[0].before, 'the bridge added no listener to the SDK signal');
  } finally {
    await peer.close();
  }
});

test('input bridge: a request whose SDK signal is already aborted when its handler runs reaches the broker aborted, with the reason (both eras)', async () => {
  // A fake client records the handlers: what is under test is the bridge's own entry check.
  for (const era of ['legacy', 'modern'] as const) {
    const handlers = new Map<string, (req: unknown, ctx: unknown) => Promise<unknown>>();
    const client = {
      setRequestHandler: (m: string, h: (req: unknown, ctx: unknown) => Promise<unknown>) => handlers.set(m, h),
      setNotificationHandler: () => {},
    };
    const seen: AbortSignal[] = [];
    const o = {
      name: 'gone',
      handlers: {
        elicit: async (_p: unknown, ctx: InputContext) => (seen.push(ctx.signal), { action: 'cancel' }),
        listRoots: async () => ({ roots: [] }),
      },
      pause: new PauseGate(),
    } as unknown as ConnectOptions;
    const pending = new Set<Pending>();
    wireHandlers(client as unknown as Client, o, pending, { era, revision: era === 'legacy' ? '2025-11-25' : '2026-07-28' });
    const sdk = new AbortController();
    sdk.abort('connection closed first');
    await handlers.get('elicitation/create')!(
      { method: 'elicitation/create', params: { message: 'x', requestedSchema: { type: 'object', properties: {} } } },
      { mcpReq: { id: 3, signal: sdk.signal } },
    );
    assert.equal(seen.length, 1, `${era}: the broker was called`);
    assert.deepEqual([seen[0].aborted, seen[0].reason], [true, 'connection closed first'], `${era}: aborted on arrival, reason kept`);
    assert.equal(pending.size, 0, `${era}: nothing left in flight`);
  }
});

test('broker: fifteen prompts waiting at once print no MaxListenersExceededWarning (each listens on the shutdown signal)', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.name);
  process.on('warning', onWarning);
  try {
    const presenter = {
      interactive: false,
      present: () => new Promise<PresenterAnswer>((r) => setTimeout(() => r({ action: 'accept', content: {} }), 50)),
      notify: () => undefined,
    };
    const broker = new ElicitationBroker({ presenter, policy: { maxPendingPerServer: 100, burst: 100 } });
    const form = { message: 'ok?', requestedSchema: { type: 'object', properties: {} } };
    const answers = await Promise.all(Array.from({ length: 15 }, () => broker.elicit(form, ctx('srv'))));
    assert.equal(answers.filter((a) => a.action === 'accept').length, 15);
    await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    assert.deepEqual(warnings, []);
  } finally {
    process.off('warning', onWarning);
  }
});
