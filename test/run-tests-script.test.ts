// scripts/run-tests.mjs passes the test runner's output through, prints every failing block again at
// the end, and exits as the runner did: its code, or 128 + the signal's number when a signal ended it;
// a SIGTERM or SIGINT sent to it is passed on to the runner.
// It runs here on a scratch folder of its own (a test/ folder with tiny test files; node_modules and
// scripts/ linked from this repository), so it never starts the real suite.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitUntil } from './helpers/wait.js';
import { alive } from './helpers/cli.js';

const REPO = fileURLToPath(new URL('../', import.meta.url));

function scratch(t: { after: (fn: () => void) => void }, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-run-tests-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  symlinkSync(join(REPO, 'scripts'), join(dir, 'scripts'));
  mkdirSync(join(dir, 'test'));
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, 'test', name), body);
  return dir;
}

/** Runs run-tests.mjs in `cwd` (bounded: 60 s), with its stdout. */
function run(cwd: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'scripts/run-tests.mjs')], {
      cwd,
      // Without NODE_TEST_CONTEXT, which would make its runner report to this one instead.
      env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT')), PARLEY_TEST_CONCURRENCY: '1' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, stdout })));
  });
}

const T = { timeout: 90_000 };

test('a failing test: exit code 1, and its block printed again at the end', T, async (t) => {
  const dir = scratch(t, {
    'a.test.ts':
      "import { test } from 'node:test';\ntest('passes', () => {});\ntest('fails here', () => { throw new Error('the reason'); });\n",
  });
  const { code, stdout } = await run(dir);
  assert.equal(code, 1);
  const again = stdout.slice(stdout.indexOf('# run-tests: 1 failing test block(s), again:'));
  assert.ok(again.length < stdout.length, stdout);
  assert.match(again, /not ok 2 - fails here[\s\S]*the reason/);
  assert.doesNotMatch(again, /ok 1 - passes/);
});

test('a run whose test runner is killed by a signal exits with 128 + its number', T, async (t) => {
  // The test file runs in a process of its own, whose parent is the runner run-tests started.
  const dir = scratch(t, {
    'k.test.ts': "import { test } from 'node:test';\ntest('ends the runner', () => { process.kill(process.ppid, 'SIGKILL'); });\n",
  });
  const { code } = await run(dir);
  assert.equal(code, 137, 'SIGKILL is signal 9');
});

test('a passing run exits 0', T, async (t) => {
  const dir = scratch(t, { 'p.test.ts': "import { test } from 'node:test';\ntest('passes', () => {});\n" });
  const { code, stdout } = await run(dir);
  assert.equal(code, 0);
  assert.doesNotMatch(stdout, /run-tests: \d+ failing/);
});

test('SIGTERM to run-tests reaches the test runner: no test process is left running', T, async (t) => {
  const dir = scratch(t, {
    'h.test.ts':
      "import { test } from 'node:test';\nimport { writeFileSync } from 'node:fs';\ntest('hangs', async () => { writeFileSync('pid', String(process.pid)); await new Promise(() => setInterval(() => {}, 1000)); });\n",
  });
  const child = spawn(process.execPath, [join(REPO, 'scripts/run-tests.mjs')], {
    cwd: dir,
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT')), PARLEY_TEST_CONCURRENCY: '1' },
    stdio: 'ignore',
  });
  t.after(() => child.kill('SIGKILL'));
  const closed = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const pidFile = join(dir, 'pid');
  assert.ok(await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', { ms: 60_000 }), 'the test file started');
  const pid = Number(readFileSync(pidFile, 'utf8'));
  t.after(() => alive(pid) && process.kill(pid, 'SIGKILL'));
  child.kill('SIGTERM');
  // The runner cancels its tests, ends their processes and exits 1; this script exits as it did.
  assert.equal(await closed, 1);
  assert.ok(await waitUntil(() => !alive(pid), { ms: 10_000 }), 'the test process ended');
});
