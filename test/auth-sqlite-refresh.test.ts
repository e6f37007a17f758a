// Two processes on one SQLite store (a `parley serve` and a `parley call`, or two gateways on one machine)
// share alice's sign-in to a protected server. The provider (a real oidc-provider) rotates refresh tokens
// and revokes the whole grant when a used one comes back, so the processes must never refresh with the
// same refresh token: the SQLite store's lease row (`oauth_refresh_leases`, docs/auth.md §Several
// processes) serialises their refreshes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { createHost, ScriptedPresenter, type InputRequestView } from '../src/host/index.js';
import { openSqliteCredentialStore } from '../src/host/auth/index.js';
import { startOidcStack } from './helpers/oidc-stack.js';
import { protectedServerConfig, signer } from './helpers/oauth-host.js';

const CHILD = 'test/fixtures/host/refresh-child.ts';
const key = { tenant: 'acme', user: 'alice', server: 'crm' };

function child(file: string, mcpUrl: string) {
  const p = spawn(process.execPath, ['--import', 'tsx', CHILD, file, mcpUrl], {
    env: { ...process.env, PARLEY_TEST_SKEW_MS: String(3570_000), PARLEY_TEST_CALLS: '3' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  p.stderr.on('data', (d) => (stderr += d));
  // Lines are queued as they come: a child may print before the test asks for its line (the second
  // child's "ready" while the first one's is awaited), and readline drops a line nobody listens for.
  const queued: string[] = [];
  const waiting: Array<(l: string) => void> = [];
  createInterface({ input: p.stdout }).on('line', (l) => {
    const w = waiting.shift();
    if (w) w(l);
    else queued.push(l);
  });
  const next = () =>
    new Promise<string>((resolve, reject) => {
      const l = queued.shift();
      if (l !== undefined) return resolve(l);
      const timer = setTimeout(() => reject(new Error(`child: no output in 60 s\n${stderr}`)), 60_000);
      waiting.push((l) => (clearTimeout(timer), resolve(l)));
    });
  return { p, next, stderr: () => stderr };
}

test('two processes whose stored token is due at the same moment refresh once between them (SQLite lease)', async (t) => {
  const stack = await startOidcStack({ accessTokenTtl: 3600, rotateRefreshToken: true, tokenDelayMs: 300 });
  const dir = mkdtempSync(join(tmpdir(), 'parley-sqlite-refresh-'));
  const file = join(dir, 'parley.db');
  t.after(async () => {
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  });
  // alice signs in once (a person, in a third process's place).
  const seen: InputRequestView[] = [];
  const store = openSqliteCredentialStore(file);
  const host = createHost(protectedServerConfig('crm', stack.mcpUrl), {
    presenter: new ScriptedPresenter([signer(seen)]),
    credentials: store,
    scope: { tenant: 'acme', user: 'alice' },
  });
  assert.match(JSON.stringify(await host.callTool('crm', 'whoami', {})), /hello client/);
  await host.close();
  await store.close();
  assert.equal(seen.length, 1);

  // Two processes, clocks inside the refresh window of the 1 h token, 3 overlapping calls each.
  const kids = [child(file, stack.mcpUrl), child(file, stack.mcpUrl)];
  t.after(() => kids.forEach((k) => k.p.kill('SIGKILL')));
  for (const k of kids) assert.equal(await k.next(), 'ready', k.stderr());
  const outs = kids.map((k) => k.next());
  for (const k of kids) k.p.stdin.write('go\n');
  const results = (await Promise.all(outs)).flatMap((l) => JSON.parse(l) as string[]);
  // Without the lease both refreshed with the same refresh token: the second got invalid_grant, the
  // provider revoked the grant and its calls failed with "sign-in required for crm".
  assert.deepEqual(results, Array(6).fill('hello client'), `grants: ${stack.tokenGrants.join(', ')}`);
  assert.deepEqual(stack.tokenGrants, ['authorization_code', 'refresh_token']);
});

test('the SQLite refresh lease: another holder waits at most refreshLockMs; the lease of a holder that died lapses', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-sqlite-lease-'));
  const file = join(dir, 'parley.db');
  const a = openSqliteCredentialStore(file);
  const b = openSqliteCredentialStore(file, { refreshLockMs: 300 });
  t.after(async () => {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  const holder = a.exclusive!(key, async () => (entered(), await held, 'a'));
  await inside;
  const t0 = Date.now();
  await assert.rejects(
    b.exclusive!(key, async () => 'b'),
    /another process has held the refresh of server "crm" for user "alice" of tenant "acme" for 300 ms \(refreshLockMs\)/,
  );
  assert.ok(Date.now() - t0 >= 250, 'waited');
  assert.equal(await b.exclusive!({ ...key, user: 'bob' }, async () => 'bob'), 'bob', 'another key does not wait');
  release();
  assert.equal(await holder, 'a');
  assert.equal(await b.exclusive!(key, async () => 'b'), 'b', 'released: taken at once');

  // A process that died holding the lease (its row stays) holds up the others only until the lease lapses.
  // The bound is the row's own expiry, not a stopwatch started after the insert: the steps between the
  // two (closing the database) may take any time on a loaded machine.
  const lapses = Date.now() + 150;
  const db = new Database(file);
  db.prepare('INSERT INTO oauth_refresh_leases (tenant, user, server, holder, expires_at) VALUES (?, ?, ?, ?, ?)').run(
    key.tenant,
    key.user,
    key.server,
    'dead',
    lapses,
  );
  db.close();
  let tookAt = 0;
  assert.equal(await b.exclusive!(key, async () => ((tookAt = Date.now()), 'after')), 'after');
  assert.ok(tookAt >= lapses, `taken ${lapses - tookAt} ms before the dead holder's lease lapsed`);
});
