// `${input:…}` values of the configuration at the terminal without a person: each input is its own field,
// named with its id, so an answers file says which input it answers and a headless run names the input.
// Real `parley call` (from source) and a real stdio server that checks the value it was started with.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawn } from 'node:child_process';
import { INPUT_KEY, writeInputsProject } from './fixtures/config/inputs-env.js';
import { CLI } from './helpers/cli.js';
import { isolatedEnv, runParley } from './helpers/cli.js';
import { waitUntil } from './helpers/wait.js';

let dir: string;
let config: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'parley-cli-inputs-'));
  config = writeInputsProject(dir);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const call = (...extra: string[]) =>
  runParley(['call', 'env', 'has_key', '--config', config, '--db', join(dir, 'p.db'), ...extra], { timeoutMs: 120_000 });

describe('configuration inputs without a person', () => {
  it('an answers file answers each input by its id', { timeout: 180_000 }, async () => {
    const answers = join(dir, 'answers.json');
    writeFileSync(answers, JSON.stringify({ greeting: INPUT_KEY, region: 'us' }));
    const r = await call('--answers', answers);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /key ok/);
    assert.doesNotMatch(r.stderr, /matches no field/);
  });

  it('a headless run names the input it needs', { timeout: 180_000 }, async () => {
    const r = await call('--non-interactive');
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /parley needs the configuration's input "greeting" to start env, but no person can answer here/);
  });
});

describe('configuration inputs in parley up without a console', () => {
  it('a server whose input nobody can answer fails once, naming the input, and is not restarted over and over', {
    timeout: 180_000,
  }, async () => {
    const child = spawn(process.execPath, [...CLI, 'up', '--no-console', '--config', config, '--db', join(dir, 'up.db')], {
      cwd: dir,
      env: { ...process.env, ...isolatedEnv(dir) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      assert.ok(await waitUntil(() => /server\(s\) ready/.test(out), { ms: 90_000 }), out);
      // The first restart would come after 500 ms, the next after 1000 ms: 4 s shows any of them.
      await new Promise((r) => setTimeout(r, 4_000));
      assert.match(
        out,
        /env: error could not start: parley needs the configuration's input "greeting" to start env, but no person can answer here/,
      );
      assert.doesNotMatch(out, /restarting in|attempt 2/);
    } finally {
      child.kill('SIGINT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      child.kill('SIGKILL');
    }
  });
});
