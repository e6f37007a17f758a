// Versioned migrations: upgrade from v1 (frozen fixture) to the latest; refuse newer files; atomic steps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStore, StoreError, SCHEMA_VERSION, MIGRATIONS } from '../src/host/store/index.js';
import { tempDir } from './fixtures/store/tmp.js';

const V1_SQL = readFileSync(new URL('./fixtures/store/v1.sql', import.meta.url), 'utf8');

function makeV1(file: string): void {
  const db = new Database(file);
  db.exec(V1_SQL);
  db.pragma('user_version = 1');
  db.prepare(`INSERT INTO audit (ts, tenant, user, session, server, kind, detail) VALUES (?, ?, ?, ?, ?, ?, ?)`).run(
    // A recent ts: older rows fall to the default 90-day retention at open.
    Date.now(),
    'acme',
    'alice',
    's1',
    'files',
    'request',
    JSON.stringify({ note: 'from v1' }),
  );
  db.prepare(
    `INSERT INTO answers (tenant, user, session, server, schema_hash, remember, content, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run('acme', 'alice', null, 'files', 'h1', 'always', JSON.stringify({ name: 'Ada' }), 20);
  db.prepare(`INSERT INTO roots (tenant, user, session, uri, name, lifetime, source) VALUES (?, ?, ?, ?, ?, ?, ?)`).run(
    'acme',
    'alice',
    null,
    'file:///work',
    'work',
    'app',
    'user',
  );
  db.close();
}

test('migration list is ordered 1..N without gaps and the fixture equals the released v1 step', async () => {
  assert.deepEqual(
    MIGRATIONS.map((m) => m.version),
    MIGRATIONS.map((_, i) => i + 1),
  );
  assert.equal(SCHEMA_VERSION, MIGRATIONS.length);
  const norm = (s: string) => s.replace(/--.*$/gm, '').replace(/\s+/g, ' ').trim();
  assert.equal(norm(V1_SQL), norm(MIGRATIONS[0].sql), 'migration 1 was edited after release; add a new step instead');
});

test('a v1 database upgrades to the latest version, keeping its rows and gaining the append-only triggers', async (t) => {
  const file = join(tempDir(t), 'v1.db');
  makeV1(file);
  const store = openSqliteStore(file);
  t.after(() => store.close());
  assert.equal(store.schemaVersion, SCHEMA_VERSION);
  const alice = { tenant: 'acme', user: 'alice', session: 's9' };
  assert.deepEqual(
    (await store.queryAudit()).map((r) => r.detail),
    [{ note: 'from v1' }],
  );
  assert.deepEqual((await store.recall(alice, 'files', 'h1'))?.content, { name: 'Ada' });
  assert.deepEqual(
    (await store.listRoots({ ...alice, session: null })).map((r) => r.uri),
    ['file:///work'],
  );
  await store.appendAudit({ ts: 30, scope: alice, server: 'files', kind: 'answer' });
  assert.equal((await store.queryAudit()).length, 2);

  const raw = new Database(file);
  t.after(() => raw.close());
  assert.equal(raw.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  assert.throws(() => raw.prepare('DELETE FROM audit').run(), /append-only/);
  // v2 unique keys: a second user-scoped (NULL session) answer with the same key is refused
  assert.throws(
    () =>
      raw
        .prepare(
          `INSERT INTO answers (tenant, user, session, server, schema_hash, remember, content, updated_at) VALUES ('acme','alice',NULL,'files','h1','always','{}',1)`,
        )
        .run(),
    /UNIQUE/,
  );
});

test('reopening a current database applies nothing and keeps data', async (t) => {
  const file = join(tempDir(t), 'again.db');
  const a = openSqliteStore(file);
  await a.appendAudit({ ts: Date.now(), scope: { tenant: 't', user: 'u', session: null }, server: 's', kind: 'k' });
  a.close();
  const b = openSqliteStore(file);
  t.after(() => b.close());
  assert.equal((await b.queryAudit()).length, 1);
});

test('a database from a newer parley gives STORE_VERSION telling what to do', async (t) => {
  const file = join(tempDir(t), 'future.db');
  openSqliteStore(file).close();
  const raw = new Database(file);
  raw.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
  raw.close();
  assert.throws(
    () => openSqliteStore(file),
    (err: unknown) =>
      StoreError.is(err) &&
      err.code === 'STORE_VERSION' &&
      err.message.includes('future.db') &&
      err.message.includes(`version ${SCHEMA_VERSION + 5}`) &&
      /upgrade parley/.test(err.message),
  );
});

test('a failing step is rolled back whole: the file stays at the previous version', async (t) => {
  const file = join(tempDir(t), 'clash.db');
  makeV1(file);
  const raw = new Database(file);
  // A schema parley did not write: migration 2 creates a trigger of this name and must fail.
  raw.exec(`CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN SELECT 1; END;`);
  raw.close();
  assert.throws(
    () => openSqliteStore(file),
    (err: unknown) => StoreError.is(err) && err.code === 'STORE_CORRUPT' && /migration 2/.test(err.message),
  );
  const after = new Database(file);
  t.after(() => after.close());
  assert.equal(after.pragma('user_version', { simple: true }), 1);
  const names = (
    after.prepare(`SELECT name FROM sqlite_master WHERE name IN ('audit_no_update', 'answers_key', 'audit_request')`).all() as Array<{
      name: string;
    }>
  ).map((r) => r.name);
  assert.deepEqual(names, [], 'no part of migration 2 remains');
});
