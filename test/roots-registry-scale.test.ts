// The root registry's bookkeeping grows linearly with the roots: adding N roots one by one, with several
// servers that have asked for their lists, costs about N times one add, not N². It used to recompute
// every server's whole list on every add, and, with health checks on, walk every root (and stat every
// root's parent folder) to sync its folder watchers on every add. Compares growth (2000 vs 250 roots,
// CPU time, the best of three interleaved runs), never absolute times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RootRegistry } from '../src/host/roots/index.js';

const SERVERS = ['fs', 'crm', 'reports', 'sales', 'charts', 'notes'];
const routes = [
  { match: 'file:///srv/data/**', servers: ['fs', 'reports'] },
  { match: 'file:///srv/crm/**', servers: ['crm'] },
  { match: 'sales://**', servers: ['sales'] },
];

/**
 * CPU ms to add `n` roots one by one to a registry whose servers all asked for their lists. `watching`:
 * health checks and folder watching on, one add per event-loop turn (as roots arrive from requests),
 * half the roots in an existing folder (watched), half under missing parents.
 */
async function addMany(n: number, watching: string | undefined): Promise<number> {
  const reg = new RootRegistry({ routes, healthIntervalMs: 3_600_000 });
  if (watching) reg.startHealthChecks({ watch: true });
  let events = 0;
  reg.on('change', (c) => {
    events += c.servers.length;
  });
  for (const s of SERVERS) reg.rootsForServer(s);
  const uriOf = (i: number) =>
    watching && i % 2 === 0
      ? `${pathToFileURL(watching).href}/r${i}`
      : ['file:///srv/data/p', 'file:///srv/crm/p', 'file:///home/u/p', 'sales://t/'][i % 4] + i + '/x';
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    reg.add(uriOf(i), { name: `root ${i}` });
    if (watching) await new Promise((r) => setImmediate(r));
  }
  const used = process.cpuUsage(t0);
  assert.ok(events > 0);
  if (watching) assert.ok(reg.watchedFolders >= 1, 'the existing folder is watched');
  else assert.equal(reg.rootsForServer('crm').length, n / 2, 'crm: its routed roots plus the unrouted ones');
  reg.close();
  return (used.user + used.system) / 1000;
}

for (const watch of [false, true]) {
  test(`adding N roots grows linearly${watch ? ' (health checks and folder watching on)' : ''}: 8× the roots costs well under 64× (quadratic) the time`, async () => {
    const dir = watch ? mkdtempSync(join(tmpdir(), 'parley-roots-scale-')) : undefined;
    try {
      await addMany(200, dir); // warm-up (JIT)
      const small: number[] = [];
      const large: number[] = [];
      for (let round = 0; round < 3; round++) {
        small.push(await addMany(250, dir));
        large.push(await addMany(2000, dir));
      }
      const best = (xs: number[]) => Math.max(Math.min(...xs), 0.5);
      const ratio = best(large) / best(small);
      // Linear: about 8 (a little more for Map growth and GC); quadratic: about 64.
      assert.ok(
        ratio < 24,
        `2000 roots took ${ratio.toFixed(1)}× the time of 250 (${best(large).toFixed(1)} ms vs ${best(small).toFixed(1)} ms): not linear`,
      );
    } finally {
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  });
}
