// A command that has done its work exits at once, whatever launches the servers: with server-everything
// started through a launcher that does not pass signals on (as npx does), `parley tools` exited about a
// minute after printing, because the orphaned server held the stdio pipes open.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { isolatedEnv, alive } from './helpers/cli.js';
import { EVERYTHING } from './helpers/peers.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-exit-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const LAUNCHER = new URL('./fixtures/launcher/launch.mjs', import.meta.url).pathname;

/** `parley tools [...names]` (from dist) on a config whose server-everything runs behind the launcher, which writes the server's pid to `<tag>.pid`. */
function toolsBehindLauncher(tag: string, names: string[]) {
  const pidFile = join(dir, `${tag}.pid`);
  const config = join(dir, `${tag}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        everything: { command: process.execPath, args: [LAUNCHER, process.execPath, EVERYTHING], env: { LAUNCHED_PID_FILE: pidFile } },
      },
    }),
  );
  const child = spawn(
    process.execPath,
    [new URL('../dist/src/cli/main.js', import.meta.url).pathname, 'tools', ...names, '--config', config, '--db', join(dir, `${tag}.db`)],
    { cwd: dir, env: { ...process.env, ...isolatedEnv(dir) }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  /** Resolves with the exit code (the child is killed after 90 s) and what it wrote to stderr. */
  const exited = new Promise<{ code: number | null; err: string }>((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('exit', (c) => {
      clearTimeout(kill);
      resolve({ code: c, err });
    });
  });
  return { child, exited, serverPid: () => Number(readFileSync(pidFile, 'utf8')) };
}

/** Whether `pid` is gone within 3 s (SIGTERM was sent before parley exited; the server gets a moment to act on it). */
async function goneSoon(pid: number): Promise<boolean> {
  const until = performance.now() + 3_000;
  while (alive(pid) && performance.now() < until) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

it('parley tools exits within 3 s of printing when the server runs behind a launcher, and leaves no process', {
  timeout: 120_000,
}, async () => {
  const { child, exited, serverPid } = toolsBehindLauncher('server', ['everything']);
  let out = '';
  let printedAt = 0;
  child.stdout.on('data', (d) => {
    out += d;
    if (!printedAt && out.includes('trigger-elicitation-request')) printedAt = performance.now();
  });
  const { code, err } = await exited;
  const exitedAfterMs = performance.now() - printedAt;
  assert.equal(code, 0, err);
  assert.ok(printedAt > 0, `the tools were printed:\n${out}\n${err}`);
  assert.ok(exitedAfterMs < 3_000, `exited ${Math.round(exitedAfterMs)} ms after printing`);
  const pid = serverPid();
  assert.ok(pid > 0);
  assert.equal(await goneSoon(pid), true, `the launched server ${pid} is gone`);
});

it('parley tools whose reader went away (| head -1, | true) finishes quietly: exit 0, no stack trace, no process left', {
  timeout: 120_000,
}, async () => {
  const { child, exited, serverPid } = toolsBehindLauncher('server-epipe', []);
  // The reader closes before parley writes a line: every write to stdout is EPIPE.
  child.stdout.destroy();
  const { code, err } = await exited;
  assert.equal(code, 0, err);
  assert.doesNotMatch(err, /EPIPE|Unhandled|\n\s+at /);
  const pid = serverPid();
  assert.equal(await goneSoon(pid), true, `the launched server ${pid} is gone`);
});
