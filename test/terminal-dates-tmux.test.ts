// Issue 15 item 3 at the terminal, in a real pseudo-terminal (tmux) with `parley call`: date fields say
// and accept one format (the label names it, a wrong value gets a message naming it), and a crash of
// the asking server says so once.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO } from './fixtures/cli/setup.js';
import { isolatedEnv, CLI } from './helpers/cli.js';
import { tmux, waitFor } from './helpers/tmux.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const T = 240_000;
const ASKER = join(REPO, 'test/fixtures/console/crash-asker.mjs');
let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'parley-tmux-dates-'));
  writeFileSync(
    join(dir, 'parley.json'),
    JSON.stringify({
      mcpServers: { asker: { command: process.execPath, args: [ASKER], env: { ASKER_PID_FILE: join(dir, 'asker.pid') } } },
    }),
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** `parley call asker ask` in a fresh 160x50 tmux session. */
function start(): string {
  const s = `parley-test-${randomUUID().slice(0, 8)}`;
  const main = CLI.map((a) => JSON.stringify(a)).join(' ');
  const flags = ['--config', join(dir, 'parley.json'), '--db', join(dir, 'parley.db')].map((f) => JSON.stringify(f)).join(' ');
  const cmd = `${JSON.stringify(process.execPath)} ${main} call ${flags} asker ask; echo "EXIT=$?"; sleep 60`;
  const env = Object.entries(isolatedEnv(dir)).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  tmux('new-session', '-d', '-s', s, '-x', '160', '-y', '50', '-c', dir, '-e', 'NO_COLOR=1', ...env, cmd);
  return s;
}

const erase = (n: number) => Array.from({ length: n }, () => 'BSpace');

describe('terminal: date formats and a crashed server', { skip: hasTmux ? false : 'tmux not installed' }, () => {
  it('a date and a date-time field name their format, refuse other spellings with it, and take the named form', {
    timeout: T,
  }, async () => {
    const s = start();
    try {
      await waitFor(s, /asker is asking[\s\S]*Day \(day\) \* \[YYYY-MM-DD \(ISO 8601\), e\.g\. 2025-01-31\]/);
      tmux('send-keys', '-t', s, '31/01/2025', 'Enter');
      await waitFor(s, /must be a real calendar date written YYYY-MM-DD \(ISO 8601\), e\.g\. 2025-01-31/);
      tmux('send-keys', '-t', s, ...erase(10), '2025-01-31', 'Enter');
      await waitFor(s, /At \(at\) \[YYYY-MM-DDTHH:MM:SSZ or with an offset such as \+08:00 \(ISO 8601\), e\.g\. 2025-01-31T09:00:00Z\]/);
      tmux('send-keys', '-t', s, '2025-01-31 09:00', 'Enter');
      await waitFor(s, /must be a date and time written YYYY-MM-DDTHH:MM:SSZ or with an offset such as \+08:00 \(ISO 8601\)/);
      tmux('send-keys', '-t', s, ...erase(16), '2025-01-31T09:00:00+08:00', 'Enter');
      await waitFor(s, /Send these answers to asker\?/);
      tmux('send-keys', '-t', s, 'Enter');
      await waitFor(s, /Remember these answers\?/);
      tmux('send-keys', '-t', s, 'Enter');
      const out = await waitFor(s, /EXIT=\d/);
      assert.match(out, /day 2025-01-31 at 2025-01-31T09:00:00\+08:00/);
      assert.match(out, /EXIT=0/);
    } finally {
      spawnSync('tmux', ['kill-session', '-t', s], { timeout: 5_000 });
    }
  });

  it('the asking server killed while its form is shown: the terminal says it stopped while asking, once', { timeout: T }, async () => {
    const s = start();
    try {
      await waitFor(s, /asker is asking[\s\S]*Day \(day\) \*/);
      process.kill(Number(readFileSync(join(dir, 'asker.pid'), 'utf8')), 'SIGKILL');
      const out = await waitFor(s, /EXIT=\d/);
      const said = out.match(/asker stopped while asking: "Which day\?" \(closed unanswered; the tool call that asked failed\)/g) ?? [];
      assert.equal(said.length, 1, out);
      assert.doesNotMatch(out, /withdrew its request/);
      assert.match(out, /EXIT=1/);
    } finally {
      spawnSync('tmux', ['kill-session', '-t', s], { timeout: 5_000 });
    }
  });
});
