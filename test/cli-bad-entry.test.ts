// One bad server entry does not stop the others (issue 15 item 9): parley call/tools/servers run with the
// valid servers and name the bad one with its reason; parley serve says why a server's tools are missing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { exitOf, isolatedEnv, runParley, CLI } from './helpers/cli.js';
import { EVERYTHING } from './fixtures/cli/setup.js';

const T = 180_000;
let dir: string;
let flags: string[];
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'parley-bad-entry-'));
  const config = join(dir, 'parley.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { PORT: 3001 } },
        broken: { command: 'node', url: 'http://127.0.0.1:1/mcp' },
      },
    }),
  );
  flags = ['--config', config, '--db', join(dir, 'p.db')];
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('one bad server entry', () => {
  it('tools lists the valid server, names the bad one with its reason, exits 1', { timeout: T }, async () => {
    const r = await runParley(['tools', ...flags], { timeoutMs: 120_000 });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^everything\n {2}echo/m);
    assert.match(r.stdout, /^broken: error: invalid configuration: \/mcpServers\/broken: both "command" and "url" are set/m);
    assert.match(r.stderr, /running without 1 invalid server\(s\): broken/);
    assert.match(r.stderr, /\/mcpServers\/everything\/env\/PORT: warning: number value is used as a string/);
  });
  it('call on the valid server works (exit 0); call on the bad one says why (exit 1)', { timeout: T }, async () => {
    const [ok, bad] = await Promise.all([
      runParley(['call', 'everything', 'echo', 'message=hi', ...flags], { timeoutMs: 120_000 }),
      runParley(['call', 'broken', 'x', ...flags], { timeoutMs: 120_000 }),
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /hi/);
    assert.equal(bad.code, 1);
    assert.match(
      bad.stderr,
      /call: server "broken" is not started: its configuration has errors \(\/mcpServers\/broken: both "command" and "url" are set/,
    );
  });
  it('servers --json lists the bad one as invalid with the reason', { timeout: T }, async () => {
    const r = await runParley(['servers', '--json', ...flags], { timeoutMs: 120_000 });
    assert.equal(r.code, 1, r.stderr);
    const list = JSON.parse(r.stdout) as Array<{ name: string; state: { status: string; message?: string } }>;
    assert.deepEqual(
      list.map((s) => [s.name, s.state.status]),
      [
        ['everything', 'stopped'],
        ['broken', 'invalid'],
      ],
    );
    assert.match(list[1].state.message ?? '', /both "command" and "url"/);
  });
  it('serve --stdio names the server whose tools are missing and why', { timeout: T }, async () => {
    const child = spawn(process.execPath, [...CLI, 'serve', '--stdio', '--headless', ...flags], {
      cwd: dir,
      env: { ...process.env, ...isolatedEnv(dir) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const until = Date.now() + 60_000;
    while (!/not served/.test(err) && Date.now() < until && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
    child.stdin.end();
    await exitOf(child);
    assert.match(err, /broken: not served, its tools are missing: \/mcpServers\/broken: both "command" and "url" are set/);
  });
});
