// `gateway` group: memory per pending elicitation. (The gateway itself does not exist yet; this measures
// what it will hold per waiting person: the broker's pending request.) In one process, a raw SDK v2
// server pushes K concurrent 5-field elicitations over an InMemoryTransport pair to a raw SDK v2 Client.
// Baseline: the client's handler parks each request on a bare promise. Parley: the handler is
// `ElicitationBroker.elicit` with a presenter that parks each prompt. Heap used (after a forced GC) and
// RSS are read before the call and once all K are pending; the difference ÷ K is bytes per pending
// elicitation (SDK request state on both ends included, identical in both runs).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { ElicitResult } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { ElicitationBroker } from '../src/host/broker/index.js';
import type { Presenter, PresenterAnswer } from '../src/host/presenter.js';
import type { BenchRow } from './lib.js';
import { ANSWER, FORM, envInt } from './peers.js';

export interface GatewayBenchOptions {
  /** Pending elicitations held at once. @default 1000 (env PARLEY_BENCH_K) */
  k?: number;
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
};

type Handler = { elicit(params: unknown, signal: AbortSignal, id: string | number): Promise<ElicitResult>; pending(): number; release(): void };

async function measure(k: number, handler: Handler): Promise<{ heap: number; rss: number }> {
  const server = new McpServer({ name: 'bench-hold', version: '0.0.1' });
  server.registerTool('hold', { inputSchema: z.object({ k: z.number().int() }) }, async ({ k: n }, ctx) => {
    const rs = await Promise.all(Array.from({ length: n }, (_, i) => ctx.mcpReq.elicitInput({ mode: 'form', message: `Held form ${i}`, requestedSchema: FORM as never }, { timeout: 120_000 })));
    return { content: [{ type: 'text', text: `${rs.filter((r) => r.action === 'accept').length}` }] };
  });
  const client = new Client({ name: 'bench-hold-client', version: '0.0.1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', (req, ctx) => handler.elicit(req.params, ctx.mcpReq.signal, ctx.mcpReq.id));
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  await client.connect(ct);
  try {
    await settle();
    const before = { heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss };
    const call = client.callTool({ name: 'hold', arguments: { k } }, { timeout: 120_000 });
    const deadline = Date.now() + 60_000;
    while (handler.pending() < k) {
      if (Date.now() > deadline) throw new Error(`only ${handler.pending()} of ${k} elicitations became pending within 60 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
    await settle();
    const after = { heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss };
    handler.release();
    const r = await call;
    const text = (r.content as Array<{ text?: string }>)[0]?.text;
    if (text !== String(k)) throw new Error(`hold ${k}: expected ${k} accepted, got ${text}`);
    return { heap: (after.heap - before.heap) / k, rss: (after.rss - before.rss) / k };
  } finally {
    await client.close();
    await server.close();
  }
}

function rawHandler(): Handler {
  const parked: Array<() => void> = [];
  return {
    elicit: () => new Promise<ElicitResult>((resolve) => parked.push(() => resolve({ action: 'accept', content: { ...ANSWER } }))),
    pending: () => parked.length,
    release: () => parked.splice(0).forEach((f) => f()),
  };
}

function parleyHandler(k: number): Handler {
  const parked: Array<() => void> = [];
  const presenter: Presenter = {
    interactive: false,
    present: () => new Promise<PresenterAnswer>((resolve) => parked.push(() => resolve({ action: 'accept', content: { ...ANSWER } }))),
    notify: () => {},
  };
  const broker = new ElicitationBroker({ presenter, policy: { ratePerMinute: 1e9, burst: 1e9, maxPendingPerServer: k + 1 } });
  return {
    elicit: (params, signal, id) => broker.elicit(params as never, { server: 'bench', era: 'legacy', revision: '2025-11-25', signal, requestId: id }) as Promise<ElicitResult>,
    pending: () => broker.pending().length,
    release: () => parked.splice(0).forEach((f) => f()),
  };
}

export async function run(o: GatewayBenchOptions = {}): Promise<BenchRow[]> {
  const k = o.k ?? envInt('PARLEY_BENCH_K', 1000);
  await measure(Math.min(k, 50), rawHandler()); // warm-up: JIT and SDK lazy state
  await measure(Math.min(k, 50), parleyHandler(k));
  const raw = await measure(k, rawHandler());
  const parley = await measure(k, parleyHandler(k));
  const how = `K=${k} pending at once, in-memory pair, heap after forced GC; one run each`;
  return [
    { group: 'gateway', name: 'raw SDK Client, handler parks a promise (baseline)', value: raw.heap, unit: 'bytes heap / pending', ratio: 1, ratioTo: 'raw SDK', note: `${how}; RSS ${Math.round(raw.rss)} bytes / pending` },
    { group: 'gateway', name: 'parley ElicitationBroker, presenter parks the prompt', value: parley.heap, unit: 'bytes heap / pending', ratio: parley.heap / raw.heap, ratioTo: 'raw SDK', note: `broker adds ${Math.round(parley.heap - raw.heap)} bytes / pending; RSS ${Math.round(parley.rss)} bytes / pending` },
  ];
}
