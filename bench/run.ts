// `npm run bench [group …]`: runs the benchmarks, prints a table, and writes docs/benchmarks.md.
// Only ratios measured side by side in this run mean anything; absolute figures depend on the machine.
import { writeFileSync, mkdirSync } from 'node:fs';
import { machine, type BenchRow } from './lib.js';

const GROUPS: Record<string, () => Promise<{ run: () => Promise<BenchRow[]> }>> = {
  validation: () => import('./validation.js'),
  broker: () => import('./broker.js'),
  toolkit: () => import('./toolkit.js'),
  startup: () => import('./startup.js'),
  gateway: () => import('./gateway.js'),
};

const fmt = (x: number) => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(2));

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const env = machine();
  console.log(`parley benchmarks — ${env}`);
  const rows: BenchRow[] = [];
  for (const [name, load] of Object.entries(GROUPS)) {
    if (wanted.length && !wanted.includes(name)) continue;
    console.log(`\n## ${name}`);
    const got = await (await load()).run();
    for (const r of got) console.log(`  ${r.name}: ${fmt(r.value)} ${r.unit}${r.ratio !== undefined ? `  (${fmt(r.ratio)}× ${r.ratioTo})` : ''}${r.target ? `  target ${r.target}: ${r.met ? 'met' : 'NOT met'}` : ''}${r.note ? `\n      ${r.note}` : ''}`);
    rows.push(...got);
  }
  const md = [
    '# Benchmarks',
    '',
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}. Machine: ${env}.`,
    '',
    'Each group runs parley and the raw SDK in the same process, in the same run; only the ratios carry over to other machines.',
    '',
    '| group | measurement | value | ratio | target | note |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.group} | ${r.name} | ${fmt(r.value)} ${r.unit} | ${r.ratio !== undefined ? `${fmt(r.ratio)}× ${r.ratioTo}` : ''} | ${r.target ? `${r.target} (${r.met ? 'met' : 'not met'})` : ''} | ${(r.note ?? '').replace(/\|/g, '\\|')} |`),
    '',
  ].join('\n');
  if (!wanted.length) {
    mkdirSync('docs', { recursive: true });
    writeFileSync('docs/benchmarks.md', md);
    console.log('\nwrote docs/benchmarks.md');
  }
}
await main();
