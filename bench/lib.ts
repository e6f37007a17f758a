// Shared benchmark helpers: timing, a result row, and the machine description.
import { cpus, totalmem, loadavg, platform, release } from 'node:os';

export interface BenchRow {
  /** Benchmark group, e.g. 'validation'. */
  group: string;
  /** What was measured, e.g. 'parley validateContent (cached)'. */
  name: string;
  /** Main figure. */
  value: number;
  unit: string;
  /** Ratio to the group's baseline row (the raw SDK where there is one), when meaningful. */
  ratio?: number;
  /** What the ratio is relative to. */
  ratioTo?: string;
  /** Target stated by the issue, in words, and whether it was met. */
  target?: string;
  met?: boolean;
  /**
   * Lower and upper quartile of the per-round figures whose median is `value` (n rounds), for rows
   * measured in interleaved rounds; `met` is judged on the median.
   */
  spread?: { q1: number; q3: number; n: number };
  note?: string;
}

/** Median and quartiles of `xs` (nearest rank; `xs` is not changed). */
export function quartiles(xs: number[]): { median: number; q1: number; q3: number; n: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (f: number) => s[Math.min(s.length - 1, Math.floor(f * s.length))];
  return { median: at(0.5), q1: at(0.25), q3: at(0.75), n: s.length };
}

/** Runs `fn` repeatedly for at least `ms` milliseconds (after `warmup` calls); returns calls per second. */
export function rate(fn: () => void, ms = 1000, warmup = 1000): number {
  for (let i = 0; i < warmup; i++) fn();
  let n = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(ms) * 1_000_000n;
  let elapsed = 0n;
  while (elapsed < budget) {
    for (let i = 0; i < 100; i++) fn();
    n += 100;
    elapsed = process.hrtime.bigint() - start;
  }
  return n / (Number(elapsed) / 1e9);
}

/** Median of `runs` results of `measure()`. */
export async function median(runs: number, measure: () => number | Promise<number>): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) xs.push(await measure());
  xs.sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)];
}

export function machine(): string {
  const c = cpus();
  return `${c.length} × ${c[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${platform()} ${release()}, Node ${process.version}, load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ')} at start`;
}
