// Migration 8 (the cheaper audit table, docs/store.md "Migrations") on both engines: a version-7
// database with rows upgrades with its ids kept, the append-only triggers and the purge gate still
// hold, retention and purgeUser still work, and an id deleted by a purge of the newest rows is never
// handed out again (SQLite lost AUTOINCREMENT; `audit_seq` keeps the guarantee).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import pg from 'pg';
import { migrate, MIGRATIONS, openPostgresStore, openSqliteStore, sqlFor, type Store } from '../src/host/store/index.js';
import { forEachEngine, onDatabase, type Engine } from './helpers/store-engines.js';

const COLS = 'ts, tenant, "user", session, server, kind, request_id';
const OLD = () => Date.now() - 3_600_000;

/** A database at schema version 7 (before migration 8), as the released code left it. */
async function makeV7(engine: Engine, location: string): Promise<void> {
  if (engine.name === 'sqlite') {
    const db = new Database(location);
    db.pragma('journal_mode = WAL');
    migrate(db, location, 7);
    db.close();
    return;
  }
  const c = new pg.Client({ connectionString: location });
  await c.connect();
  try {
    await c.query('CREATE TABLE parley_schema (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)');
    for (const step of MIGRATIONS.filter((m) => m.version <= 7)) await c.query(sqlFor(step, 'postgres'));
    await c.query('INSERT INTO parley_schema (id, version) VALUES (1, 7)');
  } finally {
    await c.end();
  }
}

async function open(engine: Engine, location: string, t: import('node:test').TestContext): Promise<Store> {
  const retention = { maxAgeMs: 60_000, intervalMs: 0 };
  const store = engine.name === 'sqlite' ? openSqliteStore(location, { retention }) : await openPostgresStore(location, { retention });
  t.after(() => store.close());
  return store;
}

forEachEngine((engine) => {
  test('migration 8 on a version-7 database with rows: ids kept, still append-only, retention and purge work, ids never reused', async (t) => {
    const location = await engine.location(t);
    await makeV7(engine, location);
    await onDatabase(engine, location, async (sql) => {
      const row = (ts: number, user: string, req: string) =>
        sql(`INSERT INTO audit (${COLS}) VALUES (${ts}, 'acme', '${user}', 's', 'files', 'request', '${req}')`);
      await row(OLD(), 'alice', 'old1');
      await row(OLD(), 'alice', 'old2');
      await row(Date.now(), 'alice', 'a3');
      await row(Date.now(), 'bob', 'b4');
      // The newest row is purged before the upgrade: its id (4) must not come back.
      await sql('INSERT INTO audit_purge_gate (open) VALUES (1)');
      await sql(`DELETE FROM audit WHERE "user" = 'bob'`);
      await sql('DELETE FROM audit_purge_gate');
    });

    const store = await open(engine, location, t); // migrates, then retention at open (maxAgeMs 60 s)
    assert.deepEqual(
      (await store.queryAudit()).map((r) => [r.id, r.requestId]),
      [[3, 'a3']],
      'id kept; the two rows older than the cutoff went to retention at open',
    );
    const scope = { tenant: 'acme', user: 'alice', session: 's' };
    assert.equal(await store.appendAudit({ ts: Date.now(), scope, server: 'files', kind: 'answer' }), 5, 'id 4 (purged) is not reused');
    assert.deepEqual((await store.queryAudit({ requestId: 'a3' })).length, 1, 'requestId queries work without the index');

    await onDatabase(engine, location, async (sql) => {
      await assert.rejects(sql(`UPDATE audit SET kind = 'forged'`), /append-only/);
      await assert.rejects(sql('DELETE FROM audit'), /append-only/);
      if (engine.name === 'sqlite') {
        const names = (await sql(`SELECT name FROM sqlite_master WHERE tbl_name = 'audit' ORDER BY name`)) as Array<{ name: string }>;
        assert.deepEqual(
          names.map((r) => r.name),
          ['audit', 'audit_ids_fresh', 'audit_no_delete', 'audit_no_update', 'audit_scope'],
        );
        assert.deepEqual(await sql(`SELECT name FROM sqlite_sequence WHERE name = 'audit'`), [], 'no AUTOINCREMENT any more');
      } else {
        const idx = (await sql(`SELECT indexname FROM pg_indexes WHERE tablename = 'audit' ORDER BY indexname`)) as Array<{
          indexname: string;
        }>;
        assert.deepEqual(
          idx.map((r) => r.indexname),
          ['audit_pkey', 'audit_scope'],
        );
      }
    });

    // purgeUser deletes the newest rows (ids 3 and 5): the next id is 6, never 3 or 5 again.
    assert.deepEqual(await store.purgeUser('acme', 'alice'), { audit: 2, answers: 0 });
    assert.equal(await store.appendAudit({ ts: Date.now(), scope, server: 'files', kind: 'answer' }), 6);
    // Retention by age removing every row: the ids go on from there.
    await store.appendAudit({ ts: OLD(), scope, server: 'files', kind: 'answer' });
    await onDatabase(engine, location, async (sql) => {
      await assert.rejects(sql('DELETE FROM audit'), /append-only/, 'the gate is closed again');
    });
    assert.equal((await store.queryAudit()).length, 2);
    // Another store on the same database whose retention (at open) finds every row too old.
    await new Promise((r) => setTimeout(r, 20));
    const retention = { maxAgeMs: 5, intervalMs: 0 };
    const other = engine.name === 'sqlite' ? openSqliteStore(location, { retention }) : await openPostgresStore(location, { retention });
    assert.equal((await other.queryAudit()).length, 0, 'retention at open removed every row');
    await other.close();
    assert.equal(await store.appendAudit({ ts: Date.now(), scope, server: 'files', kind: 'answer' }), 8, 'ids 6 and 7 are not reused');
  });
});

test('sqlite: no client can take an id a purge or retention deleted, nor lower audit_seq (migration 9)', async (t) => {
  const { tempDir } = await import('./fixtures/store/tmp.js');
  const { join } = await import('node:path');
  const location = join(tempDir(t), 'ids.db');
  const store = openSqliteStore(location, { retention: { intervalMs: 0 } });
  t.after(() => store.close());
  const scope = { tenant: 'acme', user: 'alice', session: 's' };
  for (const kind of ['request', 'answer', 'answer']) await store.appendAudit({ ts: Date.now(), scope, server: 'files', kind });
  assert.deepEqual(await store.purgeUser('acme', 'alice'), { audit: 3, answers: 0 }); // ids 1-3, the newest
  const other = new Database(location); // another client: the sqlite3 CLI, an older parley
  t.after(() => other.close());
  const insert = other.prepare(`INSERT INTO audit (ts, tenant, user, server, kind) VALUES (1, 'acme', 'mallory', 'files', 'forged')`);
  assert.throws(() => insert.run(), /never reused/, 'SQLite would have handed out id 1 again');
  assert.throws(() => other.prepare('DELETE FROM audit_seq').run(), /DELETE is not allowed/);
  assert.throws(() => other.prepare('UPDATE audit_seq SET high = 0').run(), /may only grow/);
  assert.equal(await store.appendAudit({ ts: Date.now(), scope, server: 'files', kind: 'answer' }), 4, 'parley goes on from 4');
  assert.equal(Number(insert.run().lastInsertRowid), 5, 'an insert above every used id is an ordinary append');
});
