// Live root health (issue 16 item 2, essay §5.3): roots are checked on their own, on file-system
// events (fs.watch on the root's parent, debounced) and on a schedule. A root folder deleted for real
// leaves the lists of the servers that saw it (server-filesystem through roots/list_changed on 2025;
// an SDK v2 server's next input_required round on 2026-07-28), the console API and `parley roots` show
// it as missing, and it comes back when the folder is made again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createHost, HeadlessPresenter } from '../src/host/index.js';
import type { Host, HostConfig, RootsChange, ServerDef } from '../src/host/index.js';
import { hostApiFor } from '../src/ui/web/index.js';
import { pathToFileUri } from '../src/schema/uri.js';
import { runParley } from './helpers/cli.js';
import { pollUntil } from './helpers/wait.js';
import { hostInternals } from '../src/host/internals.js';

const FS = resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const FIXTURE = new URL('./fixtures/layers/route-server.mjs', import.meta.url).pathname;
const uri = (p: string) => pathToFileUri(p, { platform: 'posix' });
const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>) ?? []).map((c) => c.text ?? '').join('');
const BOUND = 20_000; // a debounced fs event, a check, a list_changed and a roots/list round trip, on a loaded machine

function stdio(name: string, args: string[]): ServerDef {
  return {
    name,
    type: 'stdio',
    command: process.execPath,
    args,
    env: {},
    origin: { file: '<test>', pointer: `/mcpServers/${name}` },
  } as ServerDef;
}

function setup() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'parley-roots-live-')));
  const keep = join(base, 'keep');
  const gone = join(base, 'projects', 'gone');
  mkdirSync(keep);
  mkdirSync(gone, { recursive: true });
  writeFileSync(join(gone, 'a.txt'), 'a');
  const config: HostConfig = {
    servers: { fs: stdio('fs', [FS]), modern: stdio('modern', [FIXTURE, '--sdk', 'v2']) },
    routes: [],
    presets: {},
    profile: {},
    inputs: {},
    sources: [],
    roots: [
      { uri: uri(keep), name: 'keep' },
      { uri: uri(gone), name: 'gone' },
    ],
    policy: { sensitiveFields: 'decline', ratePerMinute: 600, burst: 100, maxPendingPerServer: 5, urlSchemes: ['https'], sampling: 'ask' },
  };
  return { base, keep, gone, config, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

const allowed = async (host: Host) => text(await host.callTool('fs', 'list_allowed_directories'));
const modernRoots = async (host: Host) => JSON.parse(text(await host.callTool('modern', 'roots'))) as Array<{ uri: string }>;

for (const how of ['fs.watch events', 'the schedule'] as const) {
  test(`a root folder deleted and made again leaves and rejoins every server's roots (found by ${how})`, { timeout: 180_000 }, async () => {
    const s = setup();
    // With events: a schedule too long to matter. With the schedule: no watcher at all.
    const rootPolicy = how === 'fs.watch events' ? { healthIntervalMs: 600_000, watch: true } : { healthIntervalMs: 300, watch: false };
    const host = createHost(s.config, { presenter: new HeadlessPresenter(true), rootPolicy });
    const changes: RootsChange[] = [];
    host.on((e) => e.type === 'roots' && changes.push(e.change));
    const api = hostApiFor(host);
    try {
      await host.start();
      assert.equal(hostInternals(host).servers.info('fs')?.era, 'legacy');
      assert.equal(hostInternals(host).servers.info('modern')?.era, 'modern');
      // Polled: the host's start-up wait for the server to apply its first roots/list answer is a bound
      // (100 ms of quiet, 1 s in all: src/host/servers/startup-roots.ts), which a loaded machine can
      // outlast; servers-startup-roots.test.ts checks that wait itself.
      const both = new RegExp(`${s.keep}\n${s.gone}|${s.gone}\n${s.keep}`);
      assert.match(
        await pollUntil(
          () => allowed(host),
          (t) => both.test(t),
          { ms: BOUND },
        ),
        both,
        'both roots reach server-filesystem at start',
      );
      assert.deepEqual((await modernRoots(host)).map((r) => r.uri).sort(), [uri(s.gone), uri(s.keep)].sort());
      if (how === 'fs.watch events') assert.ok(hostInternals(host).roots.watchedFolders >= 2, 'the parents of both roots are watched');

      rmSync(s.gone, { recursive: true, force: true });
      const missing = await pollUntil(
        () => host.getRoot(uri(s.gone))?.health?.status,
        (st) => st === 'missing',
        { ms: BOUND },
      );
      assert.equal(missing, 'missing', 'the deleted root is found missing without anyone calling check()');
      assert.ok(
        changes.some((c) => c.reason === 'health' && c.uris.includes(uri(s.gone)) && c.servers.includes('fs')),
        'the change names fs, which had received the root',
      );
      const after = await pollUntil(
        () => allowed(host),
        (t) => !t.includes(s.gone),
        { ms: BOUND },
      );
      assert.equal(after.trim(), `Allowed directories:\n${s.keep}`, 'server-filesystem re-listed its roots after roots/list_changed');
      assert.deepEqual(
        (await modernRoots(host)).map((r) => r.uri),
        [uri(s.keep)],
        "the 2026 server's next input_required round has no missing root",
      );
      const shown = (await api.listRoots()).find((r) => r.uri === uri(s.gone));
      assert.equal(shown?.health?.status, 'missing', 'the console API shows it');

      mkdirSync(s.gone, { recursive: true });
      const back = await pollUntil(
        () => host.getRoot(uri(s.gone))?.health?.status,
        (st) => st === 'ok',
        { ms: BOUND },
      );
      assert.equal(back, 'ok', 'the folder made again is healthy again');
      const again = await pollUntil(
        () => allowed(host),
        (t) => t.includes(s.gone),
        { ms: BOUND },
      );
      assert.match(again, new RegExp(s.gone), 'and server-filesystem has it again');
      assert.deepEqual((await modernRoots(host)).map((r) => r.uri).sort(), [uri(s.gone), uri(s.keep)].sort());
    } finally {
      await host.close();
      s.cleanup();
    }
  });
}

test('a whole parent folder removed and made again: the root comes back (the watcher re-arms on the new folder)', {
  timeout: 120_000,
}, async () => {
  const s = setup();
  const host = createHost(
    { ...s.config, servers: {} },
    { presenter: new HeadlessPresenter(true), rootPolicy: { healthIntervalMs: 1_000, watch: true } },
  );
  try {
    await pollUntil(
      () => host.getRoot(uri(s.gone))?.health?.status,
      (st) => st === 'ok',
      { ms: BOUND },
    );
    const watched = hostInternals(host).roots.watchedFolders; // the parents and the folders above them
    rmSync(join(s.base, 'projects'), { recursive: true, force: true });
    assert.equal(
      await pollUntil(
        () => host.getRoot(uri(s.gone))?.health?.status,
        (st) => st === 'missing',
        { ms: BOUND },
      ),
      'missing',
    );
    mkdirSync(s.gone, { recursive: true });
    assert.equal(
      await pollUntil(
        () => host.getRoot(uri(s.gone))?.health?.status,
        (st) => st === 'ok',
        { ms: BOUND },
      ),
      'ok',
    );
    // Once a check has seen the new parent, its events are watched again.
    await pollUntil(
      () => hostInternals(host).roots.watchedFolders,
      (n) => n === watched,
      { ms: BOUND },
    );
    rmSync(s.gone, { recursive: true });
    assert.equal(
      await pollUntil(
        () => host.getRoot(uri(s.gone))?.health?.status,
        (st) => st === 'missing',
        { ms: BOUND },
      ),
      'missing',
    );
  } finally {
    await host.close();
    s.cleanup();
  }
});

test('a folder above a root renamed, or removed and made again, is noticed by events (no periodic check runs)', {
  timeout: 120_000,
}, async () => {
  const s = setup();
  // A schedule too long to matter: only file-system events can find these changes in time.
  const host = createHost(
    { ...s.config, servers: {} },
    { presenter: new HeadlessPresenter(true), rootPolicy: { healthIntervalMs: 600_000, watch: true } },
  );
  const status = (want: string) =>
    pollUntil(
      () => host.getRoot(uri(s.gone))?.health?.status,
      (st) => st === want,
      { ms: BOUND },
    );
  try {
    assert.equal(await status('ok'), 'ok');
    // `mv projects projects-old`: the root's parent moves away with the root inside it.
    renameSync(join(s.base, 'projects'), join(s.base, 'projects-old'));
    assert.equal(await status('missing'), 'missing', 'renaming the folder above the root is noticed');
    renameSync(join(s.base, 'projects-old'), join(s.base, 'projects'));
    assert.equal(await status('ok'), 'ok', 'and renaming it back');
    // `rm -rf projects; mkdir -p projects/gone` (a clone made again): the parent is new.
    rmSync(join(s.base, 'projects'), { recursive: true, force: true });
    assert.equal(await status('missing'), 'missing');
    mkdirSync(s.gone, { recursive: true });
    assert.equal(await status('ok'), 'ok', 'a parent made again is noticed without the schedule');
  } finally {
    await host.close();
    s.cleanup();
  }
});

test('`parley roots` checks health and shows a missing root as invalid', { timeout: 120_000 }, async () => {
  const s = setup();
  try {
    rmSync(s.gone, { recursive: true });
    writeFileSync(join(s.base, 'parley.json'), JSON.stringify({ roots: [s.keep, s.gone, 'postgres://sales-db'] }));
    const r = await runParley(['roots', '--config', join(s.base, 'parley.json'), '--db', join(s.base, 'p.db')], { timeoutMs: 90_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^${uri(s.keep)}\\tapp\\tconfig\\tok$`, 'm'));
    assert.match(r.stdout, new RegExp(`^${uri(s.gone)}\\tapp\\tconfig\\tmissing \\(invalid: not sent to servers; ENOENT\\)$`, 'm'));
    assert.match(r.stdout, /^postgres:\/\/sales-db\tapp\tconfig\tvirtual$/m);
    const json = JSON.parse(
      (await runParley(['roots', '--json', '--config', join(s.base, 'parley.json'), '--db', join(s.base, 'p.db')], { timeoutMs: 90_000 }))
        .stdout,
    );
    assert.equal(json.find((x: { uri: string }) => x.uri === uri(s.gone)).health.status, 'missing');
  } finally {
    s.cleanup();
  }
});
