// Replicas of one gateway share a user's sign-in to a protected upstream server through the PostgreSQL
// credential table (docs/auth.md §Several processes). Each replica is a host of its own with its own
// connection pool, as in separate processes. The provider (a real oidc-provider) rotates refresh tokens
// of public clients and, when a used refresh token comes back, revokes the whole grant: a replica that
// refreshes with the refresh token another replica already used signs the user out everywhere.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHost, HeadlessPresenter, ScriptedPresenter, type InputRequestView } from '../src/host/index.js';
import { openPostgresCredentialStore, type CredentialStore } from '../src/host/auth/index.js';
import { startOidcStack } from './helpers/oidc-stack.js';
import { protectedServerConfig, signer } from './helpers/oauth-host.js';
import { pgSkipReason, startPostgres, type PgServer } from './helpers/postgres.js';

const env = { PARLEY_SECRET: 'a-test-secret-of-at-least-32-characters!' };
const scope = { tenant: 'acme', user: 'alice' };

const config = (url: string) => protectedServerConfig('crm', url);
const text = (r: any) => (r.content ?? []).map((c: any) => c.text ?? '').join('\n');

let pg: PgServer | undefined;
before(async () => {
  pg = await startPostgres();
});
after(() => pg?.stop());

/** Two "replicas" of alice of acme on one PostgreSQL database; A signs in, B is headless. */
async function twoReplicas(t: { skip(m: string): void; after(fn: () => unknown): void }) {
  if (!pg) return void t.skip(pgSkipReason ?? 'no PostgreSQL');
  const stack = await startOidcStack({ accessTokenTtl: 3600, rotateRefreshToken: true });
  const url = await pg.createDatabase();
  const stores: CredentialStore[] = [await openPostgresCredentialStore(url, { env }), await openPostgresCredentialStore(url, { env })];
  let skew = 0;
  const now = () => Date.now() + skew;
  const seen: InputRequestView[] = [];
  const a = createHost(config(stack.mcpUrl), { presenter: new ScriptedPresenter([signer(seen)]), credentials: stores[0], scope, now });
  const b = createHost(config(stack.mcpUrl), { presenter: new HeadlessPresenter(), credentials: stores[1], scope, now });
  t.after(async () => {
    await Promise.allSettled([a.close(), b.close()]);
    for (const s of stores) await s.close();
    await stack.close();
  });
  assert.match(text(await a.callTool('crm', 'whoami', {})), /hello client/);
  assert.equal(seen.length, 1, 'A signed in once');
  assert.match(text(await b.callTool('crm', 'whoami', {})), /hello client/, 'B uses the stored sign-in');
  return { stack, a, b, seen, later: (ms: number) => void (skew += ms), stores, url };
}

const errorsOf = (grants: string[]) => grants.filter((g) => g.startsWith('error:'));

test('a replica whose token is due after another replica refreshed uses the stored new tokens, not its used refresh token', async (t) => {
  const r = await twoReplicas(t);
  if (!r) return;
  r.later(3570_000); // inside the 60 s refresh window of the 1 h token
  assert.match(text(await r.a.callTool('crm', 'whoami', {})), /hello client/);
  // Before the fix B refreshed with the refresh token A had used: invalid_grant, the provider revoked the
  // grant, B dropped the stored tokens and failed with "sign-in required for crm".
  const got = await r.b.callTool('crm', 'whoami', {}).catch((e: Error) => e);
  assert.ok(!(got instanceof Error), `B failed: ${(got as Error).message}; grants: ${r.stack.tokenGrants.join(', ')}`);
  assert.match(text(got), /hello client/);
  assert.deepEqual(r.stack.tokenGrants, ['authorization_code', 'refresh_token']);
  // A is still signed in an hour later (its grant was not revoked by B).
  r.later(3570_000);
  assert.match(text(await r.a.callTool('crm', 'whoami', {})), /hello client/);
  assert.deepEqual(errorsOf(r.stack.tokenGrants), []);
  assert.equal(r.seen.length, 1, 'nobody was asked to sign in again');
});

test('replicas whose token is due at the same moment refresh once between them (overlapping calls on both)', async (t) => {
  const r = await twoReplicas(t);
  if (!r) return;
  for (let round = 0; round < 2; round++) {
    r.later(3570_000);
    const hosts = [r.a, r.b, r.a, r.b, r.b, r.a];
    const results: PromiseSettledResult<unknown>[] = await Promise.allSettled(hosts.map((h) => h.callTool('crm', 'whoami', {})));
    for (const x of results)
      assert.equal(x.status, 'fulfilled', `${(x as PromiseRejectedResult).reason?.message}; grants: ${r.stack.tokenGrants.join(', ')}`);
  }
  assert.deepEqual(r.stack.tokenGrants, ['authorization_code', 'refresh_token', 'refresh_token']);
  assert.equal(r.seen.length, 1);
});

test('a logout by another process reaches every replica within storeRecheckMs (5 s), not when its token is due', async (t) => {
  const r = await twoReplicas(t);
  if (!r) return;
  // `parley auth logout crm --user alice --tenant acme`: the row is deleted by yet another process.
  const cli = await openPostgresCredentialStore(r.url, { env });
  t.after(() => cli.close());
  assert.equal(await cli.delete({ ...scope, server: 'crm' }), true);
  r.later(5_000); // AuthDefaults.storeRecheckMs; the 1 h token is far from its refresh window
  // Without the re-read both kept sending the access token they held in memory and were served for the hour.
  for (const [name, host] of [
    ['A', r.a],
    ['B', r.b],
  ] as const) {
    const got = await host.callTool('crm', 'whoami', {}).then(text, (e: Error) => e.message);
    assert.match(got, /sign-in required for crm \(at http:\/\/127\.0\.0\.1:\d+\) for user "alice" of tenant "acme"/, `${name}: ${got}`);
  }
  assert.deepEqual(r.stack.tokenGrants, ['authorization_code'], 'nothing refreshed');
});

test('the refresh lock: another process waits at most refreshLockMs, then gets the lock-timeout error; other keys do not wait', async (t) => {
  if (!pg) return void t.skip(pgSkipReason ?? 'no PostgreSQL');
  const url = await pg.createDatabase();
  const a = await openPostgresCredentialStore(url, { env });
  const b = await openPostgresCredentialStore(url, { env, refreshLockMs: 300 });
  t.after(async () => {
    await a.close();
    await b.close();
  });
  const key = { tenant: 'acme', user: 'alice', server: 'crm' };
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  const holder = a.exclusive!(key, async () => {
    entered();
    await held;
    return 'a';
  });
  await inside;
  const t0 = Date.now();
  await assert.rejects(
    b.exclusive!(key, async () => 'b'),
    /another process has held the refresh of server "crm" for user "alice" of tenant "acme" for 300 ms \(refreshLockMs\)/,
  );
  const waited = Date.now() - t0;
  assert.ok(waited >= 250 && waited < 5_000, `waited ${waited} ms`);
  // Another user's key is not held up.
  assert.equal(await b.exclusive!({ ...key, user: 'bob' }, async () => 'bob'), 'bob');
  release();
  assert.equal(await holder, 'a');
  // Released: the next one gets it at once.
  assert.equal(await b.exclusive!(key, async () => 'b'), 'b');
});
