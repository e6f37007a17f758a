// `npm run bench [group …]`: runs the benchmarks, prints a table, and writes docs/benchmarks.md.
// Only ratios measured side by side in this run mean anything; absolute figures depend on the machine.
// Each group runs in a Node process of its own (this script again, with `--one <group>`), so one
// group's heap, JIT and child processes cannot tilt the next group's comparison.
import { spawn } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import { machine, type BenchRow } from './lib.js';

const GROUPS: Record<string, () => Promise<{ run: () => Promise<BenchRow[]> }>> = {
  validation: () => import('./validation.js'),
  broker: () => import('./broker.js'),
  toolkit: () => import('./toolkit.js'),
  startup: () => import('./startup.js'),
  gateway: () => import('./gateway.js'),
  flood: () => import('./flood.js'),
  proxies: () => import('./proxies.js'),
  replicas: () => import('./replicas.js'),
};

const fmt = (x: number) => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(2));

const ROWS = 'PARLEY_BENCH_ROWS ';

/** A row's per-round quartiles, e.g. `0.92–1.12 (quartiles of 21)`. */
const spread = (r: BenchRow) => (r.spread ? `${fmt(r.spread.q1)}–${fmt(r.spread.q3)} (quartiles of ${r.spread.n})` : '');

/** The quartiles cell of the table: a target row without them says so. */
const spreadCell = (r: BenchRow) => (r.spread ? spread(r) : r.target ? 'no per-round figures' : '');

/** Runs one group in this process: prints its rows, then one machine-readable line for the parent. */
async function one(name: string): Promise<void> {
  const load = GROUPS[name];
  if (!load) throw new Error(`unknown bench group "${name}"; groups: ${Object.keys(GROUPS).join(', ')}`);
  const got = await (await load()).run();
  for (const r of got)
    console.log(
      `  ${r.name}: ${fmt(r.value)} ${r.unit}${r.ratio !== undefined ? `  (${fmt(r.ratio)}× ${r.ratioTo})` : ''}${r.spread ? `  [per-round ${spread(r)}]` : ''}${r.target ? `  target ${r.target}: ${r.met ? 'met' : 'NOT met'}` : ''}${r.note ? `\n      ${r.note}` : ''}`,
    );
  console.log(ROWS + JSON.stringify(got));
}

/** Runs `name` in a fresh Node process; resolves with its rows (its other output is passed through). */
function inChild(name: string): Promise<BenchRow[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1], '--one', name], { stdio: ['ignore', 'pipe', 'inherit'] });
    let rows: BenchRow[] | undefined;
    let buf = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      buf += d;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.startsWith(ROWS)) rows = JSON.parse(line.slice(ROWS.length)) as BenchRow[];
        else console.log(line);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && rows ? resolve(rows) : reject(new Error(`bench group ${name} exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--one') return one(args[1]);
  const wanted = args;
  const env = machine();
  console.log(`parley benchmarks — ${env}`);
  const rows: BenchRow[] = [];
  for (const name of Object.keys(GROUPS)) {
    if (wanted.length && !wanted.includes(name)) continue;
    console.log(`\n## ${name}`);
    rows.push(...(await inChild(name)));
  }
  const md = [
    '# Benchmarks',
    '',
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}. Machine: ${env}.`,
    '',
    'Each group runs parley and its baseline (the raw SDK, or the proxies people use instead) in the same run, one fresh process per group; only the ratios carry over to other machines.',
    '',
    'A row measured in interleaved rounds gives the median of its per-round figures as its value and their quartiles beside it; a target is met when that median meets it in this run. Method: [benchmarks-method.md](benchmarks-method.md).',
    '',
    '| group | measurement | value | ratio | per-round quartiles | target | note |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.group} | ${r.name} | ${fmt(r.value)} ${r.unit} | ${r.ratio !== undefined ? `${fmt(r.ratio)}× ${r.ratioTo}` : ''} | ${spreadCell(r)} | ${r.target ? `${r.target} (${r.met ? 'met' : 'not met'})` : ''} | ${(r.note ?? '').replace(/\|/g, '\\|')} |`,
    ),
    '',
  ].join('\n');
  if (!wanted.length) {
    mkdirSync('docs', { recursive: true });
    writeFileSync('docs/benchmarks.md', md);
    console.log('\nwrote docs/benchmarks.md');
  }
}
await main();
