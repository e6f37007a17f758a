// Era verdicts cached per server definition (issues 4 and 5), and era detection on the session's own
// process (issue 17 item 9: no probe sibling, even on the first start): reuse of verdicts, correction of
// stale verdicts, expiry of legacy verdicts, the store table and its migration.
// Process counts come from the fixture's own log (one `spawn` line per process).
import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { ServerManager } from '../src/host/servers/index.js';
import { eraVerdictKey, LEGACY_VERDICT_TTL_MS, type EraEvent } from '../src/host/servers/era-verdict.js';
import { MIGRATIONS, SCHEMA_VERSION, memoryEraVerdicts, openSqliteStore, type SqliteStore } from '../src/host/store/index.js';
import type { StdioServerDef } from '../src/host/config/types.js';
import { clientInfo, fastStop, scriptedHandlers, stdioDef, text } from './fixtures/servers-host/helpers.js';
import { verifies } from './helpers/verifies.js';

const PEER = fileURLToPath(new URL('./fixtures/era-verdict/era-peer.mjs', import.meta.url));
const SPAWN_LOG = fileURLToPath(new URL('./fixtures/era-verdict/spawn-log.mjs', import.meta.url));
const V2_DUAL = fileURLToPath(new URL('./fixtures/servers-host/v2-dual.mjs', import.meta.url));
const V1_PUSH = fileURLToPath(new URL('./fixtures/servers-host/v1-push.mjs', import.meta.url));

/** Polls `get` every 20 ms until it returns `want`; fails after `ms` (a child may log after start() resolved). */
async function until<T>(get: () => T, want: T, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (get() === want) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(get(), want, `${what} (waited ${ms} ms)`);
}

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-era-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The era peer in `dir`, starting in `era`; `log()` returns its events, `setEra` changes the era for the next process. */
function eraPeer(t: TestContext, era: string) {
  const dir = tempDir(t);
  const state = join(dir, 'era');
  const logFile = join(dir, 'events.log');
  writeFileSync(state, era);
  const def = stdioDef('peer', [PEER, state, logFile]);
  const log = () =>
    existsSync(logFile)
      ? readFileSync(logFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => {
            const [event, pid] = l.split(' ');
            return { event, pid };
          })
      : [];
  return {
    dir,
    def,
    log,
    setEra: (e: string) => writeFileSync(state, e),
    count: (event: string) => log().filter((l) => l.event === event).length,
  };
}

/** A manager over `defs` whose `era` events are collected; stopped after the test. */
function manager(
  t: TestContext,
  defs: Record<string, StdioServerDef>,
  extra: Partial<ConstructorParameters<typeof ServerManager>[1]> = {},
) {
  const m = new ServerManager(defs, { handlers: scriptedHandlers().handlers, clientInfo, stop: fastStop, ...extra });
  const eras: EraEvent[] = [];
  m.events.on('era', (e) => eras.push(e));
  t.after(() => m.stopAll());
  return { m, eras };
}

function store(t: TestContext, dir: string): SqliteStore {
  const s = openSqliteStore(join(dir, 'parley.db'));
  t.after(() => s.close());
  return s;
}

describe('a cached verdict is reused', () => {
  it('modern: the first and second start (new manager, same SQLite store) each spawn one process and probe in place on it', async (t) => {
    verifies(['ERA-VERDICT-CACHE', 'ERA-DUAL-MODERN']);
    const p = eraPeer(t, 'dual');
    const s = store(t, p.dir);
    const first = manager(t, { peer: p.def }, { eraVerdicts: s });
    await first.m.start('peer');
    assert.equal(p.count('spawn'), 1, 'first start: the session child only (no probe sibling)');
    assert.equal(first.m.info('peer')?.pid, Number(p.log()[1]?.pid), 'server/discover went to the session child itself');
    assert.deepEqual(
      first.eras.map((e) => [e.era, e.negotiation]),
      [['modern', 'probed']],
    );
    assert.equal((await s.getEraVerdict(eraVerdictKey(p.def)))?.era, 'modern');
    await first.m.stopAll();

    const second = manager(t, { peer: p.def }, { eraVerdicts: s });
    await second.m.start('peer');
    const before = p.log().slice(0, 2);
    const after = p.log().slice(2);
    assert.deepEqual(
      before.map((l) => l.event),
      ['spawn', 'discover'],
      'first run: one process, probed in place',
    );
    assert.equal(before[0].pid, before[1].pid);
    assert.deepEqual(
      after.map((l) => l.event),
      ['spawn', 'discover'],
      'one process; the probe ran on it',
    );
    assert.equal(after[0].pid, after[1].pid, 'server/discover went to the session child itself');
    assert.equal(second.m.info('peer')?.pid, Number(after[0].pid));
    assert.deepEqual(
      second.eras.map((e) => [e.era, e.negotiation]),
      [['modern', 'verdict']],
    );
    assert.equal(text(await second.m.callTool('peer', 'era')), 'modern');
  });

  it('legacy: the second start runs initialize directly, without server/discover, in one process', async (t) => {
    verifies(['ERA-VERDICT-CACHE', 'ERA-DUAL-FALLBACK']);
    const p = eraPeer(t, 'legacy');
    const verdicts = memoryEraVerdicts();
    const first = manager(t, { peer: p.def }, { eraVerdicts: verdicts });
    await first.m.start('peer');
    assert.deepEqual(
      [p.count('spawn'), p.count('discover'), p.count('initialize')],
      [1, 1, 1],
      'first start: probe, then initialize, on one process',
    );
    await first.m.stopAll();
    const second = manager(t, { peer: p.def }, { eraVerdicts: verdicts });
    await second.m.start('peer');
    assert.deepEqual([p.count('spawn'), p.count('discover'), p.count('initialize')], [2, 1, 2], 'second start: one process, no probe');
    assert.deepEqual(
      second.eras.map((e) => [e.era, e.negotiation]),
      [['legacy', 'verdict']],
    );
  });

  it('without a store, managers in one process share verdicts (process-wide memory)', async (t) => {
    verifies('ERA-VERDICT-CACHE');
    const p = eraPeer(t, 'legacy');
    const a = manager(t, { peer: p.def });
    await a.m.start('peer');
    await a.m.stopAll();
    const b = manager(t, { peer: p.def });
    await b.m.start('peer');
    assert.deepEqual([p.count('spawn'), p.count('discover'), p.count('initialize')], [2, 1, 2], 'second start: one spawn, no probe');
    assert.deepEqual(
      b.eras.map((e) => [e.era, e.negotiation]),
      [['legacy', 'verdict']],
    );
    assert.equal(text(await b.m.callTool('peer', 'era')), 'legacy');
  });
});

describe('a stale verdict falls back and is corrected', () => {
  async function seeded(t: TestContext, startEra: string) {
    const p = eraPeer(t, startEra);
    const verdicts = memoryEraVerdicts();
    const first = manager(t, { peer: p.def }, { eraVerdicts: verdicts });
    await first.m.start('peer');
    await first.m.stopAll();
    return { p, verdicts, key: eraVerdictKey(p.def), spawned: p.count('spawn') };
  }

  it('modern verdict, server now legacy (-32601): initialize on the same process, verdict becomes legacy', async (t) => {
    verifies('ERA-DUAL-FALLBACK');
    const { p, verdicts, key, spawned } = await seeded(t, 'dual');
    assert.equal((await verdicts.getEraVerdict(key))?.era, 'modern');
    p.setEra('legacy');
    const { m, eras } = manager(t, { peer: p.def }, { eraVerdicts: verdicts });
    await m.start('peer');
    assert.equal(p.count('spawn') - spawned, 1, 'no extra process');
    assert.deepEqual(
      eras.map((e) => [e.era, e.negotiation]),
      [['legacy', 'corrected']],
    );
    assert.equal((await verdicts.getEraVerdict(key))?.era, 'legacy');
    assert.equal(text(await m.callTool('peer', 'era')), 'legacy');
  });

  it('modern verdict, server now exits on server/discover: started once more with initialize, verdict becomes legacy', async (t) => {
    verifies('ERA-DUAL-FALLBACK');
    const { p, verdicts, key, spawned } = await seeded(t, 'dual');
    p.setEra('legacy-exit');
    const { m, eras } = manager(t, { peer: p.def }, { eraVerdicts: verdicts });
    await m.start('peer');
    assert.equal(p.count('spawn') - spawned, 2, 'the probed process (died on the probe) + the session child');
    assert.deepEqual(
      eras.map((e) => [e.era, e.negotiation]),
      [['legacy', 'corrected']],
    );
    assert.equal((await verdicts.getEraVerdict(key))?.era, 'legacy');
    assert.equal(text(await m.callTool('peer', 'era')), 'legacy');
    // and the corrected verdict is then used as is
    await m.stopAll();
    const again = manager(t, { peer: p.def }, { eraVerdicts: verdicts });
    const before = p.count('spawn');
    await again.m.start('peer');
    assert.equal(p.count('spawn') - before, 1);
    assert.deepEqual(
      again.eras.map((e) => e.negotiation),
      ['verdict'],
    );
  });

  it('legacy verdict, server now rejects initialize (2026-07-28 only): falls back to the probe, verdict becomes modern', async (t) => {
    verifies(['ERA-DUAL-FALLBACK', 'ERA-DUAL-MODERN']);
    const { p, verdicts, key, spawned } = await seeded(t, 'legacy');
    p.setEra('modern-only');
    const { m, eras } = manager(t, { peer: p.def }, { eraVerdicts: verdicts });
    await m.start('peer');
    await until(() => p.count('spawn') - spawned, 2, 'direct attempt (initialize refused) + the probed session child');
    assert.deepEqual(
      eras.map((e) => [e.era, e.negotiation]),
      [['modern', 'corrected']],
    );
    assert.equal((await verdicts.getEraVerdict(key))?.era, 'modern');
    assert.equal(text(await m.callTool('peer', 'era')), 'modern');
  });

  it('a legacy verdict older than legacyVerdictTtlMs is probed again (an upgraded server is noticed)', async (t) => {
    verifies('ERA-VERDICT-CACHE');
    const p = eraPeer(t, 'dual');
    const verdicts = memoryEraVerdicts();
    const key = eraVerdictKey(p.def);
    await verdicts.putEraVerdict({ defHash: key, era: 'legacy', verifiedAt: Date.now() - LEGACY_VERDICT_TTL_MS - 1000 });
    const { m, eras } = manager(t, { peer: p.def }, { eraVerdicts: verdicts });
    await m.start('peer');
    assert.deepEqual(
      eras.map((e) => [e.era, e.negotiation]),
      [['modern', 'probed']],
    );
    assert.equal((await verdicts.getEraVerdict(key))?.era, 'modern');
  });

  it('a legacy outcome reached only by probe timeout is not cached, and drops a cached verdict', async (t) => {
    verifies('ERA-DUAL-FALLBACK');
    const { p, verdicts, key, spawned } = await seeded(t, 'dual');
    p.setEra('silent'); // e.g. a server still installing itself: it looks legacy
    const { m, eras } = manager(t, { peer: p.def }, { eraVerdicts: verdicts, probeTimeoutMs: 300 });
    await m.start('peer');
    assert.equal(p.count('spawn') - spawned, 1, 'the in-place probe timed out; initialize ran on the same process');
    assert.deepEqual(
      eras.map((e) => [e.era, e.negotiation]),
      [['legacy', 'corrected']],
    );
    assert.equal(m.info('peer')?.negotiation, 'corrected');
    assert.equal(await verdicts.getEraVerdict(key), undefined, 'neither kept modern nor stored legacy');
    await m.stopAll();
    const again = manager(t, { peer: p.def }, { eraVerdicts: verdicts, probeTimeoutMs: 300 });
    await again.m.start('peer');
    assert.deepEqual(
      again.eras.map((e) => [e.era, e.negotiation]),
      [['legacy', 'probed']],
    );
    assert.equal(await verdicts.getEraVerdict(key), undefined);
  });

  it("a server's timeouts.probeMs sets its own probe bound: short for a silent server, long enough for a slow dual-era one", async (t) => {
    const silent = eraPeer(t, 'silent');
    const quick = manager(t, { peer: { ...silent.def, timeouts: { probeMs: 300 } } });
    const t0 = Date.now();
    await quick.m.start('peer');
    assert.ok(Date.now() - t0 < 8_000, `taken as legacy after its own 300 ms, not the default 10 s (${Date.now() - t0} ms)`);
    assert.deepEqual(
      quick.eras.map((e) => e.era),
      ['legacy'],
    );
    const slow = eraPeer(t, 'slow-dual'); // answers server/discover after 1500 ms
    const short = manager(t, { peer: { ...slow.def, timeouts: { probeMs: 300 } } });
    await short.m.start('peer');
    assert.equal(text(await short.m.callTool('peer', 'era')), 'legacy', 'a bound shorter than its start: taken as legacy');
    const long = manager(t, { peer: { ...slow.def, timeouts: { probeMs: 20_000 } } }, { probeTimeoutMs: 300 });
    await long.m.start('peer');
    assert.equal(text(await long.m.callTool('peer', 'era')), 'modern', "the server's own bound wins over the manager's default");
  });

  it('stop(name) forgets the verdict; stopAll() keeps it', async (t) => {
    verifies('ERA-VERDICT-CACHE');
    const p = eraPeer(t, 'legacy');
    const verdicts = memoryEraVerdicts();
    const key = eraVerdictKey(p.def);
    const { m } = manager(t, { peer: p.def }, { eraVerdicts: verdicts });
    await m.start('peer');
    await m.stopAll();
    assert.equal((await verdicts.getEraVerdict(key))?.era, 'legacy');
    await m.start('peer');
    await m.stop('peer');
    assert.equal(await verdicts.getEraVerdict(key), undefined);
  });
});

describe('the first start (no verdict) finds the era on the session process', () => {
  it('a server that exits on server/discover is started once more with initialize; the legacy verdict spares the probe next time', async (t) => {
    verifies('ERA-DUAL-FALLBACK');
    const p = eraPeer(t, 'legacy-exit');
    const verdicts = memoryEraVerdicts();
    const first = manager(t, { peer: p.def }, { eraVerdicts: verdicts });
    await first.m.start('peer');
    assert.deepEqual(
      [p.count('spawn'), p.count('discover'), p.count('initialize')],
      [2, 1, 1],
      'probed process died; session child initialized',
    );
    assert.deepEqual(
      first.eras.map((e) => [e.era, e.negotiation]),
      [['legacy', 'probed']],
    );
    assert.equal((await verdicts.getEraVerdict(eraVerdictKey(p.def)))?.era, 'legacy');
    assert.equal(text(await first.m.callTool('peer', 'era')), 'legacy');
    await first.m.stopAll();
    const second = manager(t, { peer: p.def }, { eraVerdicts: verdicts });
    await second.m.start('peer');
    assert.deepEqual([p.count('spawn'), p.count('discover'), p.count('initialize')], [3, 1, 2], 'second start: one process, no probe');
  });
});

describe('with real SDK servers', () => {
  /** Runs `script` through the spawn-logging wrapper. */
  function logged(t: TestContext, script: string) {
    const dir = tempDir(t);
    const logFile = join(dir, 'spawns.log');
    const def = stdioDef('real', [SPAWN_LOG, logFile, script]);
    return { def, spawns: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').filter(Boolean).length : 0) };
  }

  it('SDK v2 dual-era server: first and second start are one process each, modern, and tools work', async (t) => {
    verifies('ERA-VERDICT-CACHE');
    const r = logged(t, V2_DUAL);
    const verdicts = memoryEraVerdicts();
    const a = manager(t, { real: r.def }, { eraVerdicts: verdicts });
    await a.m.start('real');
    assert.equal(r.spawns(), 1, 'first start: one process');
    assert.deepEqual(
      a.eras.map((e) => [e.era, e.revision, e.negotiation]),
      [['modern', '2026-07-28', 'probed']],
    );
    await a.m.stopAll();
    const b = manager(t, { real: r.def }, { eraVerdicts: verdicts });
    await b.m.start('real');
    assert.equal(r.spawns(), 2);
    assert.deepEqual(
      b.eras.map((e) => [e.era, e.revision, e.negotiation]),
      [['modern', '2026-07-28', 'verdict']],
    );
    assert.deepEqual((await b.m.listTools('real')).tools.map((x) => x.name).sort(), ['ask', 'roots']);
  });

  it('SDK v1 server, first start: -32601 to the in-place probe, initialize on the same process', async (t) => {
    verifies('ERA-DUAL-FALLBACK');
    const r = logged(t, V1_PUSH);
    const { m, eras } = manager(t, { real: r.def }, { eraVerdicts: memoryEraVerdicts() });
    await m.start('real');
    assert.equal(r.spawns(), 1);
    assert.deepEqual(
      eras.map((e) => [e.era, e.revision, e.negotiation]),
      [['legacy', '2025-11-25', 'probed']],
    );
    assert.equal(text(await m.callTool('real', 'echo')), 'echo');
  });

  it('SDK v1 server under a (stale) modern verdict: -32601 to the in-place probe, initialize on the same process', async (t) => {
    verifies('ERA-DUAL-FALLBACK');
    const r = logged(t, V1_PUSH);
    const verdicts = memoryEraVerdicts();
    await verdicts.putEraVerdict({ defHash: eraVerdictKey(r.def), era: 'modern', verifiedAt: Date.now() });
    const { m, eras } = manager(t, { real: r.def }, { eraVerdicts: verdicts });
    await m.start('real');
    assert.equal(r.spawns(), 1);
    assert.deepEqual(
      eras.map((e) => [e.era, e.revision, e.negotiation]),
      [['legacy', '2025-11-25', 'corrected']],
    );
    assert.equal(text(await m.callTool('real', 'echo')), 'echo');
  });
});

describe('era verdict key', () => {
  it('changes with command, args, cwd, env and url; not with the name or timeouts; values only hashed', async () => {
    const base = stdioDef('a', ['x.js'], undefined, { TOKEN: 'secret-value-1' });
    const key = eraVerdictKey(base, '/w');
    assert.match(key, /^v1:[0-9a-f]{64}$/);
    assert.ok(!key.includes('secret'));
    assert.equal(eraVerdictKey({ ...base, name: 'b', timeouts: { startupMs: 1 } }, '/w'), key);
    assert.equal(eraVerdictKey({ ...base, env: { TOKEN: 'secret-value-1' } }, '/w'), key, 'same env, new object');
    for (const other of [
      { ...base, env: { TOKEN: 'secret-value-2' } },
      { ...base, env: {} },
      { ...base, args: ['y.js'] },
      { ...base, command: 'bun' },
      { ...base, cwd: '/elsewhere' },
    ])
      assert.notEqual(eraVerdictKey(other, '/w'), key);
    assert.notEqual(eraVerdictKey(base, '/other-cwd'), key, "no cwd: the host's working directory counts");
    const http = { name: 'h', type: 'http' as const, url: 'http://127.0.0.1:1/mcp', headers: {}, origin: { file: '<t>', pointer: '' } };
    assert.notEqual(eraVerdictKey(http), eraVerdictKey({ ...http, url: 'http://127.0.0.1:2/mcp' }));
  });
});

describe('era_verdicts table', () => {
  it('put/get/replace/delete with checked fields', async (t) => {
    const s = store(t, tempDir(t));
    assert.equal(await s.getEraVerdict('v1:k'), undefined);
    await s.putEraVerdict({ defHash: 'v1:k', era: 'legacy', revision: '2025-11-25', verifiedAt: 5 });
    await s.putEraVerdict({ defHash: 'v1:k', era: 'modern', revision: '2026-07-28', verifiedAt: 6 });
    assert.deepEqual(await s.getEraVerdict('v1:k'), { defHash: 'v1:k', era: 'modern', revision: '2026-07-28', verifiedAt: 6 });
    await assert.rejects(
      async () => await s.putEraVerdict({ defHash: 'v1:k', era: 'future' as never, verifiedAt: 1 }),
      /era must be 'legacy' or 'modern'/,
    );
    await assert.rejects(
      async () => await s.putEraVerdict({ defHash: '', era: 'legacy', verifiedAt: 1 }),
      /defHash must be a non-empty string/,
    );
    assert.equal(await s.deleteEraVerdict('v1:k'), true);
    assert.equal(await s.deleteEraVerdict('v1:k'), false);
  });

  it('a schema-version-2 database with rows upgrades to the latest, keeping its rows and gaining era_verdicts', async (t) => {
    const file = join(tempDir(t), 'v2.db');
    const raw = new Database(file);
    for (const step of MIGRATIONS.filter((m) => m.version <= 2)) raw.exec(step.sql);
    raw.pragma('user_version = 2');
    raw
      .prepare(`INSERT INTO roots (tenant, user, session, uri, name, lifetime, source) VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .run('acme', 'alice', null, 'file:///work', 'work', 'app', 'user');
    raw.close();

    const s = openSqliteStore(file);
    assert.equal(s.schemaVersion, SCHEMA_VERSION);
    assert.ok(SCHEMA_VERSION >= 3);
    assert.deepEqual(
      (await s.listRoots({ tenant: 'acme', user: 'alice', session: null })).map((r) => r.uri),
      ['file:///work'],
    );
    await s.putEraVerdict({ defHash: 'v1:abc', era: 'modern', verifiedAt: 1 });
    s.close();

    const again = openSqliteStore(file); // reopening applies nothing and the verdict is still there
    t.after(() => again.close());
    assert.equal((await again.getEraVerdict('v1:abc'))?.era, 'modern');
    const check = new Database(file);
    t.after(() => check.close());
    assert.equal(check.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    assert.throws(
      () => check.prepare(`INSERT INTO era_verdicts (def_hash, era, verified_at) VALUES ('x', 'other', 1)`).run(),
      /CHECK constraint/,
    );
  });
});
