// `broker` group: elicitation round-trip cost over stdio, host side raw SDK vs parley.
// One server (bench/fixtures/raw-server.mjs, raw SDK v2) pushes n sequential 5-field form
// elicitations. Baseline host: a raw SDK v2 Client whose handler returns a fixed accept. Parley host:
// ServerManager + ElicitationBroker with an auto-accept presenter, so every elicitation goes through
// normalise, lint, sensitive-field detection, policy (rate limit raised for the bench), prefill,
// presenter, validation and the pausable tool-call clock. A third side adds an in-memory SQLite store
// (audit rows, remembered-answer lookup). Target (issue 4): per-elicitation time parley ÷ raw ≤ 1.15×.
import { ElicitationBroker } from '../src/host/broker/index.js';
import { ServerManager } from '../src/host/servers/index.js';
import { openSqliteStore } from '../src/host/store/sqlite.js';
import type { Store } from '../src/host/store/types.js';
import type { BenchRow } from './lib.js';
import { AutoAcceptPresenter, connectRaw, envInt, interleaved, rawServerCmd, stdioDef, type LoopCall } from './peers.js';

export interface BrokerBenchOptions {
  /** Elicitations per timed loop. @default 1000 (env PARLEY_BENCH_N) */
  n?: number;
  /** Elicitations in the warm-up loop of each side. @default 100 */
  warmup?: number;
  /** Timed loops per side (median reported). @default 3 */
  repeats?: number;
  /** Also measure parley with an in-memory SQLite store. @default true */
  withStore?: boolean;
}

/** Parley's host side around one server: manager + broker (+ optional store). */
export function parleyHost(store?: Store) {
  const presenter = new AutoAcceptPresenter();
  const broker = new ElicitationBroker({ presenter, store, policy: { ratePerMinute: 1e9, burst: 1e9 } });
  const manager = new ServerManager(
    { bench: stdioDef('bench', rawServerCmd()) },
    {
      clientInfo: { name: 'parley-bench', version: '0.0.1' },
      handlers: {
        elicit: (params, ctx) => broker.elicit(params as never, ctx),
        listRoots: async () => ({ roots: [] }),
        elicitationComplete: (server, id) => broker.elicitationComplete(server, id),
      },
    },
  );
  const call: LoopCall = (n) => manager.callTool('bench', 'elicit_loop', { n });
  return { presenter, broker, manager, call };
}

export async function run(o: BrokerBenchOptions = {}): Promise<BenchRow[]> {
  const n = o.n ?? envInt('PARLEY_BENCH_N', 1000);
  const warmup = o.warmup ?? 100;
  const repeats = o.repeats ?? 3;
  const { peer } = await connectRaw(rawServerCmd());
  const plain = parleyHost();
  const store = o.withStore === false ? undefined : openSqliteStore(':memory:');
  const stored = store ? parleyHost(store) : undefined;
  try {
    await plain.manager.start('bench');
    await stored?.manager.start('bench');
    const rawCall: LoopCall = (k) => peer.client.callTool({ name: 'elicit_loop', arguments: { n: k } }, { timeout: 120_000 }) as never;
    const sides = [rawCall, plain.call, ...(stored ? [stored.call] : [])];
    const [rawMs, parleyMs, storedMs] = await interleaved(sides, n, warmup, repeats);
    const expected = warmup + repeats * n;
    if (peer.answered() !== expected) throw new Error(`raw client answered ${peer.answered()} elicitations, expected ${expected}`);
    if (plain.presenter.presented !== expected) throw new Error(`parley presenter saw ${plain.presenter.presented} prompts, expected ${expected} (notices: ${plain.presenter.notices.map((x) => x.message).join('; ')})`);
    const per = (ms: number) => ms / n;
    const rate = (ms: number) => n / (ms / 1000);
    const ratio = per(parleyMs) / per(rawMs);
    const how = `N=${n} sequential after ${warmup} warm-up, median of ${repeats} interleaved loops`;
    const rows: BenchRow[] = [
      { group: 'broker', name: 'raw SDK Client, fixed accept (baseline)', value: rate(rawMs), unit: 'elicitations/s', ratio: 1, ratioTo: 'raw SDK', note: `${per(rawMs).toFixed(3)} ms each; ${how}` },
      { group: 'broker', name: 'parley ServerManager + ElicitationBroker, no store', value: rate(parleyMs), unit: 'elicitations/s', ratio: rate(parleyMs) / rate(rawMs), ratioTo: 'raw SDK rate', note: `${per(parleyMs).toFixed(3)} ms each` },
      { group: 'broker', name: 'per-elicitation time parley ÷ raw', value: ratio, unit: '×', target: '≤ 1.15×', met: ratio <= 1.15, note: how },
    ];
    if (stored && storedMs !== undefined) {
      const r2 = per(storedMs) / per(rawMs);
      rows.push({ group: 'broker', name: 'per-elicitation time parley + SQLite :memory: store ÷ raw', value: r2, unit: '×', note: `${rate(storedMs).toFixed(0)} elicitations/s, ${per(storedMs).toFixed(3)} ms each; audit rows and remembered-answer lookups included` });
    }
    return rows;
  } finally {
    await Promise.allSettled([peer.close(), plain.manager.stopAll(), stored?.manager.stopAll()]);
    store?.close();
  }
}
