// `${input:…}` values of the configuration asked at the terminal, in a real pseudo-terminal (tmux) with
// `parley call`: the box says parley needs a value to start the server (it is not the server asking),
// each field is named with its input's id, and no "remember" choice is offered, because these values
// are used for this process only and never remembered (before, the choice was offered and then dropped).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { INPUT_KEY, writeInputsProject } from './fixtures/config/inputs-env.js';
import { isolatedEnv, CLI } from './helpers/cli.js';
import { screen, tmux, waitFor } from './helpers/tmux.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
let dir: string;
let config: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'parley-tmux-inputs-'));
  config = writeInputsProject(dir);
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('terminal: configuration inputs', { skip: hasTmux ? false : 'tmux not installed' }, () => {
  it('says parley needs the value, names each field with its input id, and offers no remember choice', { timeout: 240_000 }, async () => {
    const s = `parley-test-${randomUUID().slice(0, 8)}`;
    const main = CLI.map((a) => JSON.stringify(a)).join(' ');
    const flags = ['--config', config, '--db', join(dir, 'parley.db')].map((f) => JSON.stringify(f)).join(' ');
    const cmd = `${JSON.stringify(process.execPath)} ${main} call ${flags} env has_key; echo "EXIT=$?"; sleep 60`;
    const env = Object.entries(isolatedEnv(dir)).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    tmux('new-session', '-d', '-s', s, '-x', '160', '-y', '50', '-c', dir, '-e', 'NO_COLOR=1', ...env, cmd);
    try {
      await waitFor(s, /parley needs a value to start env[\s\S]*input "greeting"[\s\S]*◆ +greeting \*/);
      assert.doesNotMatch(screen(s), /env is asking/);
      tmux('send-keys', '-t', s, INPUT_KEY, 'Enter');
      await waitFor(s, /Send these answers to env\?/);
      tmux('send-keys', '-t', s, 'Enter');
      await waitFor(s, /◆ +region \*/);
      tmux('send-keys', '-t', s, 'Enter'); // eu, the default
      await waitFor(s, /Send these answers to env\?[\s\S]*Send these answers to env\?/);
      tmux('send-keys', '-t', s, 'Enter');
      const out = await waitFor(s, /EXIT=\d/);
      assert.doesNotMatch(out, /Remember these answers\?/);
      assert.match(out, /key ok/);
      assert.match(out, /EXIT=0/);
    } finally {
      spawnSync('tmux', ['kill-session', '-t', s], { timeout: 5_000 });
    }
  });
});
