// Lazy start (issue 16 item 1, essay §6.3): a lazy server has no process until its first use (a tool
// call, a resource read, a route that needs it); concurrent first calls start it once; servers no route
// needs are lazy by default when routes exist; `parley servers` and `parley up` show it.
// Real peers: small SDK v1/v2 stdio servers (test/fixtures/layers/route-server.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost, HeadlessPresenter } from '../src/host/index.js';
import type { HostConfig, ServerDef } from '../src/host/index.js';
import { isolatedEnv, runParley, CLI } from './helpers/cli.js';
import { createServer, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { startSdkHttpPeer } from './helpers/peers.js';
import { hostInternals } from '../src/host/internals.js';

const FIXTURE = new URL('./fixtures/layers/route-server.mjs', import.meta.url).pathname;

/** Live processes whose command line contains `marker` (Linux /proc). */
function processesWith(marker: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(marker)) out.push(Number(d));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

function def(name: string, args: string[], extra: Partial<ServerDef> = {}): ServerDef {
  return {
    name,
    type: 'stdio',
    command: process.execPath,
    args: [FIXTURE, ...args],
    env: {},
    origin: { file: '<test>', pointer: `/mcpServers/${name}` },
    ...extra,
  } as ServerDef;
}

function config(servers: ServerDef[], more: Partial<HostConfig> = {}): HostConfig {
  return {
    servers: Object.fromEntries(servers.map((s) => [s.name, s])),
    routes: [],
    presets: {},
    profile: {},
    inputs: {},
    roots: [],
    sources: [],
    policy: { sensitiveFields: 'decline', ratePerMinute: 600, burst: 100, maxPendingPerServer: 5, urlSchemes: ['https'], sampling: 'ask' },
    ...more,
  };
}

const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>) ?? []).map((c) => c.text ?? '').join('');

for (const sdk of ['v1', 'v2'] as const) {
  test(`a lazy server (${sdk === 'v1' ? '2025' : '2026-07-28'}) has no process until its first call; concurrent first calls start it once`, {
    timeout: 120_000,
  }, async () => {
    const marker = `lazy-${randomUUID()}`;
    const eager = `eager-${randomUUID()}`;
    const host = createHost(
      config([def('lazy', ['--sdk', sdk, '--marker', marker], { lazy: true }), def('eager', ['--sdk', sdk, '--marker', eager])]),
      { presenter: new HeadlessPresenter(true) },
    );
    const starts: string[] = [];
    host.on((e) => e.type === 'server' && e.state.status === 'starting' && starts.push(e.server));
    try {
      const started = await host.start();
      assert.deepEqual(
        started.map((r) => [r.name, r.ok]),
        [['eager', true]],
        'host.start() starts the eager servers only',
      );
      assert.equal(processesWith(eager).length, 1);
      assert.deepEqual(processesWith(marker), [], 'no process for the lazy server before its first use');
      assert.deepEqual(
        host.listServers().map((s) => [s.name, s.state.status, s.lazy]),
        [
          ['lazy', 'stopped', true],
          ['eager', 'running', false],
        ],
      );
      const results = await Promise.all(Array.from({ length: 6 }, () => host.callTool('lazy', 'pid')));
      const pids = new Set(results.map(text));
      assert.equal(pids.size, 1, `every concurrent first call reached one process (got ${[...pids].join(', ')})`);
      assert.deepEqual(
        starts.filter((s) => s === 'lazy'),
        ['lazy'],
        'started once',
      );
      assert.deepEqual(processesWith(marker), [Number([...pids][0])], 'exactly one process, the one that answered');
    } finally {
      await host.close();
    }
    assert.deepEqual(processesWith(marker), [], 'stopped with the host');
  });
}

test('lazy by default when routes exist and none names the server; first use by a resource read and by a route', {
  timeout: 120_000,
}, async () => {
  const m = {
    routed: `routed-${randomUUID()}`,
    reader: `reader-${randomUUID()}`,
    viaRoute: `via-${randomUUID()}`,
    forced: `forced-${randomUUID()}`,
  };
  const cfg = config(
    [
      def('routed', ['--marker', m.routed]), // named in a route: eager
      def('reader', ['--marker', m.reader, '--template', 'sales-query://{table}']), // no route: lazy by default
      def('viaRoute', ['--marker', m.viaRoute]), // routed, but "lazy": true wins
      def('forced', ['--marker', m.forced], { lazy: false }), // no route, "lazy": false wins
    ].map((d) => (d.name === 'viaRoute' ? { ...d, lazy: true } : d)),
    {
      routes: [
        { match: 'file:///srv/**', servers: ['routed'] },
        { match: 'chart://**', servers: ['viaRoute'] },
      ],
    },
  );
  const host = createHost(cfg, { presenter: new HeadlessPresenter(true) });
  try {
    assert.deepEqual(Object.fromEntries(host.listServers().map((s) => [s.name, s.lazy])), {
      routed: false,
      reader: true,
      viaRoute: true,
      forced: false,
    });
    assert.deepEqual((await host.start()).map((r) => r.name).sort(), ['forced', 'routed']);
    assert.deepEqual([processesWith(m.reader), processesWith(m.viaRoute)], [[], []]);
    const read = await hostInternals(host).servers.readResource('reader', 'sales-query://orders');
    assert.equal((read.contents[0] as { text?: string }).text, 'sales-query://orders', 'a resource read starts a lazy server');
    assert.equal(processesWith(m.reader).length, 1);
    assert.deepEqual(processesWith(m.viaRoute), []);
    assert.deepEqual(await host.serversFor('chart://monthly'), ['viaRoute'], 'a URI routed to it');
    assert.equal(hostInternals(host).servers.state('viaRoute').status, 'running', 'a route that needs a lazy server starts it');
    assert.equal(processesWith(m.viaRoute).length, 1);
  } finally {
    await host.close();
  }
});

test('`parley servers` shows "not started (lazy)"; `parley up` counts only the eager servers in its cold start', {
  timeout: 180_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-lazy-up-'));
  const marker = `up-lazy-${randomUUID()}`;
  writeFileSync(
    join(dir, 'parley.json'),
    JSON.stringify({
      mcpServers: {
        now: { command: process.execPath, args: [FIXTURE] },
        later: { command: process.execPath, args: [FIXTURE, '--marker', marker], lazy: true },
      },
    }),
  );
  try {
    const list = await runParley(['servers', '--config', join(dir, 'parley.json'), '--db', join(dir, 'p.db')], { timeoutMs: 120_000 });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^later\tstdio\tnot started \(lazy\)$/m);
    assert.match(list.stdout, /^now\tstdio\tstopped$/m);
    const json = JSON.parse(
      (await runParley(['servers', '--json', '--config', join(dir, 'parley.json'), '--db', join(dir, 'p.db')], { timeoutMs: 120_000 }))
        .stdout,
    );
    assert.deepEqual(
      json.map((s: { name: string; lazy: boolean }) => [s.name, s.lazy]),
      [
        ['now', false],
        ['later', true],
      ],
    );

    const child = spawn(process.execPath, [...CLI, 'up', '--json', '--port', '0', '--no-console'], {
      cwd: dir,
      env: { ...process.env, ...isolatedEnv(dir) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const events: Array<Record<string, unknown>> = [];
    let buf = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no ready event; events ${JSON.stringify(events)} stderr ${stderr}`)), 120_000);
      child.stdout.on('data', (d) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i).trim();
          buf = buf.slice(i + 1);
          if (!line) continue;
          const e = JSON.parse(line);
          events.push(e);
          if (e.event === 'ready') clearTimeout(t), resolve(e);
        }
      });
    });
    try {
      const r = await ready;
      assert.deepEqual(
        [r.ready, r.failed, r.lazy],
        [1, 0, 1],
        'the cold start counts the one eager server; the lazy one is reported apart',
      );
      assert.ok(events.some((e) => e.event === 'server' && e.server === 'later' && e.status === 'lazy'));
      assert.ok(!events.some((e) => e.event === 'server' && e.server === 'later' && e.status === 'starting'));
      assert.deepEqual(processesWith(marker), [], 'parley up did not spawn the lazy server');
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A counting pass-through in front of an HTTP MCP server on 127.0.0.1: which JSON-RPC methods it saw. */
async function countingProxy(target: string) {
  const methods: string[] = [];
  const body = (req: IncomingMessage) =>
    new Promise<Buffer>((r) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => r(Buffer.concat(chunks)));
    });
  const server = createServer(async (req, res) => {
    const b = await body(req);
    if (b.length) {
      try {
        const m = JSON.parse(b.toString()) as { method?: string } | Array<{ method?: string }>;
        for (const x of Array.isArray(m) ? m : [m]) if (x.method) methods.push(x.method);
      } catch {
        methods.push('?');
      }
    } else methods.push(req.method ?? '?');
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<
      string,
      string
    >;
    try {
      const up = await fetch(target, { method: req.method, headers, ...(b.length ? { body: new Uint8Array(b) } : {}) });
      const out: Record<string, string> = {};
      up.headers.forEach((v, k) => (out[k] = v));
      res.writeHead(up.status, out);
      if (up.body) {
        const rs = Readable.fromWeb(up.body as never);
        rs.on('error', () => res.destroy()); // the peer stopped while a stream was open (teardown)
        rs.pipe(res);
      } else res.end();
    } catch {
      res.writeHead(502).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
  return { url, methods, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

for (const kind of ['v1', 'v2-modern'] as const) {
  test(`a lazy HTTP server (${kind}) is not connected until its first call; concurrent first calls connect once`, {
    timeout: 120_000,
  }, async () => {
    const peer = await startSdkHttpPeer(kind);
    const proxy = await countingProxy(peer.url);
    const h = {
      name: 'h',
      type: 'http',
      url: proxy.url,
      headers: {},
      lazy: true,
      origin: { file: '<test>', pointer: '/mcpServers/h' },
    } as ServerDef;
    const host = createHost(config([h]), { presenter: new HeadlessPresenter(true) });
    try {
      assert.deepEqual(await host.start(), []);
      assert.deepEqual(proxy.methods, [], 'no request before the first use');
      const results = await Promise.all(Array.from({ length: 6 }, () => host.callTool('h', 'roots')));
      assert.ok(
        results.every((r) => !r.isError),
        JSON.stringify(results),
      );
      const handshakes = proxy.methods.filter((m) => m === 'initialize' || m === 'server/discover');
      assert.ok(
        proxy.methods.filter((m) => m === 'initialize').length <= 1 && proxy.methods.filter((m) => m === 'server/discover').length <= 1,
        `one connect: ${handshakes.join(', ')}`,
      );
      assert.equal(proxy.methods.filter((m) => m === 'tools/call').length >= 6, true);
    } finally {
      await host.close();
      await proxy.close();
      await peer.stop();
    }
  });
}
