// The Store contract, run against both engines (SQLite file and a private PostgreSQL server): audit
// append/query, append-only at the database level, bounded excerpts with SHA-256, retention, purgeUser,
// era verdicts, argument and closed-store errors, and several stores sharing one database.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import pg from 'pg';
import {
  AUDIT_DETAIL_MAX,
  AUDIT_TEXT_MAX,
  openPostgresStore,
  openSqliteStore,
  openStore,
  REDACTED,
  SCHEMA_VERSION,
  StoreError,
  type AuditRecord,
  type Scope,
  type Store,
} from '../src/host/store/index.js';
import { forEachEngine, onDatabase, type Engine } from './helpers/store-engines.js';

const alice: Scope = { tenant: 'acme', user: 'alice', session: 's1' };
const bob: Scope = { tenant: 'acme', user: 'bob', session: 's1' };
const rec = (over: Partial<AuditRecord> = {}): AuditRecord => ({ ts: Date.now(), scope: alice, server: 'files', kind: 'request', ...over });

/** Runs raw SQL on the engine's database, outside the Store (to prove what the database itself refuses). */
async function raw(engine: Engine, location: string, sql: string): Promise<void> {
  await onDatabase(engine, location, async (run) => void (await run(sql)));
}

async function dbBytes(engine: Engine, location: string): Promise<number> {
  if (engine.name === 'sqlite') {
    let n = statSync(location).size;
    try {
      n += statSync(`${location}-wal`).size;
    } catch {
      /* no WAL */
    }
    return n;
  }
  const c = new pg.Client({ connectionString: location });
  await c.connect();
  try {
    return Number((await c.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n);
  } finally {
    await c.end();
  }
}

async function openAt(engine: Engine, location: string, t: import('node:test').TestContext, opts = {}): Promise<Store> {
  const store = engine.name === 'sqlite' ? openSqliteStore(location, opts) : await openPostgresStore(location, opts);
  t.after(() => store.close());
  return store;
}

forEachEngine((engine) => {
  test('audit: ids increase, query filters by scope/server/kind/requestId/since and returns newest first', async (t) => {
    const store = await engine.open(t);
    assert.equal(store.engine, engine.name);
    assert.equal(store.schemaVersion, SCHEMA_VERSION);
    const ids: number[] = [];
    const base = Date.now();
    for (let i = 0; i < 5; i++)
      ids.push(
        await store.appendAudit(
          rec({ ts: base + i, requestId: `r${i % 2}`, kind: i < 3 ? 'request' : 'answer', scope: i === 4 ? bob : alice, durationMs: 1.5 }),
        ),
      );
    assert.deepEqual(
      [...ids].sort((a, b) => a - b),
      ids,
      'ids increase',
    );
    const all = await store.queryAudit();
    assert.deepEqual(
      all.map((r) => r.id),
      [...ids].reverse(),
    );
    assert.equal(all[0].durationMs, 1.5);
    assert.equal((await store.queryAudit({ scope: { tenant: 'acme', user: 'alice' } })).length, 4);
    assert.equal((await store.queryAudit({ kind: 'answer' })).length, 2);
    assert.equal((await store.queryAudit({ requestId: 'r1' })).length, 2);
    assert.equal((await store.queryAudit({ limit: 2 })).length, 2);
    assert.equal((await store.queryAudit({ since: base + 3 })).length, 2);
    assert.equal((await store.queryAudit({ scope: { session: null } })).length, 0);
  });

  test('appends of one turn all commit, in order, with distinct ids', async (t) => {
    const store = await engine.open(t);
    const ids = await Promise.all(Array.from({ length: 50 }, (_, i) => store.appendAudit(rec({ requestId: `q${i}` }))));
    assert.equal(new Set(ids).size, 50);
    const rows = await store.queryAudit({ limit: 100 });
    assert.equal(rows.length, 50);
    if (engine.name === 'sqlite')
      assert.deepEqual(
        rows.map((r) => r.requestId).reverse(),
        ids.map((_, i) => `q${i}`),
      );
  });

  test('the audit log is append-only in the database: UPDATE and DELETE from any client raise', async (t) => {
    const location = await engine.location(t);
    const store = await openAt(engine, location, t);
    await store.appendAudit(rec());
    await assert.rejects(raw(engine, location, `UPDATE audit SET kind = 'x'`), /append-only/);
    await assert.rejects(raw(engine, location, `DELETE FROM audit`), /append-only/);
    assert.equal((await store.queryAudit()).length, 1);
  });

  test('redactKeys replace the secret at every depth before it is written', async (t) => {
    const store = await engine.open(t);
    await store.appendAudit(
      rec({ detail: { content: { password: 'hunter2', nested: [{ password: 'x' }] }, password: 'y' }, redactKeys: ['password'] }),
    );
    const [r] = await store.queryAudit();
    assert.deepEqual(r.detail, { content: { password: REDACTED, nested: [{ password: REDACTED }] }, password: REDACTED });
  });

  test('large fields are stored as a bounded excerpt with length and SHA-256', async (t) => {
    const store = await engine.open(t);
    const big = 'A'.repeat(AUDIT_TEXT_MAX) + 'Z'.repeat(64 * 1024);
    await store.appendAudit(rec({ detail: { message: big, short: 'kept' } }));
    const [r] = await store.queryAudit();
    const m = r.detail!.message as string;
    assert.ok(m.startsWith('A'.repeat(AUDIT_TEXT_MAX) + '…[truncated'), m.slice(0, 40));
    assert.ok(m.includes(`${big.length} chars, sha256:${createHash('sha256').update(big).digest('hex')}`));
    assert.ok(m.length < AUDIT_TEXT_MAX + 120);
    assert.equal(r.detail!.short, 'kept');
    // Many small fields: the whole detail is replaced by an excerpt of its JSON.
    const wide = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`f${i}`, 'v'.repeat(50)]));
    await store.appendAudit(rec({ detail: wide }));
    const [w] = await store.queryAudit({ limit: 1 });
    assert.equal(w.detail!.truncated, true);
    assert.equal(w.detail!.sha256, createHash('sha256').update(JSON.stringify(wide)).digest('hex'));
    assert.ok(JSON.stringify(w.detail).length < AUDIT_DETAIL_MAX);
  });

  test('1,000 refused requests with 64 KB messages grow the database by under 4 MB (was ~66 MB)', async (t) => {
    const location = await engine.location(t);
    const store = await openAt(engine, location, t);
    await store.appendAudit(rec());
    const before = await dbBytes(engine, location);
    // Random text per row: a repeated character would be compressed away by PostgreSQL's TOAST and
    // hide the growth this bound prevents.
    for (let i = 0; i < 1000; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, k) =>
          store.appendAudit(
            rec({
              kind: 'policy',
              action: 'decline',
              requestId: `in-${i + k}`,
              detail: { reason: 'rate-limited', message: randomBytes(32 * 1024).toString('hex') },
            }),
          ),
        ),
      );
    }
    const grown = (await dbBytes(engine, location)) - before;
    t.diagnostic(`${engine.name}: grew ${(grown / 1e6).toFixed(2)} MB for 1,000 rows`);
    assert.ok(grown < 4e6, `grew ${grown} bytes`);
  });

  test('retention: rows past maxAgeMs and beyond maxRows are deleted at open and by enforceRetention', async (t) => {
    const location = await engine.location(t);
    const a = await openAt(engine, location, t, { retention: { maxAgeMs: 0, maxRows: 0 } });
    const old = Date.now() - 10 * 86_400_000;
    for (let i = 0; i < 5; i++) await a.appendAudit(rec({ ts: old, requestId: `old${i}` }));
    for (let i = 0; i < 5; i++) await a.appendAudit(rec({ requestId: `new${i}` }));
    assert.equal(await a.enforceRetention(), 0, 'both bounds off: nothing deleted');
    await a.close();
    // Reopened with a 7-day age bound: the old rows go at open.
    const b = await openAt(engine, location, t, { retention: { maxAgeMs: 7 * 86_400_000, maxRows: 0 } });
    assert.deepEqual(
      (await b.queryAudit()).map((r) => r.requestId),
      ['new4', 'new3', 'new2', 'new1', 'new0'],
    );
    await b.close();
    const c = await openAt(engine, location, t, { retention: { maxAgeMs: 0, maxRows: 3 } });
    assert.deepEqual(
      (await c.queryAudit()).map((r) => r.requestId),
      ['new4', 'new3', 'new2'],
    );
    await c.appendAudit(rec({ requestId: 'new5' }));
    assert.equal(await c.enforceRetention(), 1);
    assert.deepEqual(
      (await c.queryAudit()).map((r) => r.requestId),
      ['new5', 'new4', 'new3'],
    );
    assert.throws(() => openSqliteStore(':memory:', { retention: { maxRows: -1 } }), /retention.maxRows must be a non-negative integer/);
  });

  test("purgeUser removes one user's audit rows and remembered answers, nobody else's", async (t) => {
    const location = await engine.location(t);
    const store = await openAt(engine, location, t);
    const other = { ...alice, tenant: 'globex' };
    for (const scope of [alice, { ...alice, session: 's2' }, bob, other]) {
      await store.appendAudit(rec({ scope }));
      await store.remember({ scope, server: 'files', schemaHash: 'h', content: { a: 1 }, remember: 'session', updatedAt: 1 });
    }
    await store.remember({
      scope: { ...alice, session: null },
      server: 'files',
      schemaHash: 'h',
      content: { a: 2 },
      remember: 'always',
      updatedAt: 2,
    });
    assert.deepEqual(await store.purgeUser('acme', 'alice'), { audit: 2, answers: 3 });
    assert.equal((await store.queryAudit({ scope: { tenant: 'acme', user: 'alice' } })).length, 0);
    assert.equal(await store.recall(alice, 'files', 'h'), undefined);
    assert.equal((await store.queryAudit()).length, 2, "bob's and globex/alice's rows stay");
    assert.ok(await store.recall(bob, 'files', 'h'));
    assert.ok(await store.recall(other, 'files', 'h'));
    await assert.rejects(raw(engine, location, `DELETE FROM audit`), /append-only/, 'the gate is closed again after a purge');
    await assert.rejects(store.purgeUser('', 'alice'), /tenant must be a non-empty string/);
  });

  test('era verdicts: put/get/replace/delete', async (t) => {
    const store = await engine.open(t);
    assert.equal(await store.getEraVerdict('v1:k'), undefined);
    await store.putEraVerdict({ defHash: 'v1:k', era: 'legacy', revision: '2025-11-25', verifiedAt: 5 });
    await store.putEraVerdict({ defHash: 'v1:k', era: 'modern', verifiedAt: Date.now() });
    assert.equal((await store.getEraVerdict('v1:k'))?.era, 'modern');
    assert.equal(await store.deleteEraVerdict('v1:k'), true);
    assert.equal(await store.deleteEraVerdict('v1:k'), false);
  });

  test('invalid arguments reject with TypeErrors naming the field; a closed store rejects with STORE_CLOSED', async (t) => {
    const store = await engine.open(t);
    await assert.rejects(
      store.appendAudit(rec({ scope: { tenant: '', user: 'u', session: null } })),
      /scope.tenant must be a non-empty string/,
    );
    await assert.rejects(store.appendAudit(rec({ ts: NaN })), /ts must be epoch milliseconds/);
    await assert.rejects(store.queryAudit({ limit: 0 }), /limit must be a positive integer/);
    await assert.rejects(
      store.remember({ scope: { ...alice, session: null }, server: 'x', schemaHash: 'h', content: {}, remember: 'session', updatedAt: 1 }),
      /needs scope.session/,
    );
    await assert.rejects(
      store.putRoot({ scope: alice, uri: 'file:///x', lifetime: 'forever' as never, source: 'user' }),
      /lifetime must be/,
    );
    await store.close();
    await store.close();
    for (const call of [
      () => store.appendAudit(rec()),
      () => store.queryAudit(),
      () => store.listRoots(alice),
      () => store.purgeUser('a', 'b'),
    ]) {
      await assert.rejects(call(), (e: unknown) => StoreError.is(e) && e.code === 'STORE_CLOSED');
    }
  });

  test('two stores on one database (two processes): concurrent appends get distinct ids; both see every row', async (t) => {
    const location = await engine.location(t);
    const [a, b] = await Promise.all([openAt(engine, location, t), openAt(engine, location, t)]);
    const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).appendAudit(rec({ requestId: `x${i}` }))));
    assert.equal(new Set(ids).size, 40);
    assert.equal((await a.queryAudit({ limit: 100 })).length, 40);
    assert.equal((await b.queryAudit({ limit: 100 })).length, 40);
    await a.remember({ scope: alice, server: 's', schemaHash: 'h', content: { v: 1 }, remember: 'session', updatedAt: 1 });
    await b.remember({ scope: alice, server: 's', schemaHash: 'h', content: { v: 2 }, remember: 'session', updatedAt: 2 });
    assert.deepEqual((await a.recall(alice, 's', 'h'))?.content, { v: 2 }, 'an upsert from another process replaces, not duplicates');
  });

  test('openStore picks the engine from the target string', async (t) => {
    const store = await openStore(await engine.location(t));
    t.after(() => store.close());
    assert.equal(store.engine, engine.name);
  });

  if (engine.name === 'postgres') {
    test('postgres: unreachable at open is STORE_UNAVAILABLE; while down calls fail clearly; the pool reconnects', async (t) => {
      await assert.rejects(
        openPostgresStore('postgres://parley:secret@127.0.0.1:1/nowhere', { connectTimeoutMs: 2000 }),
        (e: unknown) =>
          StoreError.is(e) && e.code === 'STORE_UNAVAILABLE' && !e.message.includes('secret') && /unavailable/.test(e.message),
      );
      const store = await engine.open(t, {});
      await store.appendAudit(rec());
      const server = engine.server!();
      server.halt();
      try {
        await assert.rejects(
          store.appendAudit(rec()),
          (e: unknown) => StoreError.is(e) && e.code === 'STORE_UNAVAILABLE' && /reconnects/.test(e.message),
        );
      } finally {
        server.start();
      }
      await store.appendAudit(rec());
      assert.equal((await store.queryAudit()).length, 2, 'works again after the server came back');
    });

    test('postgres: the migrations produce the same tables as on SQLite; a newer schema is STORE_VERSION', async (t) => {
      const location = await engine.location(t);
      const store = await openAt(engine, location, t);
      const c = new pg.Client({ connectionString: location });
      await c.connect();
      t.after(() => c.end());
      const tables = (
        await c.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`)
      ).rows.map((r) => r.table_name);
      const lite = openSqliteStore(':memory:');
      t.after(() => lite.close());
      assert.deepEqual(
        tables.filter((n: string) => n !== 'parley_schema'),
        ['answers', 'audit', 'audit_purge_gate', 'era_verdicts', 'oauth_signins', 'presets', 'rate_limits', 'roots'],
      );
      await store.close();
      await c.query('UPDATE parley_schema SET version = $1', [SCHEMA_VERSION + 1]);
      await assert.rejects(
        openPostgresStore(location),
        (e: unknown) => StoreError.is(e) && e.code === 'STORE_VERSION' && /upgrade parley/.test(e.message),
      );
    });
  }
});
