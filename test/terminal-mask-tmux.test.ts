// The terminal presenter in a real pseudo-terminal (tmux): the person types "!mask" into a text field
// parley did not flag, the field is asked again with hidden input, and the answer lists it in `masked`:
// the server gets the value, the store file (its bytes) never holds it, and it is not prefilled next time.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { cliProject, type CliProject } from './fixtures/cli/setup.js';
import { isolatedEnv, CLI } from './helpers/cli.js';
import { screen, tmux, waitFor } from './helpers/tmux.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const T = 240_000;
let p: CliProject;
before(() => {
  p = cliProject();
});
after(() => p.cleanup());

/** `parley call everything trigger-elicitation-request` in a fresh 120x40 tmux session. */
function start(): string {
  const s = `parley-test-${randomUUID().slice(0, 8)}`;
  const main = CLI.map((a) => JSON.stringify(a)).join(' ');
  const cmd = `${JSON.stringify(process.execPath)} ${main} call ${p.flags.map((f) => JSON.stringify(f)).join(' ')} everything trigger-elicitation-request; echo "EXIT=$?"; sleep 60`;
  const env = Object.entries(isolatedEnv(p.dir)).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  tmux('new-session', '-d', '-s', s, '-x', '120', '-y', '40', '-c', p.dir, '-e', 'NO_COLOR=1', ...env, cmd);
  return s;
}

const SECRET = 'Zq7maskedByThePerson';

describe('terminal: the person masks a field', { skip: hasTmux ? false : 'tmux not installed' }, () => {
  it('"!mask" hides the field; remembered "always", its value is nowhere in the store and not prefilled', { timeout: T }, async () => {
    const s = start();
    try {
      await waitFor(s, /\(name\) \* .*type !mask to hide it as a secret/);
      tmux('send-keys', '-t', s, '!mask', 'Enter');
      await waitFor(s, /\(name\) \*.*\(hidden\)/);
      tmux('send-keys', '-t', s, '-l', SECRET);
      tmux('send-keys', '-t', s, 'Enter');
      await waitFor(s, /\(check\)/);
      assert.doesNotMatch(screen(s), new RegExp(SECRET), 'typed hidden');
      tmux('send-keys', '-t', s, 'Right', 'Enter');
      await waitFor(s, /\(firstLine\)/);
      tmux('send-keys', '-t', s, 'Enter');
      await waitFor(s, /\(email\)/);
      tmux('send-keys', '-t', s, 'ada@example.com', 'Enter');
      await waitFor(s, /\(homepage\)/);
      for (const field of [
        'birthdate',
        'integer',
        'number',
        'untitledSingleSelectEnum',
        'untitledMultipleSelectEnum',
        'titledSingleSelectEnum',
        'titledMultipleSelectEnum',
        'legacyTitledEnum',
      ]) {
        tmux('send-keys', '-t', s, 'Enter');
        await waitFor(s, new RegExp(`\\(${field}\\)`));
      }
      tmux('send-keys', '-t', s, 'Enter');
      await waitFor(s, /Send these answers to everything\?/);
      tmux('send-keys', '-t', s, 'Enter');
      await waitFor(s, /Remember these answers\?/);
      tmux('send-keys', '-t', s, 'Down', 'Down', 'Enter'); // Always: prefill only
      const out = await waitFor(s, /EXIT=\d/);
      assert.match(out, new RegExp(`- Name: ${SECRET}`), 'the server gets the masked value');
      assert.match(out, /EXIT=0/);
    } finally {
      spawnSync('tmux', ['kill-session', '-t', s], { timeout: 5_000 });
    }
    const files = ['', '-wal', '-shm', '-journal'].map((x) => p.db + x).filter((f) => existsSync(f));
    const bytes = files.map((f) => readFileSync(f));
    assert.ok(
      bytes.some((b) => b.indexOf('ada@example.com') >= 0),
      'the other answers were remembered (real bytes read)',
    );
    for (const b of bytes) assert.equal(b.indexOf(SECRET), -1, 'the masked value is nowhere in the store files');

    const again = start();
    try {
      const shown = await waitFor(again, /\(name\) \*/);
      assert.doesNotMatch(shown, new RegExp(SECRET), 'not prefilled');
      assert.match(shown, /prefilled from remembered: .*email/);
      tmux('send-keys', '-t', again, 'Escape');
      await waitFor(again, /EXIT=\d/);
    } finally {
      spawnSync('tmux', ['kill-session', '-t', again], { timeout: 5_000 });
    }
  });
});
