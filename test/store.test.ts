// The SQLite store: opening, pragmas, errors, the append-only audit log and redaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  openSqliteStore,
  openStore,
  StoreError,
  REDACTED,
  SCHEMA_VERSION,
  type AuditRecord,
  type SqliteStore,
  type Store,
} from '../src/host/store/index.js';
import { AUDIT_TEXT_MAX, auditParams, boundedDetailJson, redact as redactDeep } from '../src/host/store/audit.js';
import { tempDir } from './fixtures/store/tmp.js';

const alice = { tenant: 'acme', user: 'alice', session: 's1' };

function rec(over: Partial<AuditRecord> = {}): AuditRecord {
  return { ts: 1_000, scope: alice, server: 'files', kind: 'request', ...over };
}

function storeError(code: string, fileFragment: string) {
  return (err: unknown) => {
    assert.ok(StoreError.is(err), `expected a StoreError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.ok(err.message.includes(fileFragment), `message names the file: ${err.message}`);
    return true;
  };
}

test('opens a file in new parent directories with WAL, synchronous=NORMAL by default (FULL on request), foreign_keys and a busy timeout', async (t) => {
  const file = join(tempDir(t), 'a', 'b', 'parley.db');
  const store = openSqliteStore(file);
  t.after(() => store.close());
  assert.ok(existsSync(file));
  assert.deepEqual(await store.settings(), { journalMode: 'wal', synchronous: 'NORMAL', foreignKeys: true, busyTimeoutMs: 5000 });
  assert.equal(store.schemaVersion, SCHEMA_VERSION);
  assert.deepEqual(await store.integrityCheck(), ['ok']);
  const full = openSqliteStore(join(tempDir(t), 'n.db'), { synchronous: 'FULL', busyTimeoutMs: 250 });
  assert.deepEqual(await full.settings(), { journalMode: 'wal', synchronous: 'FULL', foreignKeys: true, busyTimeoutMs: 250 });
  await full.close();
});

test('openStore passes synchronous to a SQLite store (the CLI reads $PARLEY_STORE_SYNC)', async (t) => {
  const full = await openStore(join(tempDir(t), 'f.db'), { synchronous: 'FULL' });
  const normal = await openStore(join(tempDir(t), 'n.db'));
  t.after(() => Promise.all([full.close(), normal.close()]));
  assert.equal((await (full as SqliteStore).settings()).synchronous, 'FULL');
  assert.equal((await (normal as SqliteStore).settings()).synchronous, 'NORMAL');
});

test('a closed store throws STORE_CLOSED from every method; close is idempotent', async (t) => {
  const store = openSqliteStore(join(tempDir(t), 'c.db'));
  await store.close();
  await store.close();
  const calls: Array<(s: Store) => unknown> = [
    (s) => s.appendAudit(rec()),
    (s) => s.queryAudit(),
    (s) => s.remember({ scope: alice, server: 'x', schemaHash: 'h', content: {}, remember: 'session', updatedAt: 1 }),
    (s) => s.recall(alice, 'x', 'h'),
    (s) => s.forget(alice),
    (s) => s.listPresets(alice),
    (s) => s.listRoots(alice),
  ];
  for (const call of calls) await assert.rejects(async () => call(store), storeError('STORE_CLOSED', 'c.db'));
});

test('a file of garbage bytes gives STORE_CORRUPT naming the file, not a crash', async (t) => {
  const dir = tempDir(t);
  const random = join(dir, 'random.db');
  writeFileSync(random, randomBytes(8192));
  assert.throws(() => openSqliteStore(random), storeError('STORE_CORRUPT', 'random.db'));
  const header = join(dir, 'header.db');
  writeFileSync(header, Buffer.concat([Buffer.from('SQLite format 3\0'), randomBytes(4096)]));
  assert.throws(() => openSqliteStore(header), storeError('STORE_CORRUPT', 'header.db'));
  assert.throws(() => openSqliteStore(header), /Move the file aside/);
});

test('an unusable path gives STORE_IO naming the file and the fix', async (t) => {
  const dir = tempDir(t);
  const notADir = join(dir, 'plain-file');
  writeFileSync(notADir, 'x');
  assert.throws(() => openSqliteStore(join(notADir, 'store.db')), storeError('STORE_IO', 'plain-file'));
  assert.throws(() => openSqliteStore(join(notADir, 'store.db')), /writable/);
});

test('audit: append returns increasing ids; query filters and returns newest first', async (t) => {
  const store = openSqliteStore(join(tempDir(t), 'q.db'));
  t.after(() => store.close());
  const bob = { tenant: 'acme', user: 'bob', session: null };
  const ids = [
    await store.appendAudit(rec({ ts: 100, kind: 'request', requestId: 'r1' })),
    await store.appendAudit(rec({ ts: 200, kind: 'answer', requestId: 'r1', action: 'accept', durationMs: 1234 })),
    await store.appendAudit(rec({ ts: 300, kind: 'request', server: 'git', requestId: 'r2' })),
    await store.appendAudit(rec({ ts: 400, kind: 'policy', scope: bob })),
    await store.appendAudit(rec({ ts: 500, kind: 'request', scope: { ...alice, session: 's2' } })),
  ];
  assert.deepEqual(
    ids,
    [...ids].sort((a, b) => a - b),
  );
  assert.equal(new Set(ids).size, 5);
  assert.deepEqual(
    (await store.queryAudit()).map((r) => r.ts),
    [500, 400, 300, 200, 100],
  );
  assert.deepEqual(
    (await store.queryAudit({ requestId: 'r1' })).map((r) => r.kind),
    ['answer', 'request'],
  );
  assert.deepEqual(
    (await store.queryAudit({ server: 'git' })).map((r) => r.requestId),
    ['r2'],
  );
  assert.deepEqual(
    (await store.queryAudit({ kind: 'request' })).map((r) => r.ts),
    [500, 300, 100],
  );
  assert.deepEqual(
    (await store.queryAudit({ since: 300 })).map((r) => r.ts),
    [500, 400, 300],
  );
  assert.deepEqual(
    (await store.queryAudit({ limit: 2 })).map((r) => r.ts),
    [500, 400],
  );
  assert.deepEqual(
    (await store.queryAudit({ scope: { user: 'bob' } })).map((r) => r.ts),
    [400],
  );
  assert.deepEqual(
    (await store.queryAudit({ scope: { session: null } })).map((r) => r.ts),
    [400],
  );
  assert.deepEqual(
    (await store.queryAudit({ scope: { tenant: 'acme', user: 'alice', session: 's1' } })).map((r) => r.ts),
    [300, 200, 100],
  );
  assert.deepEqual(await store.queryAudit({ scope: { tenant: 'other' } }), []);
  const answer = (await store.queryAudit({ kind: 'answer' }))[0];
  assert.deepEqual(answer, {
    id: ids[1],
    ts: 200,
    scope: alice,
    server: 'files',
    kind: 'answer',
    requestId: 'r1',
    action: 'accept',
    durationMs: 1234,
  });
  await assert.rejects(async () => await store.queryAudit({ limit: 0 }), TypeError);
});

test('audit is append-only in the database: UPDATE and DELETE raise', async (t) => {
  const file = join(tempDir(t), 'ao.db');
  const store = openSqliteStore(file);
  await store.appendAudit(rec({ detail: { a: 1 } }));
  store.close();
  const raw = new Database(file);
  t.after(() => raw.close());
  assert.throws(() => raw.prepare('UPDATE audit SET kind = ?').run('forged'), /append-only: UPDATE/);
  assert.throws(() => raw.prepare('DELETE FROM audit').run(), /append-only: DELETE/);
  assert.deepEqual(raw.prepare('SELECT kind FROM audit').all(), [{ kind: 'request' }]);
  const api = openSqliteStore(file) as unknown as Record<string, unknown>;
  t.after(() => (api as unknown as Store).close());
  for (const name of ['updateAudit', 'deleteAudit', 'removeAudit']) assert.equal(api[name], undefined);
});

test('redactKeys: the secret is replaced at every depth and appears nowhere in the database or WAL bytes', async (t) => {
  const file = join(tempDir(t), 'secret.db');
  const secret = 'S3cr3t-hunter2-7f1c';
  const marker = 'visible-marker-4e2a';
  const store = openSqliteStore(file);
  const id = await store.appendAudit(
    rec({
      kind: 'answer',
      detail: { password: secret, note: marker, content: { password: secret, user: 'alice' }, nested: [{ password: secret }] },
      redactKeys: ['password'],
    }),
  );
  const [got] = await store.queryAudit({ kind: 'answer' });
  assert.equal(got.id, id);
  assert.deepEqual(got.detail, {
    password: REDACTED,
    note: marker,
    content: { password: REDACTED, user: 'alice' },
    nested: [{ password: REDACTED }],
  });
  const bytes = () => Buffer.concat([file, `${file}-wal`].filter(existsSync).map((f) => readFileSync(f)));
  const open = bytes();
  assert.ok(open.includes(marker), 'the non-secret marker is in the bytes read (so the search can fail)');
  assert.ok(!open.includes(secret), 'secret found in database/WAL bytes while open');
  store.close();
  const closed = bytes();
  assert.ok(closed.includes(marker));
  assert.ok(!closed.includes(secret), 'secret found in database bytes after close');
});

test('invalid arguments are TypeErrors naming the field', async (t) => {
  const store = openSqliteStore(':memory:');
  t.after(() => store.close());
  await assert.rejects(async () => await store.appendAudit(rec({ scope: { tenant: '', user: 'u', session: null } })), /scope\.tenant/);
  await assert.rejects(async () => await store.appendAudit(rec({ server: '' })), /server/);
  await assert.rejects(async () => await store.appendAudit(rec({ ts: Number.NaN })), /ts must be epoch milliseconds/);
  await assert.rejects(async () => await store.appendAudit(rec({ scope: { ...alice, session: '' } })), /scope\.session/);
  assert.equal((await store.queryAudit()).length, 0);
});

test('damaged pages: verify at open gives STORE_CORRUPT; reading a damaged page gives STORE_CORRUPT', async (t) => {
  const file = join(tempDir(t), 'pages.db');
  // The pages a new, empty store has (schema and every table's root page) stay intact; each migration
  // that adds a table adds a page, so their count is measured, not assumed.
  openSqliteStore(file).close();
  const schemaBytes = readFileSync(file).length;
  const store = openSqliteStore(file);
  for (let i = 0; i < 50; i++) await store.appendAudit(rec({ detail: { i, pad: 'x'.repeat(3000) } }));
  store.close();
  const bytes = readFileSync(file);
  assert.ok(bytes.length - schemaBytes >= 40_000, 'the audit rows are on pages after those of the empty store');
  const damaged = Buffer.from(bytes);
  // Overwrite every page after the empty store's pages with garbage.
  randomBytes(damaged.length - schemaBytes).copy(damaged, schemaBytes);
  writeFileSync(file, damaged);
  assert.throws(() => openSqliteStore(file, { verify: true }), storeError('STORE_CORRUPT', 'pages.db'));
  const lax = openSqliteStore(file);
  t.after(() => lax.close());
  await assert.rejects(async () => await lax.queryAudit({ limit: 1000 }), storeError('STORE_CORRUPT', 'pages.db'));
});

test('a lock held past busyTimeoutMs gives STORE_IO that names the lock and the fix', async (t) => {
  const file = join(tempDir(t), 'busy.db');
  const store = openSqliteStore(file, { busyTimeoutMs: 50 });
  t.after(() => store.close());
  const other = new Database(file);
  t.after(() => other.close());
  other.exec('BEGIN IMMEDIATE');
  const started = Date.now();
  await assert.rejects(
    async () => await store.appendAudit(rec()),
    (err: unknown) => StoreError.is(err) && err.code === 'STORE_IO' && /busyTimeoutMs/.test(err.message),
  );
  assert.ok(Date.now() - started >= 40, 'waited about the busy timeout');
  other.exec('ROLLBACK');
  assert.equal(typeof (await store.appendAudit(rec())), 'number', 'works again once the lock is released');
});

test('auditParams stores a detail that needs no redaction or excerpt as it is, and every other detail exactly as the copying path does', () => {
  const scope = { tenant: 't', user: 'u', session: null };
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  let deep: Record<string, unknown> = { leaf: 'x' };
  for (let i = 0; i < 40; i++) deep = { d: deep };
  class Thing {
    x = 1;
  }
  const cases: Array<[Record<string, unknown>, string[]]> = [
    [{ mode: 'form', message: 'hi', call: { tool: 't', callId: 'c' }, content: { a: 1, b: [true, null, 'x'] }, gone: undefined }, []],
    [{ content: { password: 'pw', nested: [{ password: 'pw2' }] } }, ['password']],
    [{ long: 'y'.repeat(AUDIT_TEXT_MAX + 1) }, []],
    [{ ['k'.repeat(AUDIT_TEXT_MAX + 5)]: 1 }, []],
    [{ when: new Date(0), thing: new Thing() }, []],
    [cyclic, []],
    [deep, []],
    [Object.assign(Object.create(null), { bare: 1 }), []],
  ];
  for (const [detail, keys] of cases) {
    const got = auditParams({ ts: 1, scope, server: 's', kind: 'answer', detail, redactKeys: keys }).detail;
    assert.equal(got, boundedDetailJson(redactDeep(detail, new Set(keys))), JSON.stringify(Object.keys(detail)));
  }
  const plain = cases[0][0];
  assert.equal(auditParams({ ts: 1, scope, server: 's', kind: 'answer', detail: plain }).detail, JSON.stringify(plain));
  assert.ok(
    !auditParams({ ts: 1, scope, server: 's', kind: 'answer', detail: cases[1][0], redactKeys: ['password'] }).detail!.includes('pw'),
  );
});
