// `flood` group (issues 12.7 and 17.7): one server floods the host with 500 elicitation requests/s
// while the host must stay responsive. Real processes: parley's ServerManager + ElicitationBroker on a
// SQLite store FILE (WAL, synchronous=NORMAL, as `parley up` opens it), a policy without a rate limit
// or pending cap (FLOOD_POLICY: every request is admitted, answered and writes its `request` and
// `answer` rows, and its reply waits for their commit; under the default policy most would be refused,
// and refusals beyond the audit budget write nothing), a presenter that accepts at once, and two stdio servers
// (bench/fixtures/flood-server.mjs): `flood` pushes elicitation/create at 500/s for the phase, `calm`
// answers `ping` tool calls. Each phase (idle, then the flood) runs `calm` ping calls back to back,
// 5 ms apart, and records their latency and the host's event-loop delay (perf_hooks
// monitorEventLoopDelay, 10 ms resolution, so ~10 ms is the floor).
// Two audit writers side by side in the same run: `group commit` (the store's default: every append of
// one event-loop turn in one transaction) and `commit per row` (`groupCommit: false`).
// Targets: event-loop delay p99 during the flood ≤ 50 ms (idle p99 beside it); calm's median ping
// latency during the flood ≤ 1.5× idle.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { ElicitationBroker } from '../dist/src/host/broker/index.js';
import { ServerManager } from '../dist/src/host/servers/index.js';
import { openSqliteStore } from '../dist/src/host/store/sqlite.js';
import type { BenchRow } from './lib.js';
import { envInt, medianOf, repoPath, stdioDef } from './peers.js';

/** Every flood request admitted: no rate limit, no pending cap (see the module comment). */
const FLOOD_POLICY = { ratePerMinute: 1e9, burst: 1e9, maxPendingPerServer: 1e9 };
const FLOOD_SERVER = { command: process.execPath, args: [repoPath('bench/fixtures/flood-server.mjs')] };
const presenter = {
  interactive: false,
  present: async () => ({ action: 'accept' as const, content: { region: 'north' } }),
  notify: () => undefined,
};

interface Phase {
  p99: number;
  pingMs: number;
  pings: number;
  flood?: Record<string, number>;
}

async function phase(manager: ServerManager, ms: number, rate: number): Promise<Phase> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const lat: number[] = [];
  let stop = false;
  const calm = (async () => {
    while (!stop) {
      const t0 = performance.now();
      await manager.callTool('calm', 'ping', {});
      lat.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  let flood: Record<string, number> | undefined;
  if (rate > 0) {
    const r = await manager.callTool('flood', 'flood', { ms, rate });
    flood = r.structuredContent as Record<string, number>;
  } else await new Promise((r) => setTimeout(r, ms));
  stop = true;
  await calm;
  h.disable();
  return { p99: h.percentile(99) / 1e6, pingMs: medianOf(lat), pings: lat.length, ...(flood ? { flood } : {}) };
}

export async function run(o: { ms?: number; rate?: number } = {}): Promise<BenchRow[]> {
  const ms = o.ms ?? envInt('PARLEY_BENCH_FLOOD_MS', 4000);
  const rate = o.rate ?? 500;
  const dir = mkdtempSync(join(tmpdir(), 'parley-flood-'));
  const rows: BenchRow[] = [];
  try {
    for (const [label, groupCommit] of [
      ['group commit', true],
      ['commit per row', false],
    ] as const) {
      const store = openSqliteStore(join(dir, `${groupCommit ? 'group' : 'row'}.db`), { groupCommit });
      const broker = new ElicitationBroker({ presenter, store, policy: FLOOD_POLICY });
      const manager = new ServerManager(
        { flood: stdioDef('flood', FLOOD_SERVER), calm: stdioDef('calm', FLOOD_SERVER) },
        {
          clientInfo: { name: 'parley-bench', version: '0.0.1' },
          handlers: { elicit: (params, ctx) => broker.elicit(params as never, ctx), listRoots: async () => ({ roots: [] }) },
        },
      );
      try {
        await manager.startMany(['flood', 'calm']);
        await phase(manager, Math.min(500, ms), rate); // warm-up
        const idle = await phase(manager, ms, 0);
        const flood = await phase(manager, ms, rate);
        const audit = (await store.queryAudit({ limit: 1_000_000 })).length;
        const ratio = flood.pingMs / idle.pingMs;
        rows.push(
          { group: 'flood', name: `${label}: event-loop delay p99, idle (baseline)`, value: idle.p99, unit: 'ms' },
          {
            group: 'flood',
            name: `${label}: event-loop delay p99 during ${rate}/s elicitations from one server`,
            value: flood.p99,
            unit: 'ms',
            ratio: flood.p99 / idle.p99,
            ratioTo: 'idle p99',
            target: 'p99 ≤ 50 ms',
            met: flood.p99 <= 50,
            note: `flood answers ${JSON.stringify(flood.flood)} in ${ms} ms; ${audit} audit rows in the file`,
          },
          {
            group: 'flood',
            name: `${label}: another server's tool-call latency, flood ÷ idle`,
            value: ratio,
            unit: '×',
            target: '≤ 1.5× idle',
            met: ratio <= 1.5,
            note: `median ping ${flood.pingMs.toFixed(2)} ms during the flood (${flood.pings} calls), ${idle.pingMs.toFixed(2)} ms idle (${idle.pings} calls)`,
          },
        );
      } finally {
        await manager.stopAll();
        await store.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
