// Retention by age on SQLite walks ids from the oldest (migration 8, docs/store.md "Retention"). A row
// stamped while the clock ran ahead (a VM that booted with a wrong clock, then NTP stepped it back) must
// not stop the age limit for every row after it until that future time: rows older than `maxAgeMs`
// behind it are still deleted (PostgreSQL deletes by `ts` and is checked alike).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPostgresStore, openSqliteStore, type Store } from '../src/host/store/index.js';
import { forEachEngine } from './helpers/store-engines.js';

const scope = { tenant: 'acme', user: 'alice', session: 's' };
const HOUR = 3_600_000;

forEachEngine((engine) => {
  test('retention by age: a row stamped by a clock that ran ahead does not keep older rows after it', async (t) => {
    const location = await engine.location(t);
    const retention = { maxAgeMs: HOUR, intervalMs: 0 };
    const open = async (): Promise<Store> =>
      engine.name === 'sqlite' ? openSqliteStore(location, { retention }) : await openPostgresStore(location, { retention });
    const store = await open();
    const now = Date.now();
    // The clock ran a year ahead for one row, then was stepped back; the rows after it are two hours old.
    await store.appendAudit({ ts: now + 365 * 24 * HOUR, scope, server: 'files', kind: 'request', requestId: 'ahead' });
    for (let i = 0; i < 5; i++)
      await store.appendAudit({ ts: now - 2 * HOUR, scope, server: 'files', kind: 'request', requestId: `old${i}` });
    await store.appendAudit({ ts: now, scope, server: 'files', kind: 'request', requestId: 'young' });
    await store.enforceRetention();
    const left = (await store.queryAudit()).map((r) => r.requestId);
    assert.ok(left.includes('young'), 'the young row is kept');
    assert.ok(left.includes('ahead'), 'the row stamped ahead is kept, as its ts is not older than the cutoff');
    assert.deepEqual(
      left.filter((r) => r?.startsWith('old')),
      [],
      `rows two hours old are deleted by a one-hour age limit (left: ${left.join(', ')})`,
    );
    await store.close();
  });

  test('retention by age: rows stamped after the clock of the run (the clock now runs behind) are never deleted', async (t) => {
    const location = await engine.location(t);
    const retention = { maxAgeMs: HOUR, intervalMs: 0 };
    const store = engine.name === 'sqlite' ? openSqliteStore(location, { retention }) : await openPostgresStore(location, { retention });
    const now = Date.now();
    // Written while the clock ran two hours ahead; the clock has since been stepped back to now.
    for (let i = 0; i < 3; i++)
      await store.appendAudit({ ts: now + 2 * HOUR, scope, server: 'files', kind: 'request', requestId: `ahead${i}` });
    await store.appendAudit({ ts: now, scope, server: 'files', kind: 'request', requestId: 'young' });
    await store.enforceRetention();
    assert.deepEqual(
      (await store.queryAudit()).map((r) => r.requestId),
      ['young', 'ahead2', 'ahead1', 'ahead0'],
      'no row younger than the cutoff by its ts is deleted',
    );
    await store.close();
  });
});
