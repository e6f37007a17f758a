// `parley call` prints a tool's text: on a terminal its escape sequences are shown, never obeyed (a
// server cannot clear the screen, set the window title or reorder the text the person reads); piped,
// the text is written byte for byte (a script gets what the server sent).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { cliProject, type CliProject } from './fixtures/cli/setup.js';
import { isolatedEnv, runParley, CLI } from './helpers/cli.js';
import { screen, tmux, waitFor } from './helpers/tmux.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
let p: CliProject;
before(() => {
  p = cliProject();
});
after(() => p.cleanup());

// Clear the screen and home the cursor, set the window title, then a right-to-left override.
const HOSTILE = 'before\u001b[2J\u001b[H\u001b]0;pwned\u0007 gnp\u202e.exe';
const ARGS = JSON.stringify({ message: HOSTILE });

describe('parley call: a tool result on the terminal', { skip: hasTmux ? false : 'tmux not installed' }, () => {
  it('shows the control characters of a tool result instead of obeying them', { timeout: 120_000 }, async () => {
    const s = `parley-test-${randomUUID().slice(0, 8)}`;
    const main = CLI.map((a) => JSON.stringify(a)).join(' ');
    const cmd = `echo MARKER-BEFORE-CALL; ${JSON.stringify(process.execPath)} ${main} call ${p.flags.map((f) => JSON.stringify(f)).join(' ')} everything echo '${ARGS}'; echo "EXIT=$?"; sleep 60`;
    const env = Object.entries(isolatedEnv(p.dir)).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    tmux('new-session', '-d', '-s', s, '-x', '120', '-y', '40', '-c', p.dir, '-e', 'NO_COLOR=1', ...env, cmd);
    try {
      const shown = await waitFor(s, /EXIT=\d/);
      assert.match(shown, /EXIT=0/);
      assert.match(shown, /MARKER-BEFORE-CALL/, 'the screen was not cleared');
      assert.match(shown, /before␛\[2J␛\[H␛\]0;pwned␇ gnp\\u\{202e\}\.exe/);
      assert.doesNotMatch(tmux('display-message', '-p', '-t', s, '#{pane_title}'), /pwned/, 'the title was not set');
      assert.doesNotMatch(screen(s), /\u202e/);
    } finally {
      tmux('kill-session', '-t', s);
    }
  });

  it('writes the text as it is when stdout is not a terminal', { timeout: 120_000 }, async () => {
    const r = await runParley(['call', ...p.flags, 'everything', 'echo', ARGS], { cwd: p.dir });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes(HOSTILE), JSON.stringify(r.stdout));
  });
});
