// Roots before the first call (issue 16 item 6): server-filesystem asks roots/list from its
// oninitialized hook; parley must answer it, and let the server apply it, before the first tool call.
// Real peer: @modelcontextprotocol/server-filesystem with NO directory arguments, driven by the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runParley } from './helpers/cli.js';
import { createHost, HeadlessPresenter, loadHostConfig } from '../src/host/index.js';
import { hostInternals } from '../src/host/internals.js';

const FS = resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

function project() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'parley-startup-roots-')));
  const dir = join(base, 'work folder');
  mkdirSync(dir);
  const config = join(base, 'parley.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [FS] } }, roots: [dir] }));
  return { base, dir, config, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

test('a one-shot `parley call fs list_allowed_directories` shows the configured root, every time', { timeout: 240_000 }, async () => {
  const p = project();
  try {
    for (let i = 0; i < 2; i++) {
      const r = await runParley(['call', 'fs', 'list_allowed_directories', '--config', p.config, '--db', join(p.base, 'parley.db')], {
        timeoutMs: 120_000,
      });
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stdout,
        /Allowed directories:\n.*work folder/,
        `run ${i + 1}: the start-up roots/list answer reached the server before the call\n${r.stdout}`,
      );
    }
  } finally {
    p.cleanup();
  }
});

test('the host waits for a start-up roots/list only when the server asks one', { timeout: 120_000 }, async () => {
  const p = project();
  const { config } = loadHostConfig({ cwd: p.base, home: p.base, env: process.env, flagFile: p.config });
  const host = createHost(config, { presenter: new HeadlessPresenter(true) });
  try {
    const r = await host.callTool('fs', 'list_allowed_directories');
    assert.match(JSON.stringify(r.content), /work folder/);
    const conn = await hostInternals(host).servers.ensureRunning('fs');
    assert.equal(conn.startupRoots, 'settled', 'server-filesystem asked roots/list while starting and parley waited for it');
  } finally {
    await host.close();
    p.cleanup();
  }
});
