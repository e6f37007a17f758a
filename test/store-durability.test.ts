// SIGKILL durability: a writer killed mid-loop leaves a database that opens cleanly, in which every
// committed audit record is complete and no half-written record appears.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { openSqliteStore, REDACTED } from '../src/host/store/index.js';
import { tempDir } from './fixtures/store/tmp.js';

const LOOP = fileURLToPath(new URL('./fixtures/store/append-loop.ts', import.meta.url));

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

test('audit records survive SIGKILL of the writing process: clean open, integrity ok, every record complete', async (t) => {
  const file = join(tempDir(t), 'killed.db');
  const child = spawn(process.execPath, ['--import', 'tsx', LOOP, file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  await withTimeout(
    new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
      child.once('exit', () => reject(new Error(`writer exited before ready: ${stderr}`)));
    }),
    60_000, // bound: tsx start-up alone can take 15 s on a loaded 2-core machine
    'the writer to commit its first record',
  );
  await new Promise((r) => setTimeout(r, 300));
  child.kill('SIGKILL');
  assert.equal(await withTimeout(exited, 5_000, 'the writer to die'), 'SIGKILL');
  assert.ok(existsSync(`${file}-wal`) && statSync(`${file}-wal`).size > 0, 'the kill left a WAL to recover from');

  const raw = new Database(file);
  assert.deepEqual(raw.pragma('integrity_check', { simple: true }), 'ok');
  raw.close();

  const store = openSqliteStore(file);
  t.after(() => store.close());
  const records = await store.queryAudit({ limit: 1_000_000 });
  assert.ok(records.length > 0, 'committed records survived');
  t.diagnostic(`${records.length} records committed before SIGKILL`);
  records.reverse(); // oldest first
  records.forEach((r, i) => {
    assert.equal(r.id, i + 1, 'ids are contiguous: no record missing in the middle');
    assert.equal(r.requestId, `req-${i}`);
    assert.equal(r.durationMs, i);
    assert.equal(r.kind, 'answer');
    assert.equal(r.action, 'accept');
    assert.deepEqual(r.scope, { tenant: 'acme', user: 'alice', session: 'sess-1' });
    assert.equal(typeof r.ts, 'number');
    assert.deepEqual(r.detail?.content, { password: REDACTED, n: i });
    assert.equal(r.detail?.i, i);
    assert.equal((r.detail!.pad as string[]).join('').length, 6000, 'a multi-page record is complete');
  });
  assert.deepEqual(await store.integrityCheck(), ['ok']);
});

const ANSWERS = fileURLToPath(new URL('./fixtures/store/answer-loop.ts', import.meta.url));

for (const synchronous of ['NORMAL', 'FULL'] as const)
  test(`synchronous=${synchronous}: every answer the host confirmed before SIGKILL has its audit rows: the reply waits for the commit`, async (t) => {
    const file = join(tempDir(t), 'answers.db');
    const child = spawn(process.execPath, ['--import', 'tsx', ANSWERS, file, '200', synchronous], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const confirmed: string[] = [];
    let buf = '';
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          buf += d.toString();
          const lines = buf.split('\n');
          buf = lines.pop()!;
          for (const l of lines) if (l.startsWith('answered ')) confirmed.push(l.slice(9));
        });
        // The child kills itself in the tick of its 200th confirmation, while the next ones are in flight.
        child.once('exit', (_code, signal) =>
          signal === 'SIGKILL' ? resolve() : reject(new Error(`answer loop exited early: ${stderr}`)),
        );
      }),
      60_000,
      'the host to confirm 200 answers',
    );
    assert.equal(await withTimeout(exited, 5_000, 'the host to die'), 'SIGKILL');
    const store = openSqliteStore(file);
    t.after(() => store.close());
    const rows = await store.queryAudit({ kind: 'answer', limit: 1_000_000 });
    const audited = new Set(rows.filter((r) => r.action === 'accept').map((r) => r.requestId));
    const missing = confirmed.filter((id) => !audited.has(id));
    t.diagnostic(`${confirmed.length} answers confirmed, ${audited.size} answer rows committed before SIGKILL`);
    assert.deepEqual(missing, [], 'no confirmed answer lacks its audit row');
    // The `request` row is deferred (it rides along with the answer's commit): still there for each.
    const requested = new Set((await store.queryAudit({ kind: 'request', limit: 1_000_000 })).map((r) => r.requestId));
    assert.deepEqual(
      confirmed.filter((id) => !requested.has(id)),
      [],
      'no confirmed answer lacks its deferred request row',
    );
    assert.deepEqual(await store.integrityCheck(), ['ok']);
  });
