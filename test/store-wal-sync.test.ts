// Group commit with synchronous=FULL: the batch commits on the event loop without a sync, the WAL's
// fsync runs on libuv's thread pool, and an append resolves only after that fsync; appends made while
// an fsync is in flight are committed together when it completes. While the fsync is
// held here (fs.fsync intercepted), the process keeps serving: timers run and reads see the row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { openSqliteStore } from '../src/host/store/index.js';
import { tempDir } from './fixtures/store/tmp.js';

const rec = (n: number) => ({ ts: n, scope: { tenant: 'default', user: 'u', session: null }, kind: 'request' as const, server: 's' });

test('appendAudit on a FULL file store: committed at once, resolved only after an fsync off the event loop, which covers batches committed meanwhile', async (t) => {
  const dir = tempDir(t);
  const store = openSqliteStore(join(dir, 'a.db'), { synchronous: 'FULL' });
  const held: Array<(err: Error | null) => void> = [];
  const real = fs.fsync;
  fs.fsync = ((fd: number, cb: (err: Error | null) => void) => void held.push(cb)) as typeof fs.fsync;
  syncBuiltinESMExports();
  t.after(() => {
    fs.fsync = real;
    syncBuiltinESMExports();
  });
  let resolved = 0;
  const first = store.appendAudit(rec(1)).then((id) => (resolved++, id));
  // The batch commits at setImmediate; then its fsync is asked for and held.
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(held.length, 1, 'one fsync of the WAL was started for the committed batch');
  assert.equal(resolved, 0, 'the append does not resolve before its fsync');
  assert.equal((await store.queryAudit({})).length, 1, 'the row is committed and readable meanwhile');
  // Another batch commits while the first fsync is in flight; it waits for the next fsync.
  const second = store.appendAudit(rec(2)).then((id) => (resolved++, id));
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(held.length, 1, 'one fsync at a time');
  assert.equal((await store.queryAudit({})).length, 2, 'a read sees every append made before it, also one waiting for the fsync');
  held.shift()!(null);
  assert.equal(await first, 1);
  assert.equal(resolved, 1, 'the second batch committed after the first fsync started, so it waits for its own');
  await new Promise((r) => setImmediate(r));
  assert.equal(held.length, 1, 'the next fsync covers the batches committed meanwhile');
  held.shift()!(null);
  assert.equal(await second, 2);
  assert.deepEqual((await store.settings()).synchronous, 'FULL', 'other writes still commit with FULL');
  // A failed fsync rejects the batches it covered.
  const third = store.appendAudit(rec(3));
  await new Promise((r) => setTimeout(r, 5));
  held.shift()!(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
  await assert.rejects(third, /append an audit record/);
  fs.fsync = real;
  syncBuiltinESMExports();
  await store.close();
});

test('an append queued while a transaction() is open commits when the transaction ends', async (t) => {
  for (const synchronous of ['FULL', 'NORMAL'] as const) {
    const store = openSqliteStore(join(tempDir(t), `${synchronous}.db`), { synchronous });
    let appended: Promise<number> | undefined;
    await store.transaction(async (tx) => {
      appended = store.appendAudit(rec(1));
      // The group commit's turn passes while the transaction holds the store.
      await new Promise((r) => setTimeout(r, 20));
      await tx.loadPreset({ tenant: 'default', user: 'u', session: null }, 'none').catch(() => undefined);
    });
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${synchronous}: the append did not commit within 2000 ms after the transaction`)), 2000);
    });
    assert.equal(await Promise.race([appended!, bound]).finally(() => clearTimeout(timer)), 1);
    await store.close();
  }
});
