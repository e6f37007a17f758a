// Drives `parley call` through server-everything's elicitation in a real pseudo-terminal (tmux):
// typing answers and accepting shows the tool's result; Esc at a prompt answers cancel.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { cliProject, type CliProject } from './fixtures/cli/setup.js';
import { isolatedEnv, CLI } from './helpers/cli.js';
import { verifies } from './helpers/verifies.js';
import { tmux, waitFor } from './helpers/tmux.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const T = 240_000;
let p: CliProject;
before(() => {
  p = cliProject();
});
after(() => p.cleanup());

/** Starts `parley call everything trigger-elicitation-request` in a fresh 120x40 tmux session. */
function start(tool = 'trigger-elicitation-request', ...args: string[]): string {
  const s = `parley-test-${randomUUID().slice(0, 8)}`;
  const main = CLI.map((a) => JSON.stringify(a)).join(' ');
  const cmd = `${JSON.stringify(process.execPath)} ${main} call ${p.flags.map((f) => JSON.stringify(f)).join(' ')} everything ${tool} ${args.map((a) => `'${a}'`).join(' ')}; echo "EXIT=$?"; sleep 60`;
  // In the project folder, with it as HOME: no configuration file of this machine joins --config.
  const env = Object.entries(isolatedEnv(p.dir)).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  tmux('new-session', '-d', '-s', s, '-x', '120', '-y', '40', '-c', p.dir, '-e', 'NO_COLOR=1', ...env, cmd);
  return s;
}

describe('terminal presenter in a pseudo-terminal', { skip: hasTmux ? false : 'tmux not installed' }, () => {
  it('types a few fields, accepts, and prints the tool result', { timeout: T }, async () => {
    const s = start();
    try {
      verifies('ELIC-1125-CLIENT-SHOW-SERVER');
      await waitFor(s, /everything is asking[\s\S]*\(name\) \*/);
      tmux('send-keys', '-t', s, 'Ada Lovelace', 'Enter');
      await waitFor(s, /\(check\)/);
      tmux('send-keys', '-t', s, 'Right', 'Enter'); // Yes
      await waitFor(s, /\(firstLine\)/);
      tmux('send-keys', '-t', s, 'Enter'); // keep the default
      await waitFor(s, /\(email\)/);
      tmux('send-keys', '-t', s, 'nope', 'Enter');
      await waitFor(s, /must be a valid email/); // checked as typed, before moving on
      tmux('send-keys', '-t', s, 'BSpace', 'BSpace', 'BSpace', 'BSpace', 'ada@example.com', 'Enter');
      await waitFor(s, /\(homepage\)/);
      // Keep every other default, field by field, until the final choice.
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
      // proposed requirement ELIC-1125-REVIEW-BEFORE-SEND (§User Interaction Model: review before sending; decline and cancel always possible)
      await waitFor(s, /Send these answers to everything\?[\s\S]*Accept[\s\S]*Decline[\s\S]*Cancel/);
      tmux('send-keys', '-t', s, 'Enter');
      await waitFor(s, /Remember these answers\?/);
      tmux('send-keys', '-t', s, 'Enter');
      const out = await waitFor(s, /EXIT=\d/);
      assert.match(out, /User provided the requested information/);
      assert.match(out, /- Name: Ada Lovelace/);
      assert.match(out, /- Agreed to terms: true/);
      assert.match(out, /- Email: ada@example\.com/);
      // A 13-field form asked field by field leaves no listener behind (issue 15 item 8).
      assert.doesNotMatch(out, /MaxListenersExceededWarning/);
      assert.match(out, /EXIT=0/);
    } finally {
      spawnSync('tmux', ['kill-session', '-t', s], { timeout: 5_000 });
    }
  });

  it('Esc at a prompt answers cancel', { timeout: T }, async () => {
    const s = start();
    try {
      await waitFor(s, /\(name\) \*/);
      tmux('send-keys', '-t', s, 'Escape');
      verifies('ELIC-RESULT-ACTIONS');
      const out = await waitFor(s, /EXIT=\d/);
      assert.match(out, /User cancelled the elicitation dialog/);
      assert.match(out, /EXIT=0/);
    } finally {
      spawnSync('tmux', ['kill-session', '-t', s], { timeout: 5_000 });
    }
  });

  it('URL mode: shows the full URL with its host marked, opens nothing, and accepts only on explicit consent', { timeout: T }, async () => {
    const s = start('trigger-url-elicitation', 'url=https://example.com/oauth?state=abc');
    try {
      verifies(['ELIC-1125-URL-CONSENT', 'ELIC-1125-URL-SHOW-FULL', 'ELIC-1125-URL-NO-PREFETCH']);
      const shown = await waitFor(s, /Open this link for everything\?[\s\S]*Decline[\s\S]*Cancel/);
      assert.match(shown, /URL:\s+https:\/\/\[example\.com\]\/oauth\?state=abc/);
      assert.match(shown, /did not open or fetch it/);
      assert.doesNotMatch(shown, /EXIT=/, 'nothing is answered before the person chooses');
      tmux('send-keys', '-t', s, 'Enter'); // "I will open it myself"
      const out = await waitFor(s, /EXIT=\d/);
      assert.match(out, /User completed the URL elicitation flow/);
      assert.match(out, /EXIT=0/);
    } finally {
      spawnSync('tmux', ['kill-session', '-t', s], { timeout: 5_000 });
    }
  });

  it('-32042: after consent the person chooses Retry or Cancel; Cancel ends the call with a sentence, not a bare error', {
    timeout: T,
  }, async () => {
    for (const pick of ['retry', 'cancel'] as const) {
      const s = start('trigger-url-elicitation', 'url=https://example.com/pay', 'errorPath=true');
      try {
        await waitFor(s, /modelcontextprotocol\.io[\s\S]*Open this link for everything\?/);
        tmux('send-keys', '-t', s, 'Enter'); // "I will open it myself"
        const asked = await waitFor(s, /Retry trigger-url-elicitation now\?[\s\S]*Cancel/, 30_000);
        assert.match(asked, /needs a browser step before trigger-url-elicitation can run/);
        assert.doesNotMatch(asked, /EXIT=/, 'no fixed-delay retry behind the person');
        if (pick === 'retry') {
          tmux('send-keys', '-t', s, 'Enter'); // Retry
          await waitFor(s, /example\.com\]?\/pay[\s\S]*Open this link for everything\?/); // the retried call's own URL
          tmux('send-keys', '-t', s, 'Enter');
          const out = await waitFor(s, /EXIT=\d/);
          assert.match(out, /EXIT=0/);
        } else {
          tmux('send-keys', '-t', s, 'Down', 'Enter'); // Cancel
          const out = await waitFor(s, /EXIT=\d/);
          assert.match(out, /You cancelled trigger-url-elicitation/);
          assert.doesNotMatch(out, /^MCP error -32042/m);
        }
      } finally {
        spawnSync('tmux', ['kill-session', '-t', s], { timeout: 5_000 });
      }
    }
  });
});
