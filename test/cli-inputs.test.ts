// `${input:…}` values of the configuration at the terminal without a person: each input is its own field,
// named with its id, so an answers file says which input it answers and a headless run names the input.
// Real `parley call` (from source) and a real stdio server that checks the value it was started with.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { INPUT_KEY, writeInputsProject } from './fixtures/config/inputs-env.js';
import { runParley } from './helpers/cli.js';

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
    assert.match(r.stderr, /greeting/);
    assert.match(r.stderr, /input "greeting"/);
  });
});
