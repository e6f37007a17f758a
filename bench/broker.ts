// `broker` group: elicitation round-trip cost over stdio, host side raw SDK vs parley.
// One server (bench/fixtures/raw-server.mjs, raw SDK v2) pushes n sequential 5-field form
// elicitations. Baseline host: a raw SDK v2 Client whose handler returns a fixed accept. Parley host:
// ServerManager + ElicitationBroker with an auto-accept presenter, so every elicitation goes through
// normalise, lint, sensitive-field detection, policy (rate limit raised for the bench), prefill,
// presenter, validation and the pausable tool-call clock. The server repeats one form (only the message
// changes), as real servers do, so after the first request the broker's form checks come from its
// per-form cache (src/host/broker/form-cache.ts: one JSON.stringify and a lookup per request); the
// answer is still validated every time. Two more sides add a file-backed SQLite store in WAL mode, as
// `parley up` opens it (audit rows, the remembered-answer lookup, and the reply waiting for the commit
// of its audit rows, so a confirmed answer survives SIGKILL): with the default `synchronous=NORMAL` and
// with `FULL` (power-loss safe); another is the ServerManager whose handler answers without the broker (the runtime's
// share of the cost). Targets (issue 17.6): per-elicitation wall time and host CPU, parley with the
// file-backed store ÷ raw ≤ 1.15×.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElicitationBroker } from '../dist/src/host/broker/index.js';
import { ServerManager } from '../dist/src/host/servers/index.js';
import { openSqliteStore } from '../dist/src/host/store/sqlite.js';
import type { Store } from '../dist/src/host/store/types.js';
import type { BenchRow } from './lib.js';
import {
  ANSWER,
  AutoAcceptPresenter,
  connectRaw,
  envInt,
  interleaved,
  rawServerCmd,
  roundQuartiles,
  roundRatio,
  roundSpread,
  stdioDef,
  type LoopCall,
} from './peers.js';

export interface BrokerBenchOptions {
  /** Elicitations per timed loop. @default 1000 (env PARLEY_BENCH_N) */
  n?: number;
  /** Elicitations in the warm-up loop of each side (the JIT settles the SDK's and parley's code). @default 1000 */
  warmup?: number;
  /** Timed rounds (every side once per round, back to back, order rotating); ratios are medians of per-round ratios. @default 21 */
  repeats?: number;
  /** Also measure parley with a file-backed SQLite store (WAL; synchronous NORMAL, the default, and FULL). @default true */
  withStore?: boolean;
}

/**
 * Parley's host side around one server: manager + broker (+ optional store). With `bypassBroker` the
 * manager's elicit handler returns the fixed accept itself (isolates the runtime's share of the cost).
 */
export function parleyHost(store?: Store, bypassBroker = false) {
  const presenter = new AutoAcceptPresenter();
  const broker = new ElicitationBroker({ presenter, store, policy: { ratePerMinute: 1e9, burst: 1e9 } });
  const manager = new ServerManager(
    { bench: stdioDef('bench', rawServerCmd()) },
    {
      clientInfo: { name: 'parley-bench', version: '0.0.1' },
      handlers: {
        elicit: bypassBroker
          ? async () => (presenter.presented++, { action: 'accept', content: { ...ANSWER } })
          : (params, ctx) => broker.elicit(params as never, ctx),
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
  const warmup = o.warmup ?? 1000;
  const repeats = o.repeats ?? 21;
  const { peer } = await connectRaw(rawServerCmd());
  const plain = parleyHost();
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-broker-'));
  const stores =
    o.withStore === false ? [] : [openSqliteStore(join(dir, 'normal.db')), openSqliteStore(join(dir, 'full.db'), { synchronous: 'FULL' })];
  const stored = stores.map((st) => parleyHost(st));
  const bare = parleyHost(undefined, true);
  try {
    await plain.manager.start('bench');
    for (const h of stored) await h.manager.start('bench');
    await bare.manager.start('bench');
    const rawCall: LoopCall = (k) => peer.client.callTool({ name: 'elicit_loop', arguments: { n: k } }, { timeout: 120_000 }) as never;
    const sides = [rawCall, plain.call, bare.call, ...stored.map((h) => h.call)];
    const measured = await interleaved(sides, n, warmup, repeats);
    const [raw, plainT] = measured;
    const expected = warmup + repeats * n;
    if (peer.answered() !== expected) throw new Error(`raw client answered ${peer.answered()} elicitations, expected ${expected}`);
    if (plain.presenter.presented !== expected)
      throw new Error(
        `parley presenter saw ${plain.presenter.presented} prompts, expected ${expected} (notices: ${plain.presenter.notices.map((x) => x.message).join('; ')})`,
      );
    const per = (ms: number) => ms / n;
    const rate = (ms: number) => n / (ms / 1000);
    // The figures: per-round ratios (raw and parley loops back to back), median over rounds.
    const wall = roundRatio(measured.rounds, 1, 0, 'wallMs');
    const cpu = roundRatio(measured.rounds, 1, 0, 'hostCpuMs');
    const how = `N=${n} sequential after ${warmup} warm-up, ${repeats} interleaved rounds (order rotating); ratios are the median of per-round ratios (ratio of medians: wall ${(plainT.wallMs / raw.wallMs).toFixed(2)}×, CPU ${(plainT.hostCpuMs / raw.hostCpuMs).toFixed(2)}×)`;
    const rows: BenchRow[] = [
      {
        group: 'broker',
        name: 'raw SDK Client, fixed accept (baseline)',
        value: rate(raw.wallMs),
        unit: 'elicitations/s',
        ratio: 1,
        ratioTo: 'raw SDK',
        note: `${per(raw.wallMs).toFixed(3)} ms wall, ${per(raw.hostCpuMs).toFixed(3)} ms host CPU each; ${how}`,
      },
      {
        group: 'broker',
        name: 'parley ServerManager + ElicitationBroker, no store',
        value: rate(plainT.wallMs),
        unit: 'elicitations/s',
        ratio: rate(plainT.wallMs) / rate(raw.wallMs),
        ratioTo: 'raw SDK rate',
        note: `${per(plainT.wallMs).toFixed(3)} ms wall, ${per(plainT.hostCpuMs).toFixed(3)} ms host CPU each`,
      },
      {
        group: 'broker',
        name: 'per-elicitation wall time parley ÷ raw',
        value: wall,
        unit: '×',
        target: '≤ 1.15×',
        met: wall <= 1.15,
        spread: roundQuartiles(measured.rounds, 1, 0, 'wallMs'),
        note: `${how}; ${roundSpread(measured.rounds, 1, 0, 'wallMs')}`,
      },
      {
        group: 'broker',
        name: 'per-elicitation host CPU parley ÷ raw (load-robust)',
        value: cpu,
        unit: '×',
        target: '≤ 1.15×',
        met: cpu <= 1.15,
        spread: roundQuartiles(measured.rounds, 1, 0, 'hostCpuMs'),
        note: `CPU of the host process (client side) during the loop; ${roundSpread(measured.rounds, 1, 0, 'hostCpuMs')}`,
      },
    ];
    rows.push({
      group: 'broker',
      name: 'per-elicitation host CPU, parley ServerManager without the broker ÷ raw',
      value: roundRatio(measured.rounds, 2, 0, 'hostCpuMs'),
      unit: '×',
      note: `the runtime's share (Connection, input bridge, tool-call clock); wall ${roundRatio(measured.rounds, 2, 0, 'wallMs').toFixed(2)}× raw`,
    });
    for (const [i, label] of ['synchronous=NORMAL (the default)', 'synchronous=FULL'].entries()) {
      if (!stored[i]) continue;
      const side = 3 + i;
      const audited = (await stores[i].queryAudit({ limit: 5 })).length;
      if (audited === 0) throw new Error(`the ${label} store has no audit rows`);
      const w = roundRatio(measured.rounds, side, 0, 'wallMs');
      const c = roundRatio(measured.rounds, side, 0, 'hostCpuMs');
      const each = `${per(measured[side].wallMs).toFixed(3)} ms wall, ${per(measured[side].hostCpuMs).toFixed(3)} ms host CPU each`;
      rows.push(
        {
          group: 'broker',
          name: `per-elicitation wall time parley + SQLite file (WAL, ${label}) ÷ raw`,
          value: w,
          unit: '×',
          target: '≤ 1.15×',
          met: w <= 1.15,
          spread: roundQuartiles(measured.rounds, side, 0, 'wallMs'),
          note: `${each}; audit rows, remembered-answer lookup, reply after the commit; ${roundSpread(measured.rounds, side, 0, 'wallMs')}`,
        },
        {
          group: 'broker',
          name: `per-elicitation host CPU parley + SQLite file (WAL, ${label}) ÷ raw`,
          value: c,
          unit: '×',
          target: '≤ 1.15×',
          met: c <= 1.15,
          spread: roundQuartiles(measured.rounds, side, 0, 'hostCpuMs'),
          note: roundSpread(measured.rounds, side, 0, 'hostCpuMs'),
        },
      );
    }
    return rows;
  } finally {
    await Promise.allSettled([peer.close(), plain.manager.stopAll(), bare.manager.stopAll(), ...stored.map((h) => h.manager.stopAll())]);
    await Promise.allSettled(stores.map((st) => st.close()));
    rmSync(dir, { recursive: true, force: true });
  }
}
