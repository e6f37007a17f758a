// The official MCP conformance suite (scripts/conformance/run.mjs, docs/conformance.md) as part of
// `npm test`: both suite lines (0.1.16 and 0.2.0-alpha.12, devDependencies under the npm aliases
// conformance-0.1 / conformance-0.2) against parley's toolkit (server scenarios) and host runtime
// (client scenarios). The runner's exit code and its last line decide; a baseline entry that passes
// again fails the run (stale), so the baseline cannot silently grow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const RUNNER = fileURLToPath(new URL('../scripts/conformance/run.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/**
 * Bound for the whole run. Measured on the 2-core machine: ~90 s at load average ~5 (3 jobs), and the
 * sequential runner took 251 s with the full test suite running alongside; 7 minutes leaves room for
 * a slow CI machine while still ending a hung run.
 */
const RUN_BOUND_MS = 420_000;
/** Checks counted on 2026-11-30: 311 (309 before list changes reached 2026-07-28 listen streams). A floor well below it catches scenarios silently dropping out. */
const MIN_CHECKS = 250;

function runConformance(): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    // Own process group, so the bound can end the runner together with its suite CLIs, server and clients.
    const child = spawn(process.execPath, [RUNNER], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      stderr += `\n[conformance-suite.test: killed after ${RUN_BOUND_MS} ms]`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, RUN_BOUND_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

test('the Node 20 fs hook recognises the conformance package under both install layouts', async () => {
  // @ts-expect-error plain .mjs without types
  const { CONFORMANCE_PARENT } = (await import('../scripts/conformance/node20-preload.mjs')) as { CONFORMANCE_PARENT: RegExp };
  assert.ok(CONFORMANCE_PARENT.test('file:///repo/node_modules/conformance-0.1/dist/index.js'), 'npm alias (devDependency)');
  assert.ok(CONFORMANCE_PARENT.test('file:///repo/node_modules/conformance-0.2/dist/index.js'), 'npm alias (devDependency)');
  assert.ok(
    CONFORMANCE_PARENT.test('file:///t/conformance-0.1/node_modules/@modelcontextprotocol/conformance/dist/index.js'),
    'own install',
  );
  assert.ok(
    !CONFORMANCE_PARENT.test('file:///repo/node_modules/@modelcontextprotocol/sdk/dist/esm/index.js'),
    'other packages keep the real fs',
  );
  assert.ok(!CONFORMANCE_PARENT.test('file:///repo/scripts/conformance/run.mjs'), 'the harness itself keeps the real fs');
});

test('conformance suites 0.1.16 + 0.2.0-alpha.12: every scored check passes', { timeout: RUN_BOUND_MS + 30_000 }, async () => {
  const r = await runConformance();
  const report = `exit ${r.code} after ${Math.round(r.ms / 1000)} s\n--- stdout\n${r.stdout.slice(-6000)}\n--- stderr (tail)\n${r.stderr.slice(-3000)}`;
  const m = /^conformance: (\d+) passed, (\d+) failed$/m.exec(r.stdout);
  assert.ok(m, `no tally line in the runner output\n${report}`);
  const [passed, failed] = [Number(m[1]), Number(m[2])];
  assert.equal(failed, 0, report);
  assert.equal(r.code, 0, report);
  assert.ok(passed >= MIN_CHECKS, `only ${passed} checks passed (expected >= ${MIN_CHECKS}): did scenarios drop out?\n${report}`);
  console.log(`conformance-suite: ${passed} checks passed in ${Math.round(r.ms / 1000)} s`);
});
