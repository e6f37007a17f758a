#!/usr/bin/env node
// Runs every test file under test/ with Node's built-in runner and the tsx loader.
// Usage: node scripts/run-tests.mjs [filter-substring ...]
// Node 20's --test does not expand globs, so the file list is built here.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { constants } from 'node:os';

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (/\.test\.ts$/.test(name)) out.push(p);
  }
  return out;
}
const filters = process.argv.slice(2);
const files = walk('test')
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('run-tests: no test files matched');
  process.exit(1);
}
const concurrency = process.env.PARLEY_TEST_CONCURRENCY ?? '2';
// The TAP stream is passed through as it comes, and every failure's block is kept so that it can be
// printed again at the end: a CI log that keeps only its tail still names what failed and why.
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/test-times.mjs',
    '--test-reporter-destination=stdout',
    ...files,
  ],
  {
    stdio: ['inherit', 'pipe', 'inherit'],
  },
);
// A SIGTERM or SIGINT sent to this process alone (a CI job's timeout) reaches the test runner too, so
// that no test child is left running; this process exits when the runner has.
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => child.kill(sig));
const failures = [];
let open = null; // { indent, lines } while inside a failure's YAML block
const MAX_BLOCK_LINES = 30;
createInterface({ input: child.stdout }).on('line', (line) => {
  process.stdout.write(`${line}\n`);
  const notOk = /^(\s*)not ok \d+ - /.exec(line);
  if (notOk) {
    open = { indent: notOk[1], lines: [line] };
    failures.push(open.lines);
    return;
  }
  if (!open) return;
  if (open.lines.length < MAX_BLOCK_LINES) open.lines.push(line);
  if (line === `${open.indent}  ...`) open = null;
});
child.on('close', (code, signal) => {
  if (failures.length > 0) {
    process.stdout.write(`\n# run-tests: ${failures.length} failing test block(s), again:\n`);
    for (const lines of failures) process.stdout.write(`${lines.join('\n')}\n`);
  }
  // The child's code; killed by a signal, 128 + its number as a shell reports it (SIGKILL: 137). Set as
  // exitCode rather than process.exit(): what is still buffered for a slow stdout is written first.
  process.exitCode = code ?? 128 + (constants.signals[signal] ?? 0);
});
