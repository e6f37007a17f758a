// Virtual roots in configuration (issue 16 item 7): `postgres://sales-db` and `chart://…` roots can be
// written in parley.json `roots` and in presets, survive a preset save and load (another host on the
// same store, and the CLI's export file), and stay host-side: only file:// roots go on the wire.
// Real peers: server-filesystem (2025) and an SDK v2 server (2026-07-28).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createHost, HeadlessPresenter, loadHostConfig } from '../src/host/index.js';
import { openSqliteStore } from '../src/host/store/index.js';
import { pathToFileUri } from '../src/schema/uri.js';
import { runParley } from './helpers/cli.js';
import { hostInternals } from '../src/host/internals.js';
import { pollUntil } from './helpers/wait.js';

const FS = resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const FIXTURE = new URL('./fixtures/layers/route-server.mjs', import.meta.url).pathname;
const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>) ?? []).map((c) => c.text ?? '').join('');

test('virtual roots from parley.json and presets stay host-side, route, and survive a preset save and load', {
  timeout: 180_000,
}, async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'parley-virtual-')));
  mkdirSync(join(dir, 'work'));
  writeFileSync(
    join(dir, 'parley.json'),
    JSON.stringify({
      mcpServers: { fs: { command: process.execPath, args: [FS] }, modern: { command: process.execPath, args: [FIXTURE, '--sdk', 'v2'] } },
      roots: ['work', 'postgres://sales-db'],
      routes: [
        { match: 'postgres://**', servers: ['fs', 'modern'] },
        { match: 'chart://**', servers: ['modern'] },
      ],
      rootPolicy: { unrouted: 'all' },
      presets: { charts: { roots: ['chart://monthly'] } },
    }),
  );
  const { config, issues } = loadHostConfig({ cwd: dir, home: dir, env: {} });
  assert.deepEqual(issues, []);
  const store = openSqliteStore(join(dir, 'parley.db'));
  const scope = { tenant: 'default', user: 'default', session: 'scene-test' };
  const one = createHost(config, { presenter: new HeadlessPresenter(true), store, scope });
  try {
    const virtual = one.listRoots({ virtual: true }).map((r) => [r.uri, r.source]);
    assert.deepEqual(virtual, [['postgres://sales-db', 'config']]);
    assert.deepEqual(hostInternals(one).roots.serversFor('postgres://sales-db'), ['fs', 'modern'], 'a virtual root routes');
    await one.presets.load('charts');
    assert.ok(one.getRoot('chart://monthly')?.virtual, "a config preset's virtual root is loaded");
    one.addRoot('postgres://reports-db', { name: 'reports' });
    await one.start();
    // Polled: server-filesystem applies roots asynchronously, and the host's start-up wait for that is a
    // bound a loaded machine can outlast (src/host/servers/startup-roots.ts).
    const onlyWork = `Allowed directories:\n${join(dir, 'work')}`;
    assert.equal(
      await pollUntil(
        async () => text(await one.callTool('fs', 'list_allowed_directories')).trim(),
        (t) => t === onlyWork,
      ),
      onlyWork,
      'the 2025 server got the file root only (a non-file root would have made it reject the list)',
    );
    const modern = JSON.parse(text(await one.callTool('modern', 'roots'))) as Array<{ uri: string }>;
    assert.deepEqual(
      modern.map((r) => r.uri),
      [pathToFileUri(join(dir, 'work'), { platform: 'posix' })],
      'the 2026 server too',
    );
    const saved = await one.presets.save('scene');
    assert.deepEqual(
      saved.roots.map((r) => r.uri).sort(),
      ['chart://monthly', 'postgres://reports-db'],
      'the preset keeps the virtual roots (config roots stay in config)',
    );
  } finally {
    await one.close();
  }
  const three = createHost({ ...config, servers: {}, presets: {} }, { presenter: new HeadlessPresenter(true), store, scope: { ...scope } });
  try {
    assert.equal(three.getRoot('postgres://reports-db'), undefined, 'a session root of the first host is not in a new host ...');
    await three.presets.load('scene');
    assert.deepEqual(
      ['chart://monthly', 'postgres://reports-db'].map((u) => three.getRoot(u)?.virtual),
      [true, true],
      '... loading the preset brings them back',
    );
  } finally {
    await three.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the CLI keeps virtual roots through `roots add`, `presets save` and `presets export`', { timeout: 180_000 }, async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'parley-virtual-cli-')));
  const flags = ['--config', join(dir, 'parley.json'), '--db', join(dir, 'p.db')];
  writeFileSync(join(dir, 'parley.json'), JSON.stringify({ roots: ['chart://monthly'] }));
  try {
    const add = await runParley(['roots', 'add', 'postgres://sales-db', '--name', 'sales', ...flags]);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /added postgres:\/\/sales-db \(virtual: routing only\)/);
    const save = await runParley(['presets', 'save', 'scene', ...flags]);
    assert.equal(save.code, 0, save.stderr);
    const out = join(dir, 'scene.json');
    const exp = await runParley(['presets', 'export', out, ...flags]);
    assert.equal(exp.code, 0, exp.stderr);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as { presets: Array<{ name: string; roots: Array<{ uri: string; name?: string }> }> };
    assert.deepEqual(doc.presets.find((p) => p.name === 'scene')?.roots, [{ uri: 'postgres://sales-db', name: 'sales' }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
