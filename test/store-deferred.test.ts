// Deferred audit rows (`appendAudit(rec, { defer: true })`, docs/store.md "Deferred rows") on a real
// SQLite file: they ride along with the next ordinary commit, commit alone within `deferMs`, keep
// append order, and close() commits them. What is committed is read through a second connection, which
// (unlike queryAudit) does not commit the queue first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStore, type AuditRecord } from '../src/host/store/index.js';
import { tempDir } from './fixtures/store/tmp.js';

const scope = { tenant: 't', user: 'u', session: 's' };
const rec = (requestId: string, kind = 'request'): AuditRecord => ({ ts: Date.now(), scope, server: 'srv', kind, requestId });
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

/** The committed rows (requestId and id, in id order), as another connection sees them. */
function committed(file: string): Array<{ id: number; request_id: string }> {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT id, request_id FROM audit ORDER BY id').all() as Array<{ id: number; request_id: string }>;
  } finally {
    db.close();
  }
}

for (const synchronous of ['NORMAL', 'FULL'] as const)
  test(`synchronous=${synchronous}: a deferred row waits for the next ordinary append and commits in its transaction, before it`, async (t) => {
    const file = join(tempDir(t), 'a.db');
    const store = openSqliteStore(file, { deferMs: 60_000, synchronous });
    t.after(() => store.close());
    const early = store.appendAudit(rec('r1'), { defer: true });
    await turns(5);
    assert.deepEqual(committed(file), [], 'no commit of its own');
    const answerId = await store.appendAudit(rec('r1', 'answer'));
    const rows = committed(file);
    assert.deepEqual(
      rows.map((r) => r.request_id),
      ['r1', 'r1'],
    );
    assert.equal(await early, rows[0].id);
    assert.equal(answerId, rows[1].id);
    assert.ok(rows[0].id < rows[1].id, 'the deferred row keeps its place: ids ascend in append order');
  });

for (const synchronous of ['NORMAL', 'FULL'] as const)
  test(`synchronous=${synchronous}: a deferred row with nothing after it commits alone within deferMs`, async (t) => {
    const file = join(tempDir(t), 'b.db');
    // deferMs is far beyond the few turns looked at first: a loaded machine can deschedule this process
    // for tens of ms between them, and the bound's timer then fired before the first look.
    const deferMs = 400;
    const store = openSqliteStore(file, { deferMs, synchronous });
    t.after(() => store.close());
    const started = performance.now();
    const p = store.appendAudit(rec('alone'), { defer: true });
    await turns(3);
    assert.deepEqual(committed(file), [], 'not committed at the end of the turn');
    const id = await p;
    const waited = performance.now() - started;
    assert.deepEqual(committed(file), [{ id, request_id: 'alone' }]);
    assert.ok(waited >= deferMs - 5, `waited ${waited.toFixed(1)} ms for the bound`);
    assert.ok(waited < deferMs + 2_000, `committed within the bound (plus scheduling), took ${waited.toFixed(1)} ms`);
  });

test('mixed deferred and ordinary appends commit in append order; an audit read commits deferred rows first', async (t) => {
  const file = join(tempDir(t), 'c.db');
  const store = openSqliteStore(file, { deferMs: 60_000 });
  t.after(() => store.close());
  const names = ['d1', 'o1', 'd2', 'd3', 'o2', 'd4'];
  // d4 is queued in the same turn as o2's commit, so it rides along too.
  const ids = await Promise.all(names.map((n) => store.appendAudit(rec(n), n.startsWith('d') ? { defer: true } : undefined)));
  assert.deepEqual(
    committed(file).map((r) => r.request_id),
    names,
  );
  assert.deepEqual(
    ids,
    [...ids].sort((a, b) => a - b),
    'ids ascend in append order',
  );
  // A deferred row with nothing after it is still queued; a query sees it (it commits the queue first).
  void store.appendAudit(rec('d5'), { defer: true });
  await turns(3);
  assert.equal(committed(file).length, 6);
  assert.deepEqual(
    (await store.queryAudit({ requestId: 'd5' })).map((r) => r.requestId),
    ['d5'],
  );
  assert.equal(committed(file).length, 7);
});

test('close() commits deferred rows and resolves their promises', async (t) => {
  const file = join(tempDir(t), 'd.db');
  const store = openSqliteStore(file, { deferMs: 60_000 });
  const p = store.appendAudit(rec('at-close'), { defer: true });
  await turns(2);
  assert.deepEqual(committed(file), []);
  await store.close();
  const id = await p;
  assert.deepEqual(committed(file), [{ id, request_id: 'at-close' }]);
});

test('deferMs is checked: an integer from 0 to 60000 ms', () => {
  for (const deferMs of [-1, 1.5, 60_001, Number.NaN])
    assert.throws(() => openSqliteStore(':memory:', { deferMs }), /deferMs must be an integer from 0 to 60000 \(ms\)/);
});
