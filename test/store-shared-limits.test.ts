// What replicas share through the store besides rows (issue 13): the broker's token bucket per (tenant,
// user, server), taken in one statement so two processes on one database never both take the last token
// (PostgreSQL only: a SQLite store has no takeRateToken, its broker counts in memory), and OAuth sign-ins
// with their revocation by a tenant administrator (both engines). Two store handles on one database
// stand in for two replicas (each its own connection or pool).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { openPostgresStore, openSqliteStore } from '../src/host/store/index.js';
import type { Store } from '../src/host/store/index.js';
import { forEachEngine } from './helpers/store-engines.js';

const bucket = (over: Partial<{ tenant: string; user: string; server: string; burst: number; ratePerMinute: number }> = {}) => ({
  tenant: 'acme',
  user: 'alice',
  server: 'sales',
  burst: 3,
  ratePerMinute: 6, // one token per 10 000 ms
  ...over,
});

forEachEngine((engine) => {
  const second = async (location: string, t: Parameters<typeof engine.open>[0]): Promise<Store> => {
    const s = engine.name === 'sqlite' ? openSqliteStore(location) : await openPostgresStore(location);
    t.after(() => s.close());
    return s;
  };

  // SQLite: no shared bucket (src/host/store/rate-limits.ts says why); the broker keeps its own.
  const pgOnly = engine.name === 'sqlite' ? 'SQLite has no takeRateToken (the broker counts in memory)' : false;

  it('a SQLite store offers no shared bucket', { skip: engine.name !== 'sqlite' }, async (t) => {
    assert.equal((await engine.open(t)).takeRateToken, undefined);
  });

  it('a bucket gives burst tokens, then one per 60000/ratePerMinute ms; keys are (tenant, user, server)', { skip: pgOnly }, async (t) => {
    const store = await engine.open(t);
    const t0 = 1_700_000_000_000;
    const takes = [];
    for (let i = 0; i < 4; i++) takes.push(await store.takeRateToken!(bucket(), t0));
    assert.deepEqual(takes, [true, true, true, false]);
    assert.equal(await store.takeRateToken!(bucket(), t0 + 9_000), false, 'less than one token refilled');
    assert.equal(await store.takeRateToken!(bucket(), t0 + 10_000), true, 'one token after 10 s');
    assert.equal(await store.takeRateToken!(bucket(), t0 + 10_000), false);
    // Other keys have their own buckets: another tenant with the same user name, another user, another server.
    for (const other of [{ tenant: 'globex' }, { user: 'bob' }, { server: 'charts' }])
      assert.equal(await store.takeRateToken!(bucket(other), t0), true, JSON.stringify(other));
    // Never more than burst, however long idle; a clock behind the stored one refills nothing.
    const later = t0 + 3_600_000;
    const idle = [];
    for (let i = 0; i < 4; i++) idle.push(await store.takeRateToken!(bucket(), later));
    assert.deepEqual(idle, [true, true, true, false]);
    assert.equal(await store.takeRateToken!(bucket(), later - 60_000), false);
    await assert.rejects(store.takeRateToken!(bucket({ tenant: '' }), t0), TypeError);
  });

  it('two processes on one database taking at once: exactly burst tokens pass, never one more', { skip: pgOnly }, async (t) => {
    const location = await engine.location(t);
    const a = await second(location, t);
    const b = await second(location, t);
    const now = Date.now();
    const b5 = bucket({ burst: 5, ratePerMinute: 0 });
    const got = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 ? a : b).takeRateToken!(b5, now)));
    assert.equal(got.filter(Boolean).length, 5, `passed: ${got.map((x) => (x ? 1 : 0)).join('')}`);
    assert.equal(await a.takeRateToken!(b5, now + 1), false);
  });

  it('OAuth sign-ins: recorded without tokens, listed per tenant, revoked for every token issued before', async (t) => {
    const location = await engine.location(t);
    const a = await second(location, t);
    const b = await second(location, t);
    const iss = 'http://127.0.0.1:1/issuer';
    const use = (o: { at: number; expiresAt?: number; issuedAt?: number; subject?: string }) => ({
      tenant: 'acme',
      issuer: iss,
      subject: 'sub-alice',
      user: 'alice',
      ...o,
    });
    assert.equal(await a.recordSignIn!(use({ at: 1000, expiresAt: 5000, issuedAt: 900 })), true);
    assert.equal(await b.recordSignIn!(use({ at: 2000, expiresAt: 5000, issuedAt: 900 })), true, 'the same token again');
    assert.equal(await b.recordSignIn!(use({ at: 3000, expiresAt: 9000, issuedAt: 2900 })), true, 'a newer token');
    assert.equal(await a.recordSignIn!(use({ at: 3500, expiresAt: 5000, issuedAt: 900 })), true, 'the older token, still valid');
    assert.equal(await a.recordSignIn!({ ...use({ at: 1500, expiresAt: 7000 }), tenant: 'globex' }), true);
    assert.deepEqual(await a.listSignIns!('acme'), [
      { tenant: 'acme', issuer: iss, subject: 'sub-alice', user: 'alice', firstSignInAt: 1000, lastSignInAt: 3000, tokenExpiresAt: 9000 },
    ]);
    assert.deepEqual(
      (await b.listSignIns!('globex')).map((r) => [r.tenant, r.subject]),
      [['globex', 'sub-alice']],
    );
    // Revoked in acme: tokens issued before are refused on every handle; globex's row is untouched.
    assert.equal(await b.revokeSignIn!('acme', 'sub-alice', 4000), true);
    assert.equal(await b.revokeSignIn!('acme', 'nobody', 4000), false);
    assert.equal(await a.recordSignIn!(use({ at: 4100, expiresAt: 9000, issuedAt: 2900 })), false);
    assert.equal(await b.recordSignIn!(use({ at: 4200, expiresAt: 5000 })), false, 'no iat: exp not past the newest known');
    assert.equal((await a.listSignIns!('acme'))[0].revokedAt, 4000);
    assert.equal((await a.listSignIns!('globex'))[0].revokedAt, undefined);
    assert.equal(await a.recordSignIn!({ ...use({ at: 4300, expiresAt: 7000 }), tenant: 'globex' }), true);
    // A token issued after the revocation is a new sign-in; the old tokens stay refused.
    assert.equal(await a.recordSignIn!(use({ at: 5000, expiresAt: 20_000, issuedAt: 4500 })), true);
    assert.equal(await a.recordSignIn!(use({ at: 5100, expiresAt: 9000, issuedAt: 2900 })), false);
    const [row] = await b.listSignIns!('acme');
    assert.equal(row.revokedAt, 4000);
    assert.equal(row.lastSignInAt, 5000);
    assert.equal(row.tokenExpiresAt, 20_000);
    assert.equal(row.firstSignInAt, 1000);
    await assert.rejects(a.recordSignIn!(use({ subject: '', at: 1 })), TypeError);
  });
});
