#!/usr/bin/env node
// `npm run conformance`: the official MCP conformance suite against parley (docs/conformance.md).
//
// 1. Finds the suites in node_modules: devDependencies under npm aliases, `conformance-0.1`
//    (@modelcontextprotocol/conformance 0.1.16: 2025-06-18 / 2025-11-25) and `conformance-0.2`
//    (0.2.0-alpha.12: 2026-07-28 / MRTR). PARLEY_CONFORMANCE_TOOLS=<dir> instead uses
//    <dir>/conformance-<line>/node_modules/@modelcontextprotocol/conformance (an own install, e.g. to try
//    another version). Nothing is installed at run time; a missing or wrong version is an error.
// 2. Starts scripts/conformance/server.ts (parley toolkit) on 127.0.0.1:<free port> and runs the server
//    scenarios: 0.1.16 `--suite active`; 0.2 `--requirements 2026-07-28`, then 0.2 `--suite active
//    --spec-version 2025-11-25` (names suffixed ` @2025-11-25`).
// 3. Runs each client scenario (0.1.16: all; 0.2: those tagged 2026-07-28) against
//    scripts/conformance/client.ts (parley host runtime + broker), bundled once with esbuild into
//    dist/conformance/client.mjs. The scenarios of `--suite auth` (both lines) and `--suite draft` (0.2)
//    run as parallel suite runs, one after another after the pool (SUITE_RUNS); every other scenario
//    runs alone in the pool; one of a suite run without results or with a lost connection runs again alone. Server runs, suite runs and client
//    scenarios share a pool of --jobs (default 3, env PARLEY_CONFORMANCE_JOBS); sse-retry (timing
//    sensitive) runs alone after the pool.
// 4. Compares with baseline.jsonc and ends with `conformance: N passed, N failed`, counting CHECKS of the
//    scenarios not in the baseline. Exit 1 on any failed check, a scenario without results, or a stale
//    baseline entry. Warnings are listed, not counted as failures. Before that, one line per revision says
//    how many of the scenarios that revision requires pass (required.mjs).
//
// Usage: node scripts/conformance/run.mjs [--only server|client] [--line 0.1|0.2] [--keep <dir>] [--jobs N]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parse as parseJsonc } from 'jsonc-parser';
import { requiredSets, requiredSummary } from './required.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const toolsDir = process.env.PARLEY_CONFORMANCE_TOOLS ? resolve(process.env.PARLEY_CONFORMANCE_TOOLS) : undefined;
const PACKAGE = '@modelcontextprotocol/conformance';
const LINES = { 0.1: '0.1.16', 0.2: '0.2.0-alpha.12' };
const PRELOAD = join(here, 'node20-preload.mjs');
const SERVER_START_MS = 60_000;
// The suite default is 30 s; a client run took up to 27 s on this 2-core machine at load average ~15.
const CLIENT_TIMEOUT_MS = 60_000;
// sse-retry checks reconnect timing (-50/+200 ms) and fails under load, so it runs alone.
const SERIAL_CLIENT_SCENARIOS = new Set(['sse-retry']);

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const only = opt('--only');
const lines = opt('--line') ? [opt('--line')] : Object.keys(LINES);
const keep = opt('--keep');
// Server runs and client scenarios (each a suite CLI plus, for clients, a tsx process) run this many at a time.
const jobs = Math.max(1, Number(opt('--jobs') ?? process.env.PARLEY_CONFORMANCE_JOBS ?? 3) || 3);
const out = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), 'parley-conformance-'));
const log = (m) => console.error(`conformance: ${m}`);
const started = Date.now();

/**
 * The suite CLI of one line: node_modules/conformance-<line> (npm alias), or the own install under
 * PARLEY_CONFORMANCE_TOOLS. Throws when it is missing or not the pinned version.
 */
function suiteBin(line) {
  const version = LINES[line];
  const pkgDir = toolsDir
    ? join(toolsDir, `conformance-${line}`, 'node_modules', PACKAGE)
    : dirname(createRequire(join(root, 'package.json')).resolve(`conformance-${line}/package.json`, { paths: [root] }));
  const pkgFile = join(pkgDir, 'package.json');
  const pkg = existsSync(pkgFile) ? JSON.parse(readFileSync(pkgFile, 'utf8')) : undefined;
  if (pkg?.name !== PACKAGE || pkg.version !== version) {
    const fix = toolsDir
      ? `npm install --prefix ${join(toolsDir, `conformance-${line}`)} ${PACKAGE}@${version}`
      : 'npm ci (the suites are devDependencies)';
    throw new Error(`${PACKAGE}@${version} not found at ${pkgDir} (found ${pkg ? `${pkg.name}@${pkg.version}` : 'nothing'}); run ${fix}`);
  }
  return join(pkgDir, 'dist', 'index.js');
}

/** Runs the suite CLI; resolves with {code, stdout, stderr}. Bounded by `timeoutMs`. */
function cli(bin, argv, timeoutMs) {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, ['--import', PRELOAD, bin, ...argv], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '',
      stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** Starts the conformance server; resolves with {url, stop()}. */
function startServer() {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'server.ts')], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let buf = '',
      errBuf = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`conformance server did not start within ${SERVER_START_MS} ms: ${errBuf}`));
    }, SERVER_START_MS);
    child.stderr.on('data', (d) => {
      errBuf += d;
    });
    child.stdout.on('data', (d) => {
      buf += d;
      const m = /listening on (http:\/\/\S+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        const stop = () =>
          new Promise((r) => {
            if (child.exitCode !== null) return r();
            child.once('close', () => r());
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 3000).unref();
          });
        resolvePromise({ url: m[1], stop });
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`conformance server exited (${code}) before listening: ${errBuf}`));
    });
  });
}

/** Reads every `<dir>/<name>-<ISO time>/checks.json` into {scenario → checks[]}. */
function readResults(dir, prefix) {
  const res = new Map();
  if (!existsSync(dir)) return res;
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const m = /^(.*)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(d.name);
    const file = join(dir, d.name, 'checks.json');
    // A scenario named `auth/x` writes `auth/x-<time>/`: read one folder level down with `auth/` as prefix.
    if (!m && d.isDirectory() && !prefix) {
      for (const [name, checks] of readResults(join(dir, d.name))) res.set(`${d.name}/${name}`, checks);
      continue;
    }
    if (!m || !existsSync(file)) continue;
    const name = prefix && m[1].startsWith(prefix) ? m[1].slice(prefix.length) : m[1];
    res.set(name, JSON.parse(readFileSync(file, 'utf8')));
  }
  return res;
}

/**
 * What parley's client printed (stdout.txt and stderr.txt) in scenario `name`'s folder under `dir` (a
 * suite run's output: `<name>-<time>/`, `auth/x` one level down), or '' when there is none.
 */
function clientOutput(dir, name) {
  const slash = name.lastIndexOf('/');
  const base = slash >= 0 ? join(dir, name.slice(0, slash)) : dir;
  const leaf = name.slice(slash + 1);
  if (!existsSync(base)) return '';
  const folder = readdirSync(base).find((n) => n.startsWith(`${leaf}-`) && /^\d{4}-\d{2}-\d{2}T[\d-]+Z$/.test(n.slice(leaf.length + 1)));
  if (!folder) return '';
  const read = (f) => (existsSync(join(base, folder, f)) ? readFileSync(join(base, folder, f), 'utf8') : '');
  return read('stdout.txt') + read('stderr.txt');
}

/** A connection lost at the socket, as parley's client reports it (undici's `fetch failed` and its causes). */
const LOST_CONNECTION = /fetch failed|other side closed|socket hang up|ECONNRESET|ECONNREFUSED|UND_ERR_SOCKET/;

/** `conformance list --client` → [{name, tags}] */
async function listClientScenarios(bin) {
  const r = await cli(bin, ['list', '--client'], 60_000);
  return [...r.stdout.matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)].map((m) => ({ name: m[1], tags: m[2].split(',') }));
}

const baseline = parseJsonc(readFileSync(join(here, 'baseline.jsonc'), 'utf8'));
const inBaseline = (line, side, name) =>
  (baseline[line]?.[side] ?? []).some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : p === name));

/** scenario results: {line, side, name, checks, problem?} */
const results = [];

/** Server runs per suite line: [selection, suffix for the scenario names]. */
const SERVER_RUNS = {
  0.1: [[['--suite', 'active'], '']],
  // The 2026-07-28 set, then the alpha's (newer) 2025-era scenarios, e.g. server-session-lifecycle.
  0.2: [
    [['--requirements', '2026-07-28'], ''],
    [['--suite', 'active', '--spec-version', '2025-11-25'], ' @2025-11-25'],
  ],
};

/** The server runs: one task per (line, selection). */
function serverTasks(url) {
  return lines.flatMap((line) =>
    SERVER_RUNS[line].map(([sel, suffix], i) => async () => {
      const dir = join(out, `server-${line}-${i}`);
      const t0 = Date.now();
      const r = await cli(suiteBin(line), ['server', '--url', url, ...sel, '-o', dir], 300_000);
      log(`server ${LINES[line]} ${sel.join(' ')}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      const got = readResults(dir, 'server-');
      if (got.size === 0)
        results.push({
          line,
          side: 'server',
          name: `(suite ${sel.join(' ')})`,
          checks: [],
          problem: `no results (exit ${r.code}): ${r.stderr.slice(-500)}`,
        });
      for (const [name, checks] of got) results.push({ line, side: 'server', name: name + suffix, checks });
    }),
  );
}

/**
 * Client scenarios run by one parallel suite run of the CLI instead of one CLI each, per line, with the
 * rule that says which scenarios that suite runs: `--suite auth` runs the `auth/*` scenarios tagged
 * 2025-06-18 or 2025-11-25 (14 per line); `--suite draft` (0.2) runs those introduced in 2026-07-28
 * (tagged only 2026-07-28: 11 auth/* and 6 others). A scenario the rule names that the suite did not
 * report is a failure ("no results").
 */
const SUITE_RUNS = {
  0.1: [
    {
      args: ['--suite', 'auth'],
      covers: (s) => s.name.startsWith('auth/') && s.tags.some((t) => t === '2025-06-18' || t === '2025-11-25'),
    },
  ],
  0.2: [
    { args: ['--suite', 'draft', '--spec-version', '2026-07-28'], covers: (s) => s.tags.length === 1 && s.tags[0] === '2026-07-28' },
    {
      args: ['--suite', 'auth', '--spec-version', '2026-07-28'],
      covers: (s) => s.name.startsWith('auth/') && s.tags.some((t) => t === '2025-06-18' || t === '2025-11-25'),
    },
  ],
};

/** Bundles scripts/conformance/client.ts once (esbuild), so each client process starts in ~0.3 s instead of ~3 s under tsx. */
async function bundleClient() {
  const { build } = await import('esbuild');
  const outfile = join(root, 'dist', 'conformance', 'client.mjs');
  await build({
    entryPoints: [join(here, 'client.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

/** The client scenarios: [{serial, run}] — one task per scenario not in the baseline, plus one per auth suite run. */
async function clientTasks() {
  const command = `"${process.execPath}" "${await bundleClient()}"`;
  const perLine = await Promise.all(
    lines.map(async (line) => {
      const bin = suiteBin(line);
      const all = await listClientScenarios(bin);
      const picked = all.filter((s) => (line === '0.1' || s.tags.includes('2026-07-28')) && !inBaseline(line, 'client', s.name));
      const suites = SUITE_RUNS[line].map((run) => ({ ...run, scenarios: picked.filter(run.covers) }));
      const single = picked.filter((s) => !suites.some((r) => r.covers(s)));
      const extra = line === '0.2' ? ['--spec-version', '2026-07-28'] : [];
      /** One client scenario run alone; its result is added to `results`. */
      const alone = async (s, dir = join(out, `client-${line}`, s.name.replace(/\//g, '_'))) => {
        const t0 = Date.now();
        const r = await cli(
          bin,
          ['client', '--command', command, '--scenario', s.name, '--timeout', String(CLIENT_TIMEOUT_MS), ...extra, '-o', dir],
          CLIENT_TIMEOUT_MS + 30_000,
        );
        const got = [...readResults(dir).values()][0];
        log(`client ${LINES[line]} ${s.name}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        // The checks decide; a non-zero runner exit without failed checks (warnings only, or the client
        // exiting non-zero after its checks passed) is reported as a warning.
        const note =
          got && r.code !== 0 && !got.some((c) => c.status === 'FAILURE') ? `runner exit ${r.code} without failed checks` : undefined;
        results.push({
          line,
          side: 'client',
          name: s.name,
          checks: got ?? [],
          problem: got ? undefined : `no results (exit ${r.code}): ${r.stdout.slice(-300)}`,
          note,
        });
      };
      const tasks = single.map((s) => ({ serial: SERIAL_CLIENT_SCENARIOS.has(s.name), run: () => alone(s) }));
      const suiteRuns = suites
        .filter((r) => r.scenarios.length)
        .map((r, i) => async () => {
          const dir = join(out, `client-${line}`, `suite-${i}`);
          const t0 = Date.now();
          const res = await cli(
            bin,
            ['client', '--command', command, ...r.args, '--timeout', String(CLIENT_TIMEOUT_MS), '-o', dir],
            CLIENT_TIMEOUT_MS + 60_000,
          );
          const got = readResults(dir);
          log(
            `client ${LINES[line]} ${r.args.join(' ')} (${r.scenarios.length} scenarios in parallel): ${((Date.now() - t0) / 1000).toFixed(1)} s`,
          );
          for (const s of r.scenarios) {
            const checks = got.get(s.name);
            results.push({
              line,
              side: 'client',
              name: s.name,
              checks: checks ?? [],
              problem: checks ? undefined : `no results from ${r.args.join(' ')} (exit ${res.code}): ${res.stdout.slice(-300)}`,
              // Run again alone only when it has no results or parley's client lost its connection.
              ...(!checks || LOST_CONNECTION.test(clientOutput(dir, s.name))
                ? { again: () => alone(s, join(out, `client-${line}`, `again-${s.name.replace(/\//g, '_')}`)) }
                : {}),
            });
          }
        });
      return { tasks, suiteRuns };
    }),
  );
  // The suite runs go one after another, after the pool and alone: each starts 14-17 clients together,
  // and beside other runs a loaded 2-core machine starved those (a 25 s tool-call bound passed in a
  // scenario that takes 2 s alone).
  const chain = perLine.flatMap((p) => p.suiteRuns).reverse();
  const suiteTask = chain.length
    ? [
        {
          suite: true,
          serial: false,
          run: async () => {
            for (const run of chain) await run();
          },
        },
      ]
    : [];
  return [...suiteTask, ...perLine.flatMap((p) => p.tasks)];
}

/** Whether a scenario's result has a failed check or no results. */
function failedResult(r) {
  return Boolean(r.problem) || r.checks.some((c) => c.status === 'FAILURE');
}

function describeFailure(r) {
  return (
    r.problem ??
    r.checks
      .filter((c) => c.status === 'FAILURE')
      .map((c) => c.errorMessage ?? c.details?.message ?? c.id)
      .join('; ')
  );
}

/** Runs `tasks` with at most `n` at a time. */
async function pool(tasks, n) {
  const queue = [...tasks];
  await Promise.all(
    Array.from({ length: Math.min(n, queue.length) }, async () => {
      for (let t = queue.shift(); t; t = queue.shift()) await t();
    }),
  );
}

let server;
try {
  const [srv, clients] = await Promise.all([only !== 'client' ? startServer() : undefined, only !== 'server' ? clientTasks() : []]);
  server = srv;
  if (server) log(`parley conformance server at ${server.url}`);
  // Server runs and client scenarios share one pool; timing-sensitive scenarios run alone afterwards.
  await pool([...(server ? serverTasks(server.url) : []), ...clients.filter((c) => !c.serial && !c.suite).map((c) => c.run)], jobs);
  for (const c of clients.filter((c) => c.suite)) await c.run();
  // A scenario that failed in a parallel suite run without results, or whose client lost its connection to
  // the scenario's server ("fetch failed": those runs start 14-17 clients together on a loaded machine),
  // runs once more, alone. A failed check with the connection intact is not retried; a pass alone is a warning.
  for (const r of results.filter((r) => r.again && !inBaseline(r.line, r.side, r.name) && failedResult(r))) {
    log(`client ${LINES[r.line]} ${r.name}: failed in the suite run (${describeFailure(r)}); running it alone`);
    results.splice(results.indexOf(r), 1);
    await r.again();
    const alone = results.at(-1);
    if (alone && !failedResult(alone))
      alone.note = [alone.note, 'failed in the parallel suite run, passed alone'].filter(Boolean).join('; ');
  }
  for (const c of clients.filter((c) => c.serial)) {
    await c.run();
    // One retry for a timing-sensitive scenario that failed (a >2x late reconnect on a loaded machine); a
    // client that really ignores `retry` fails both times. The retry is listed as a warning.
    const last = results.at(-1);
    if (last && failedResult(last)) {
      results.pop();
      log(`client ${LINES[last.line]} ${last.name}: failed (${describeFailure(last)}); retrying once`);
      await c.run();
      const again = results.at(-1);
      if (again && !failedResult(again))
        again.note = [again.note, 'passed only on the retry (timing-sensitive scenario)'].filter(Boolean).join('; ');
    }
  }
} finally {
  await server?.stop();
}

// Tally.
let passed = 0,
  failed = 0,
  warnings = 0;
const unexpected = [],
  expected = [],
  stale = [],
  warned = [];
for (const r of results) {
  const fails = r.checks.filter((c) => c.status === 'FAILURE');
  const warns = r.checks.filter((c) => c.status === 'WARNING');
  const label = `${LINES[r.line]} ${r.side} ${r.name}`;
  if (inBaseline(r.line, r.side, r.name)) {
    if (fails.length === 0 && !r.problem && r.checks.some((c) => c.status === 'SUCCESS')) stale.push(label);
    else expected.push(`${label} (${fails.length} failed checks)`);
    continue;
  }
  passed += r.checks.filter((c) => c.status === 'SUCCESS').length;
  failed += fails.length + (r.problem ? 1 : 0);
  warnings += warns.length;
  for (const c of fails) unexpected.push(`${label}: ${c.id}: ${(c.errorMessage ?? '').slice(0, 300)}`);
  if (r.problem) unexpected.push(`${label}: ${r.problem}`);
  for (const c of warns) warned.push(`${label}: ${c.id}: ${(c.errorMessage ?? '').slice(0, 200)}`);
  if (r.note) warned.push(`${label}: ${r.note}`);
}
const scenarios = results.filter((r) => !inBaseline(r.line, r.side, r.name));
const removeResults = !keep && unexpected.length === 0 && stale.length === 0;
console.log(
  `scenarios run: ${results.length} (${scenarios.length} scored, ${results.length - scenarios.length} in the baseline); results ${removeResults ? 'removed (use --keep <dir>)' : `in ${out}`}`,
);
for (const l of expected) console.log(`  expected failure (baseline): ${l}`);
for (const l of stale) console.log(`  STALE baseline entry (passes now; remove it): ${l}`);
for (const l of warned) console.log(`  warning: ${l}`);
for (const l of unexpected) console.log(`  FAILED: ${l}`);
// Required scenarios per revision (required.mjs): what the baseline leaves out counts as not passing here.
const sets = await requiredSets((argv) => cli(suiteBin('0.2'), argv, 60_000)).catch(
  (e) => (log(`cannot list the required scenarios: ${e.message}`), undefined),
);
if (sets) {
  for (const l of requiredSummary(sets, results)) console.log(l);
  // The baseline is for what no revision requires; an entry that names a required scenario is listed.
  const required = new Set(
    Object.values(sets).flatMap((s) => [...s.server.map((n) => `server ${n}`), ...s.client.map((n) => `client ${n}`)]),
  );
  const owed = Object.entries(baseline).flatMap(([line, sides]) =>
    Object.entries(sides).flatMap(([side, names]) =>
      names
        .filter((p) =>
          [...required].some(
            (r) =>
              r.startsWith(`${side} `) && (p.endsWith('*') ? r.slice(side.length + 1).startsWith(p.slice(0, -1)) : r === `${side} ${p}`),
          ),
        )
        .map((p) => `${LINES[line]} ${side} ${p}`),
    ),
  );
  if (owed.length) console.log(`baseline entries that a revision requires (they must pass, not be excused): ${owed.join(', ')}`);
}
console.log(`time: ${((Date.now() - started) / 1000).toFixed(0)} s; warnings: ${warnings}`);
console.log(`conformance: ${passed} passed, ${failed} failed`);
if (removeResults) rmSync(out, { recursive: true, force: true });
process.exit(unexpected.length > 0 || stale.length > 0 ? 1 : 0);
