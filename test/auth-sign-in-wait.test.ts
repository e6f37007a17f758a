// When a start that failed for want of sign-in is tried again (src/host/auth/sign-in-wait.ts): a stored
// sign-in at once, else the back-off (30 s, doubling, at most 10 min). Real in-memory credential store,
// a clock of the test's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryCredentialStore, SignInRetry, SignInWait, summarize } from '../src/host/auth/index.js';
import { SIGN_IN_CHECK_MS } from '../src/host/auth/sign-in-wait.js';

const key = { tenant: 'acme', user: 'alice', server: 'crm' };

test('the back-off: 30 s after the first failure, doubling, capped at 10 min; a success starts again at 30 s', async () => {
  let now = 1_000_000;
  const w = new SignInWait(new MemoryCredentialStore(), key, () => now);
  assert.equal(await w.mayRetry(), true, 'nothing failed yet');
  const waits: number[] = [];
  for (let i = 0; i < 7; i++) {
    await w.failed();
    waits.push(w.delayMs);
    now += w.delayMs - 1;
    assert.equal(await w.mayRetry(), false);
    now += 1;
    assert.equal(await w.mayRetry(), true);
  }
  assert.deepEqual(waits, [30_000, 60_000, 120_000, 240_000, 480_000, 600_000, 600_000]);
  assert.equal(SignInRetry.maxMs, 600_000);
  w.succeeded();
  await w.failed();
  assert.equal(w.delayMs, 30_000);
});

test('a sign-in stored after the failure ends the wait at once; a registration alone (no tokens) does not', async () => {
  const now = 5_000;
  const store = new MemoryCredentialStore();
  const w = new SignInWait(store, key, () => now);
  // The failed attempt itself stored a client registration.
  await store.put(summarize(key, 'http://127.0.0.1/mcp', { clients: { iss: { client_id: 'c' } as never } }, 1));
  await w.failed();
  assert.equal(await w.mayRetry(), false);
  await store.put(summarize(key, 'http://127.0.0.1/mcp', { clients: { iss: { client_id: 'c2' } as never } }, 2));
  assert.equal(await w.mayRetry(), false, 'no tokens: still waiting');
  // Another user's sign-in changes nothing for alice.
  await store.put(
    summarize({ ...key, user: 'bob' }, 'http://127.0.0.1/mcp', { clients: {}, tokens: { access_token: 'b', token_type: 'Bearer' } }, 3),
  );
  assert.equal(await w.mayRetry(), false);
  await store.put(summarize(key, 'http://127.0.0.1/mcp', { clients: {}, tokens: { access_token: 'a', token_type: 'Bearer' } }, 4));
  // Concurrent uses share one read and all see it.
  assert.deepEqual(await Promise.all([w.mayRetry(), w.mayRetry(), w.mayRetry()]), [true, true, true]);
  // The same tokens still there after the next failure (they did not work): wait again.
  await w.failed();
  assert.equal(await w.mayRetry(), false);
});

test('a store that cannot be read keeps the wait until the back-off passes', async () => {
  let now = 0;
  const store = new MemoryCredentialStore();
  const w = new SignInWait(store, key, () => now);
  await w.failed();
  store.get = () => Promise.reject(new Error('database is down'));
  assert.equal(await w.mayRetry(), false);
  now = 30_000;
  assert.equal(await w.mayRetry(), true);
});

test('a store that hangs: the check answers "no new sign-in" within SIGN_IN_CHECK_MS (5 s), not never', async () => {
  const store = new MemoryCredentialStore();
  const w = new SignInWait(store, key, () => 0);
  await w.failed();
  store.get = () => new Promise(() => {});
  const t0 = Date.now();
  assert.equal(await w.mayRetry(), false);
  const took = Date.now() - t0;
  assert.ok(took >= SIGN_IN_CHECK_MS - 50 && took < SIGN_IN_CHECK_MS + 3_000, `${took} ms`);
});
