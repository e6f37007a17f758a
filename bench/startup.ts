// `startup` group (issues 5, 7 and 17): how long until servers are ready.
// (a) Both bundled servers (parley-sales, parley-charts, from dist/) through `createHost(...).start()`
//     in parallel, vs the slowest of the two started alone by a raw SDK v2 Client (spawn + initialize).
//     Target (issue 5): parley both-in-parallel ÷ raw slowest-alone ≤ 1.3×, measured with the era
//     verdicts cached (as on every `parley up` after the first: the verdicts live in the store).
//     Cold (issue 17 item 9): with no era verdicts, until both servers have answered `tools/list`, vs
//     raw SDK Clients connecting to both in parallel and listing their tools, side by side in each
//     round; target ≤ 1.15× (median of the per-round ratios, quartiles in the note).
//     Both sides give the children the same environment: the SDK's default (`getDefaultEnvironment()`,
//     what the raw Client uses when given no env), passed to parley as `HostOptions.env`. parley itself
//     passes the whole inherited environment, and a variable like NODE_EXTRA_CA_CERTS costs every Node
//     child extra start-up CPU (it loads the CA bundle); that variant is measured in the note too.
// (b) Ten raw-SDK fixture servers (bench/fixtures/raw-server.mjs), cold (issue 17 item 9): per round,
//     raw SDK Clients starting all ten in parallel and parley's createHost starting all ten in parallel
//     with no era verdicts; target ≤ 1.15× (median of the per-round ratios, quartiles in the note). Ten
//     raw starts in sequence are measured once, for scale.
// Each repeat starts fresh processes; within a round the two sides of a ratio run back to back, the
// side that goes first alternating from round to round.
import { mkdtempSync, rmSync } from 'node:fs';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '../dist/src/host/host.js';
import { eraVerdictKey, processEraVerdicts } from '../dist/src/host/servers/era-verdict.js';
import { DEFAULT_POLICY } from '../dist/src/host/config/policy.js';
import type { HostConfig, ServerDef } from '../dist/src/host/config/types.js';
import { HeadlessPresenter } from '../dist/src/host/presenter.js';
import type { BenchRow } from './lib.js';
import { connectRaw, envInt, medianOf, rawServerCmd, repoPath, stdioDef, type Cmd } from './peers.js';

export interface StartupBenchOptions {
  /** Repeats (rounds) of (a), median reported. @default 11 (the ratio is a contention figure: 3 repeats swung by ±0.2 on a 2-core box) */
  repeats?: number;
  /** Servers in (b). @default 10 */
  fanout?: number;
  /** Rounds of (b). @default 7 (env PARLEY_BENCH_FANOUT_REPEATS): one round is two parallel starts of ten servers, ~4–6 s on a loaded 2-core box. */
  fanoutRepeats?: number;
  /** One unmeasured start of each bundled server first (seeds the sales database, warms the file cache). @default true */
  warmup?: boolean;
  /** Run the bundled servers from `dist/` (built by `npm run bench`) or from source through tsx. @default 'dist' */
  bundled?: 'dist' | 'source';
}

function bundledCmds(kind: 'dist' | 'source', dbPath: string): Record<'sales' | 'charts', Cmd> {
  const file = (name: string) =>
    kind === 'dist' ? [repoPath(`dist/servers/${name}/main.js`)] : ['--import', 'tsx', repoPath(`servers/${name}/main.ts`)];
  return {
    sales: { command: process.execPath, args: [...file('sales'), '--db', dbPath] },
    charts: { command: process.execPath, args: file('charts') },
  };
}

function hostConfig(servers: Record<string, ServerDef>): HostConfig {
  return {
    servers,
    routes: [],
    policy: { ...DEFAULT_POLICY, urlSchemes: [...DEFAULT_POLICY.urlSchemes] },
    presets: {},
    profile: {},
    inputs: {},
    roots: [],
    sources: [],
  };
}

/**
 * Forgets the era verdicts of `cmds` (createHost without a store keeps them in process memory), so the
 * next parley start negotiates as on the very first run.
 */
function forgetVerdicts(cmds: Record<string, Cmd>): void {
  for (const [n, c] of Object.entries(cmds)) processEraVerdicts.deleteEraVerdict(eraVerdictKey(stdioDef(n, c)));
}

/**
 * ms until `createHost(...).start()` has settled every server (running or failed, e.g. past the default
 * `startupMs` of 30000 on an overloaded machine); failures are counted in `failures`, never thrown, so
 * one slow start does not abort the whole bench run. Children get the SDK's default environment, like the
raw Client's, unless `inheritEnv` (parley's own default). With `answered`, also the ms until every running
 * server has then answered one `tools/list`. The host is closed afterwards.
 */
async function parleyStart(
  cmds: Record<string, Cmd>,
  failures: string[],
  o: { answered?: boolean; inheritEnv?: boolean } = {},
): Promise<{ ms: number; answeredMs: number }> {
  const env = o.inheritEnv ? process.env : getDefaultEnvironment();
  const host = createHost(hostConfig(Object.fromEntries(Object.entries(cmds).map(([n, c]) => [n, stdioDef(n, c)]))), {
    presenter: new HeadlessPresenter(),
    env,
  });
  try {
    const t0 = performance.now();
    const res = await host.start();
    const ms = performance.now() - t0;
    const failed = res.filter((r) => !r.ok);
    for (const f of failed) failures.push(`${f.name}: ${f.error?.message ?? 'failed'}`);
    if (o.answered) await Promise.allSettled(res.filter((r) => r.ok).map((r) => host.listTools(r.name)));
    return { ms, answeredMs: performance.now() - t0 };
  } finally {
    await host.close();
  }
}

/** ms for a raw SDK client to connect to `cmd` (fresh process), closed afterwards. */
async function rawStart(cmd: Cmd): Promise<number> {
  const { peer, ms } = await connectRaw(cmd);
  await peer.close();
  return ms;
}

async function rawParallel(cmds: Cmd[]): Promise<number> {
  const t0 = performance.now();
  const peers = await Promise.all(cmds.map((c) => connectRaw(c)));
  const ms = performance.now() - t0;
  await Promise.allSettled(peers.map((p) => p.peer.close()));
  return ms;
}

/** ms until raw SDK Clients, connecting to `cmds` in parallel, have each answered one `tools/list`. */
async function rawParallelListed(cmds: Cmd[]): Promise<number> {
  const t0 = performance.now();
  const peers = await Promise.all(
    cmds.map(async (c) => {
      const { peer } = await connectRaw(c);
      await peer.client.listTools();
      return peer;
    }),
  );
  const ms = performance.now() - t0;
  await Promise.allSettled(peers.map((p) => p.close()));
  return ms;
}

/** Runs the two sides of one round back to back; `round` odd runs `b` first. Returns [a, b]. */
async function pair(round: number, a: () => Promise<number>, b: () => Promise<number>): Promise<[number, number]> {
  if (round % 2 === 0) {
    const x = await a();
    return [x, await b()];
  }
  const y = await b();
  return [await a(), y];
}

/** Median and quartiles of per-round ratios `num[i] / den[i]`. */
function roundRatios(num: number[], den: number[]): { median: number; spread: string } {
  const s = num.map((x, i) => x / den[i]).sort((x, y) => x - y);
  const q = (f: number) => s[Math.min(s.length - 1, Math.floor(f * s.length))];
  return { median: medianOf(s), spread: `per-round ratios ${q(0.25).toFixed(2)}–${q(0.75).toFixed(2)}× (quartiles of ${s.length})` };
}

async function rawSequential(cmds: Cmd[]): Promise<number> {
  let total = 0;
  for (const c of cmds) total += await rawStart(c);
  return total;
}

export async function run(o: StartupBenchOptions = {}): Promise<BenchRow[]> {
  const repeats = o.repeats ?? 11;
  const fanout = o.fanout ?? 10;
  const fanoutRepeats = o.fanoutRepeats ?? envInt('PARLEY_BENCH_FANOUT_REPEATS', 7);
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-'));
  try {
    const cmds = bundledCmds(o.bundled ?? 'dist', join(dir, 'sales.db'));
    // Warm-up (unmeasured): creates and seeds the sales database, fills the OS file cache.
    if (o.warmup !== false) {
      await rawStart(cmds.sales);
      await rawStart(cmds.charts);
    }
    const failures: string[] = [];
    const fanFailures: string[] = [];
    const t = {
      sales: [] as number[],
      charts: [] as number[],
      rawBoth: [] as number[],
      rawListed: [] as number[],
      parley: [] as number[],
      parleyCharts: [] as number[],
      cold: [] as number[],
      coldAnswered: [] as number[],
      inherited: [] as number[],
    };
    const both = [cmds.sales, cmds.charts];
    for (let r = 0; r < repeats; r++) {
      t.sales.push(await rawStart(cmds.sales));
      t.charts.push(await rawStart(cmds.charts));
      t.rawBoth.push(await rawParallel(both));
      // Cold, side by side: raw SDK connect + tools/list of both, and parley with no era verdicts.
      const [raw, cold] = await pair(
        r,
        () => rawParallelListed(both),
        async () => {
          forgetVerdicts(cmds);
          const c = await parleyStart(cmds, failures, { answered: true }); // leaves the verdicts cached
          t.cold.push(c.ms);
          return c.answeredMs;
        },
      );
      t.rawListed.push(raw);
      t.coldAnswered.push(cold);
      t.parley.push((await parleyStart(cmds, failures)).ms);
      t.parleyCharts.push((await parleyStart({ charts: cmds.charts }, failures)).ms);
      t.inherited.push((await parleyStart(cmds, failures, { inheritEnv: true })).ms);
    }
    const sales = medianOf(t.sales);
    const charts = medianOf(t.charts);
    const slowest = Math.max(sales, charts);
    const slowName = sales >= charts ? 'parley-sales' : 'parley-charts';
    const parley = medianOf(t.parley);
    const rawBoth = medianOf(t.rawBoth);
    const parleyCharts = medianOf(t.parleyCharts);
    const cold = medianOf(t.cold);
    const inherited = medianOf(t.inherited);
    const coldRatio = roundRatios(t.coldAnswered, t.rawListed);
    const extraCa = process.env.NODE_EXTRA_CA_CERTS ? ' (this environment sets NODE_EXTRA_CA_CERTS)' : '';
    const how = `from ${o.bundled ?? 'dist'}, fresh processes, SDK default child environment on both sides, median of ${repeats} interleaved repeats`;

    const fixture = Array.from({ length: fanout }, () => rawServerCmd());
    const fan = Object.fromEntries(fixture.map((c, i) => [`s${i}`, c]));
    const seq = await rawSequential(fixture);
    const f = { par: [] as number[], parley: [] as number[] };
    for (let r = 0; r < fanoutRepeats; r++) {
      const [par, pf] = await pair(
        r,
        () => rawParallel(fixture),
        async () => {
          forgetVerdicts(fan); // every round measures a first start
          return (await parleyStart(fan, fanFailures)).ms;
        },
      );
      f.par.push(par);
      f.parley.push(pf);
    }
    const par = medianOf(f.par);
    const pf = medianOf(f.parley);
    const fanRatio = roundRatios(f.parley, f.par);
    const howF = `${fanout} raw-SDK fixture servers (legacy, stdio), no era verdicts cached, ${fanoutRepeats} rounds, the two sides back to back in each (order alternating)`;
    const ratio = parley / slowest;
    const failNote = (xs: string[]) =>
      xs.length
        ? `; ${xs.length} server start(s) FAILED (${xs.slice(0, 3).join('; ')}${xs.length > 3 ? '; …' : ''}), figure = time until all settled`
        : '';
    const rows: BenchRow[] = [
      { group: 'startup', name: 'raw SDK Client, parley-sales alone', value: sales, unit: 'ms', note: how },
      { group: 'startup', name: 'raw SDK Client, parley-charts alone', value: charts, unit: 'ms', note: how },
      {
        group: 'startup',
        name: `raw SDK Client, slowest alone (${slowName}) (baseline)`,
        value: slowest,
        unit: 'ms',
        ratio: 1,
        ratioTo: 'raw SDK slowest alone',
      },
      {
        group: 'startup',
        name: 'raw SDK Clients, both in parallel',
        value: rawBoth,
        unit: 'ms',
        ratio: rawBoth / slowest,
        ratioTo: 'raw SDK slowest alone',
      },
      {
        group: 'startup',
        name: 'parley createHost().start(), both in parallel (era verdicts cached)',
        value: parley,
        unit: 'ms',
        ratio,
        ratioTo: 'raw SDK slowest alone',
        target: '≤ 1.3×',
        met: ratio <= 1.3 && failures.length === 0,
        note: `${(parley / rawBoth).toFixed(2)}× raw SDK both in parallel; verdicts cached but children given the whole inherited environment (parley's default)${extraCa}: ${Math.round(inherited)} ms (${(inherited / slowest).toFixed(2)}×)${failNote(failures)}`,
      },
      {
        group: 'startup',
        name: 'parley createHost().start(), parley-charts alone (era verdict cached)',
        value: parleyCharts,
        unit: 'ms',
        ratio: parleyCharts / charts,
        ratioTo: 'raw SDK parley-charts alone',
        note: 'isolates the per-server cost from parallel CPU contention',
      },
      {
        group: 'startup',
        name: 'raw SDK Clients, both in parallel until both answered tools/list (baseline, cold)',
        value: medianOf(t.rawListed),
        unit: 'ms',
        ratio: 1,
        ratioTo: 'raw SDK both listed',
        note: how,
      },
      {
        group: 'startup',
        name: 'parley createHost().start() + tools/list of both, no era verdicts (first start)',
        value: medianOf(t.coldAnswered),
        unit: 'ms',
        ratio: coldRatio.median,
        ratioTo: 'raw SDK both listed',
        target: '≤ 1.15×',
        met: coldRatio.median <= 1.15 && failures.length === 0,
        note: `ratio = median of per-round ratios; ${coldRatio.spread}; start() alone ${Math.round(cold)} ms; era found on the session process (server/discover in place, no sibling)${failNote(failures)}`,
      },
      {
        group: 'startup',
        name: `raw SDK Clients, ${fanout} servers in sequence`,
        value: seq,
        unit: 'ms',
        note: 'one run, for scale',
      },
      {
        group: 'startup',
        name: `raw SDK Clients, ${fanout} servers in parallel (baseline, cold)`,
        value: par,
        unit: 'ms',
        ratio: 1,
        ratioTo: `raw SDK ${fanout} in parallel`,
        note: howF,
      },
      {
        group: 'startup',
        name: `parley createHost().start(), ${fanout} servers in parallel, no era verdicts (first start)`,
        value: pf,
        unit: 'ms',
        ratio: fanRatio.median,
        ratioTo: `raw SDK ${fanout} in parallel`,
        target: '≤ 1.15×',
        met: fanRatio.median <= 1.15 && fanFailures.length === 0,
        note: `ratio = median of per-round ratios; ${fanRatio.spread}${failNote(fanFailures)}`,
      },
    ];
    // Notes are not printed by run.ts: failed starts get rows of their own so they show.
    if (failures.length)
      rows.push({
        group: 'startup',
        name: `parley starts of the bundled servers that FAILED (of ${repeats * 7})`,
        value: failures.length,
        unit: 'starts',
        note: failures.join('; '),
      });
    if (fanFailures.length)
      rows.push({
        group: 'startup',
        name: `parley starts in the ${fanout}-server fan-out that FAILED (of ${fanout * fanoutRepeats}; default startupMs 30000)`,
        value: fanFailures.length,
        unit: 'starts',
        note: fanFailures.join('; '),
      });
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
