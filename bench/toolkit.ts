// `toolkit` group: the server toolkit's `ctx.elicit` vs the raw SDK server's push elicitation
// (`ctx.mcpReq.elicitInput`), both answered by the same kind of raw SDK v2 client (fixed accept) over
// stdio. Same tool, same 5-field form, same answer; only the server side differs
// (bench/fixtures/raw-server.mjs vs bench/fixtures/toolkit-server.ts).
import type { BenchRow } from './lib.js';
import { connectRaw, envInt, interleaved, rawServerCmd, toolkitServerCmd, type LoopCall, type RawPeer } from './peers.js';

export interface ToolkitBenchOptions {
  /** Elicitations per timed loop. @default 1000 (env PARLEY_BENCH_N) */
  n?: number;
  /** @default 100 */
  warmup?: number;
  /** @default 3 */
  repeats?: number;
}

const loopOf = (peer: RawPeer): LoopCall => (k) => peer.client.callTool({ name: 'elicit_loop', arguments: { n: k } }, { timeout: 120_000 }) as never;

export async function run(o: ToolkitBenchOptions = {}): Promise<BenchRow[]> {
  const n = o.n ?? envInt('PARLEY_BENCH_N', 1000);
  const warmup = o.warmup ?? 100;
  const repeats = o.repeats ?? 3;
  const peers: RawPeer[] = [];
  try {
    const raw = (await connectRaw(rawServerCmd())).peer;
    peers.push(raw);
    const kit = (await connectRaw(toolkitServerCmd())).peer;
    peers.push(kit);
    const [rawMs, kitMs] = await interleaved([loopOf(raw), loopOf(kit)], n, warmup, repeats);
    const expected = warmup + repeats * n;
    if (kit.answered() !== expected) throw new Error(`toolkit server sent ${kit.answered()} elicitations, expected ${expected}`);
    const rate = (ms: number) => n / (ms / 1000);
    const ratio = kitMs / rawMs;
    const how = `stdio, N=${n} sequential after ${warmup} warm-up, median of ${repeats} interleaved loops`;
    return [
      { group: 'toolkit', name: 'raw SDK server, ctx.mcpReq.elicitInput (baseline)', value: rate(rawMs), unit: 'elicitations/s', ratio: 1, ratioTo: 'raw SDK', note: `${(rawMs / n).toFixed(3)} ms each; ${how}` },
      { group: 'toolkit', name: 'parley toolkit, ctx.elicit', value: rate(kitMs), unit: 'elicitations/s', ratio: rate(kitMs) / rate(rawMs), ratioTo: 'raw SDK rate', note: `${(kitMs / n).toFixed(3)} ms each` },
      { group: 'toolkit', name: 'per-elicitation time toolkit ÷ raw', value: ratio, unit: '×', note: how },
    ];
  } finally {
    await Promise.allSettled(peers.map((p) => p.close()));
  }
}
