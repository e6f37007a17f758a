// `toolkit` group: the server toolkit's `ctx.elicit` vs the raw SDK server's push elicitation
// (`ctx.mcpReq.elicitInput`), both answered by the same kind of raw SDK v2 client (fixed accept) over
// stdio. Same tool, same 5-field form, same answer; only the server side differs
// (bench/fixtures/raw-server.mjs vs bench/fixtures/toolkit-server.mjs).
import type { BenchRow } from './lib.js';
import {
  connectRaw,
  envInt,
  interleaved,
  roundQuartiles,
  roundRatio,
  roundSpread,
  rawServerCmd,
  toolkitServerCmd,
  type LoopCall,
  type RawPeer,
} from './peers.js';

export interface ToolkitBenchOptions {
  /** Elicitations per timed loop. @default 1000 (env PARLEY_BENCH_N) */
  n?: number;
  /** @default 100 */
  warmup?: number;
  /** Timed rounds (both sides once per round); ratios are medians of per-round ratios. @default 9 */
  repeats?: number;
}

const loopOf =
  (peer: RawPeer): LoopCall =>
  (k) =>
    peer.client.callTool({ name: 'elicit_loop', arguments: { n: k } }, { timeout: 120_000 }) as never;

export async function run(o: ToolkitBenchOptions = {}): Promise<BenchRow[]> {
  const n = o.n ?? envInt('PARLEY_BENCH_N', 1000);
  const warmup = o.warmup ?? 100;
  const repeats = o.repeats ?? 9;
  const peers: RawPeer[] = [];
  try {
    const rawPeer = (await connectRaw(rawServerCmd())).peer;
    peers.push(rawPeer);
    const kit = (await connectRaw(toolkitServerCmd())).peer;
    peers.push(kit);
    const measured = await interleaved([loopOf(rawPeer), loopOf(kit)], n, warmup, repeats);
    const [raw, kitT] = measured;
    const expected = warmup + repeats * n;
    if (kit.answered() !== expected) throw new Error(`toolkit server sent ${kit.answered()} elicitations, expected ${expected}`);
    const rate = (ms: number) => n / (ms / 1000);
    const wall = roundRatio(measured.rounds, 1, 0, 'wallMs');
    const cpu = roundRatio(measured.rounds, 1, 0, 'serverCpuMs');
    const how = `stdio, N=${n} sequential after ${warmup} warm-up, ${repeats} interleaved rounds; ratios are the median of per-round ratios`;
    return [
      {
        group: 'toolkit',
        name: 'raw SDK server, ctx.mcpReq.elicitInput (baseline)',
        value: rate(raw.wallMs),
        unit: 'elicitations/s',
        ratio: 1,
        ratioTo: 'raw SDK',
        note: `${(raw.wallMs / n).toFixed(3)} ms wall, ${(raw.serverCpuMs / n).toFixed(3)} ms server CPU each; ${how}`,
      },
      {
        group: 'toolkit',
        name: 'parley toolkit, ctx.elicit',
        value: rate(kitT.wallMs),
        unit: 'elicitations/s',
        ratio: rate(kitT.wallMs) / rate(raw.wallMs),
        ratioTo: 'raw SDK rate',
        note: `${(kitT.wallMs / n).toFixed(3)} ms wall, ${(kitT.serverCpuMs / n).toFixed(3)} ms server CPU each`,
      },
      {
        group: 'toolkit',
        name: 'per-elicitation wall time toolkit ÷ raw',
        value: wall,
        unit: '×',
        target: '≤ 1.05×',
        met: wall <= 1.05,
        spread: roundQuartiles(measured.rounds, 1, 0, 'wallMs'),
        note: `${how}; ${roundSpread(measured.rounds, 1, 0, 'wallMs')}`,
      },
      {
        group: 'toolkit',
        name: 'per-elicitation server CPU toolkit ÷ raw (load-robust)',
        value: cpu,
        unit: '×',
        target: '≤ 1.15×',
        met: cpu <= 1.15,
        spread: roundQuartiles(measured.rounds, 1, 0, 'serverCpuMs'),
        note: `CPU of the server process during the loop; ${roundSpread(measured.rounds, 1, 0, 'serverCpuMs')}`,
      },
    ];
  } finally {
    await Promise.allSettled(peers.map((p) => p.close()));
  }
}
