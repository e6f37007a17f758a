// Dynamic discovery (issue 16 item 3, essay §2.2): the root router is fed from the live servers on its
// own: their resource templates, their declared URI schemes (capabilities.experimental
// ['parley/uriSchemes']) and their resources/list_changed. And the setting for roots no route matches
// (parley.json rootPolicy.unrouted: "none" by default when routes exist, "all" when there are none).
// Real peers: small SDK v1 (2025) and v2 (2026-07-28) stdio servers (test/fixtures/layers/route-server.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost, HeadlessPresenter, loadHostConfig } from '../src/host/index.js';
import type { Host, HostConfig, ServerDef } from '../src/host/index.js';
import { pathToFileUri } from '../src/schema/uri.js';
import { pollUntil } from './helpers/wait.js';
import { hostInternals } from '../src/host/internals.js';

const FIXTURE = new URL('./fixtures/layers/route-server.mjs', import.meta.url).pathname;
const uri = (p: string) => pathToFileUri(p, { platform: 'posix' });
const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>) ?? []).map((c) => c.text ?? '').join('');

function stdio(name: string, args: string[]): ServerDef {
  return {
    name,
    type: 'stdio',
    command: process.execPath,
    args: [FIXTURE, ...args],
    env: {},
    origin: { file: '<test>', pointer: `/mcpServers/${name}` },
    lazy: false,
  } as ServerDef;
}

function setup(more: Partial<HostConfig> = {}) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'parley-discovery-')));
  mkdirSync(join(base, 'data'));
  mkdirSync(join(base, 'other'));
  const config: HostConfig = {
    servers: {
      sales: stdio('sales', ['--sdk', 'v1', '--template', 'sales-query://{table}{?range}']),
      charts: stdio('charts', ['--sdk', 'v2', '--scheme', 'chart', '--template', `${uri(join(base, 'data'))}{+rest}`]),
      plain: stdio('plain', ['--sdk', 'v1']),
    },
    routes: [],
    presets: {},
    profile: {},
    inputs: {},
    sources: [],
    roots: [{ uri: uri(join(base, 'data')) }, { uri: uri(join(base, 'other')) }, { uri: 'chart://monthly' }],
    policy: { sensitiveFields: 'decline', ratePerMinute: 600, burst: 100, maxPendingPerServer: 5, urlSchemes: ['https'], sampling: 'ask' },
    ...more,
  };
  return {
    base,
    data: uri(join(base, 'data')),
    other: uri(join(base, 'other')),
    config,
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

const rootsOf = async (host: Host, server: string) =>
  (JSON.parse(text(await host.callTool(server, 'roots'))) as Array<{ uri: string }>).map((r) => r.uri).sort();

test('templates, declared schemes and list changes of running servers route URIs without setDiscovery', { timeout: 180_000 }, async () => {
  const s = setup();
  const host = createHost(s.config, { presenter: new HeadlessPresenter(true) });
  try {
    assert.deepEqual(hostInternals(host).roots.serversFor('sales-query://orders'), [], 'nothing is known before the servers run');
    await host.start();
    await host.discovered();
    assert.deepEqual(
      hostInternals(host).roots.serversFor('sales-query://orders?range=last_month'),
      ['sales'],
      'a 2025 server by its template',
    );
    assert.deepEqual(hostInternals(host).roots.serversFor('chart://monthly'), ['charts'], 'a 2026 server by its declared scheme');
    assert.deepEqual(hostInternals(host).roots.serversFor(`${s.data}/2025/q1.csv`), ['charts'], 'and by its template');
    assert.deepEqual(hostInternals(host).roots.serversFor('orders://7'), []);
    assert.deepEqual(await host.serversFor('sales-query://orders'), ['sales'], 'host.serversFor (the gateway resource route) too');

    assert.equal(text(await host.callTool('sales', 'add_template', { template: 'orders://{id}' })), 'added orders://{id}');
    const routed = await pollUntil(
      async () => (await host.discovered(), hostInternals(host).roots.serversFor('orders://7')),
      (v) => v.length > 0,
    );
    assert.deepEqual(routed, ['sales'], 'a template added at run time is learnt from resources/list_changed');

    await hostInternals(host).servers.stop('charts');
    assert.deepEqual(hostInternals(host).roots.serversFor('chart://monthly'), [], 'a stopped server routes nothing');
    await hostInternals(host).servers.start('charts');
    await host.discovered();
    assert.deepEqual(hostInternals(host).roots.serversFor('chart://monthly'), ['charts'], 'and is learnt again when it runs');
  } finally {
    await host.close();
    s.cleanup();
  }
});

for (const c of [
  { name: 'routes exist, default', routes: true, unrouted: undefined, plain: [] as string[], charts: ['data'] },
  { name: 'no routes, default', routes: false, unrouted: undefined, plain: ['other'], charts: ['data', 'other'] },
  { name: 'routes exist, "unrouted": "all"', routes: true, unrouted: 'all' as const, plain: ['other'], charts: ['data', 'other'] },
  { name: 'no routes, "unrouted": "none"', routes: false, unrouted: 'none' as const, plain: [], charts: ['data'] },
]) {
  test(`a root no route matches (${c.name}) goes to ${c.plain.length ? 'every server' : 'no server'}; discovered roots go to their server`, {
    timeout: 180_000,
  }, async () => {
    const s = setup({
      routes: c.routes ? [{ match: 'file:///srv/**', servers: ['sales'] }] : [],
      ...(c.unrouted ? { rootPolicy: { unrouted: c.unrouted } } : {}),
    });
    const host = createHost(s.config, { presenter: new HeadlessPresenter(true) });
    const name = (u: string) => (u === s.data ? 'data' : u === s.other ? 'other' : u);
    try {
      await host.start();
      await host.discovered();
      assert.deepEqual((await rootsOf(host, 'plain')).map(name), c.plain, 'plain (2025, no templates)');
      assert.deepEqual((await rootsOf(host, 'charts')).map(name), c.charts, 'charts (2026, its template matches data)');
      for (const server of ['plain', 'charts', 'sales'])
        assert.ok(!(await rootsOf(host, server)).includes('chart://monthly'), 'a virtual root never reaches the wire');
    } finally {
      await host.close();
      s.cleanup();
    }
  });
}

test('parley.json: "lazy" on server entries, "rootPolicy", virtual roots; bad values are errors with pointers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-layers-config-'));
  try {
    writeFileSync(
      join(dir, 'parley.json'),
      JSON.stringify({
        mcpServers: {
          a: { command: 'a', lazy: true },
          b: { url: 'https://example.com/mcp', lazy: false },
          c: { command: 'c', lazy: 'yes' },
        },
        rootPolicy: { unrouted: 'none', healthIntervalMs: 5000, watch: false },
        roots: ['postgres://sales-db', { uri: 'chart://monthly', name: 'charts' }],
        presets: { scene: { roots: ['postgres://sales-db'] } },
      }),
    );
    const { config, issues } = loadHostConfig({ cwd: dir, home: dir, env: {} });
    assert.equal(config.servers.a.lazy, true);
    assert.equal(config.servers.b.lazy, false);
    assert.ok(!config.servers.c, 'a server with a bad "lazy" is invalid');
    assert.deepEqual(config.rootPolicy, { unrouted: 'none', healthIntervalMs: 5000, watch: false });
    assert.deepEqual(config.roots, [{ uri: 'postgres://sales-db' }, { uri: 'chart://monthly', name: 'charts' }]);
    assert.deepEqual(config.presets.scene.roots, [{ uri: 'postgres://sales-db' }]);
    assert.deepEqual(
      issues.map((i) => [i.code, i.path]),
      [['type', '/mcpServers/c/lazy']],
    );

    writeFileSync(
      join(dir, 'parley.json'),
      JSON.stringify({ rootPolicy: { unrouted: 'some', healthIntervalMs: 10, watch: 1, extra: true } }),
    );
    const bad = loadHostConfig({ cwd: dir, home: dir, env: {} });
    assert.deepEqual(
      bad.issues.map((i) => [i.code, i.path]).sort(),
      [
        ['invalid-value', '/rootPolicy/unrouted'],
        ['type', '/rootPolicy/healthIntervalMs'],
        ['type', '/rootPolicy/watch'],
        ['unknown-key', '/rootPolicy/extra'],
      ].sort(),
    );
    assert.equal(bad.config.rootPolicy, undefined, 'only valid keys are kept; the defaults apply');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the bundled servers are discovered from their templates: sales://results/{id} → sales, chart://svg/{id} → charts', {
  timeout: 240_000,
}, async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'parley-discovery-bundled-')));
  const bin = (name: string) => new URL(`../dist/servers/${name}/main.js`, import.meta.url).pathname;
  const def = (name: string, args: string[]) =>
    ({
      name,
      type: 'stdio',
      command: process.execPath,
      args: [bin(name), ...args],
      env: {},
      cwd: dir,
      origin: { file: '<test>', pointer: '' },
    }) as ServerDef;
  const host = createHost(
    {
      servers: {
        sales: def('sales', ['--db', join(dir, 'sales.db')]),
        charts: def('charts', []),
      },
      routes: [],
      presets: {},
      profile: {},
      inputs: {},
      sources: [],
      roots: [],
      policy: {
        sensitiveFields: 'decline',
        ratePerMinute: 600,
        burst: 100,
        maxPendingPerServer: 5,
        urlSchemes: ['https'],
        sampling: 'ask',
      },
    },
    { presenter: new HeadlessPresenter(true) },
  );
  try {
    const started = await host.start();
    assert.ok(
      started.every((r) => r.ok),
      JSON.stringify(started),
    );
    await host.discovered();
    assert.ok(hostInternals(host).roots.serversFor('sales://results/0123abcd').includes('sales'));
    assert.deepEqual(hostInternals(host).roots.serversFor('chart://svg/42'), ['charts']);
    assert.deepEqual(hostInternals(host).roots.serversFor('postgres://sales-db'), []);
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
