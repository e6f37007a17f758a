// Units of the OAuth client side that need no provider: the loopback callback listener (hostile
// requests), the credential key (PARLEY_SECRET, key file mode) and sealing, the SQLite credential
// table, and `parley auth list|logout`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CallbackServer,
  CredentialKeyError,
  CredentialDecryptError,
  loadCredentialKey,
  openSqliteCredentialStore,
  summarize,
  MAX_CALLBACK_URL_CHARS,
} from '../src/host/auth/index.js';
import { open, seal } from '../src/host/auth/secret.js';
import { runParley } from './helpers/cli.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'parley-auth-u-'));
const SECRET = { PARLEY_SECRET: 'a-test-secret-of-at-least-32-characters!' };

/** A raw GET with a chosen Host header (fetch would not let us lie about Host). */
function rawGet(port: number, path: string, host = `127.0.0.1:${port}`, method = 'GET'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

test('callback listener: only its own Host, GET, path and state; bounded target; waits end by timeout or abort', async () => {
  const cb = new CallbackServer();
  await cb.listen();
  try {
    assert.match(cb.redirectUrl, /^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback$/);
    const got = cb.expect('s'.repeat(43), 5_000);
    const port = cb.port;
    assert.equal(
      await rawGet(port, `/oauth/callback?state=${'s'.repeat(43)}&code=c`, `evil.example:${port}`),
      421,
      'DNS rebinding: foreign Host',
    );
    assert.equal(await rawGet(port, `/oauth/callback?state=${'s'.repeat(43)}&code=c`, `127.0.0.1:${port}`, 'POST'), 405);
    assert.equal(await rawGet(port, '/other?state=x'), 404);
    assert.equal(await rawGet(port, '/oauth/callback?code=c'), 400, 'no state');
    assert.equal(await rawGet(port, `/oauth/callback?state=${'t'.repeat(43)}&code=c`), 400, 'unknown state');
    assert.equal(await rawGet(port, `/oauth/callback?state=${'s'.repeat(42)}&code=c`), 400, 'a prefix of the state');
    assert.equal(await rawGet(port, `/oauth/callback?state=${'s'.repeat(43)}&x=${'a'.repeat(MAX_CALLBACK_URL_CHARS)}`), 414);
    assert.equal(cb.refused, 6);
    assert.equal(cb.waiting, 1, 'refusals leave the sign-in waiting');
    assert.equal(await rawGet(port, `/oauth/callback?state=${'s'.repeat(43)}&code=the-code&iss=x`), 200);
    assert.equal((await got).get('code'), 'the-code');
    assert.equal(await rawGet(port, `/oauth/callback?state=${'s'.repeat(43)}&code=again`), 400, 'a used state is gone');

    const t0 = Date.now();
    await assert.rejects(cb.expect('late', 150), (e: any) => e.code === 'SIGN_IN_TIMEOUT');
    assert.ok(Date.now() - t0 < 3_000);
    const ac = new AbortController();
    const aborted = cb.expect('gone', 60_000, ac.signal);
    ac.abort();
    await assert.rejects(aborted, (e: any) => e.code === 'SIGN_IN_ABORTED');
    assert.equal(cb.waiting, 0);
  } finally {
    await cb.close();
  }
});

test('credential key: PARLEY_SECRET of 32+ characters, else a 0600 key file beside the database; sealing binds the row', () => {
  const dir = tmp();
  try {
    assert.throws(
      () => loadCredentialKey({ env: { PARLEY_SECRET: 'short' } }),
      (e: any) => e instanceof CredentialKeyError && e.code === 'SECRET_TOO_SHORT',
    );
    assert.equal(loadCredentialKey({ env: SECRET }).length, 32);
    assert.throws(
      () => loadCredentialKey({ env: {}, dbFile: ':memory:' }),
      (e: any) => e.code === 'NO_KEY_LOCATION',
    );
    const db = join(dir, 'sub', 'p.db');
    const k1 = loadCredentialKey({ env: {}, dbFile: db });
    const file = join(dir, 'sub', 'credentials.key');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(loadCredentialKey({ env: {}, dbFile: db }), k1, 'the same key next time');
    chmodSync(file, 0o644);
    assert.throws(
      () => loadCredentialKey({ env: {}, dbFile: db }),
      (e: any) => e.code === 'KEY_FILE_MODE' && /chmod 600/.test(e.message),
    );

    const sealed = seal(k1, '{"t":"secret-token"}', 'row-a');
    assert.ok(!sealed.includes('secret-token'));
    assert.equal(open(k1, sealed, 'row-a'), '{"t":"secret-token"}');
    assert.throws(() => open(k1, sealed, 'row-b'), CredentialDecryptError, 'moved to another row');
    assert.throws(() => open(loadCredentialKey({ env: SECRET }), sealed, 'row-a'), CredentialDecryptError, 'another key');
    const [v, iv, tag, body] = sealed.split('.');
    // The second-to-last character changes (every one of its bits is data); checking the last one
    // instead left the body unchanged whenever its second-to-last character was already "A" (1 run in 64).
    const flipped = `${v}.${iv}.${tag}.${body!.slice(0, -2)}${body!.at(-2) === 'A' ? 'B' : 'A'}${body!.slice(-1)}`;
    assert.notEqual(flipped, sealed);
    assert.throws(() => open(k1, flipped, 'row-a'), CredentialDecryptError, 'tampered');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('parley auth list shows no secret; logout deletes one server; unknown server exits 1', async () => {
  const dir = tmp();
  const db = join(dir, 'p.db');
  try {
    const store = openSqliteCredentialStore(db, { env: SECRET });
    const key = { tenant: 'default', user: 'default', server: 'linear' };
    await store.put(
      summarize(
        key,
        'https://mcp.example.com/mcp',
        {
          clients: { 'https://as.example.com': { client_id: 'cid-123', client_secret: 'client-secret-xyz' } },
          tokens: {
            access_token: 'access-token-abc',
            token_type: 'Bearer',
            refresh_token: 'refresh-token-def',
            expires_in: 3600,
            scope: 'mcp:read',
            issuer: 'https://as.example.com',
          },
        },
        Date.now(),
        Date.now(),
      ),
    );
    await store.put(summarize({ ...key, user: 'bob' }, 'https://mcp.example.com/mcp', { clients: {} }, Date.now()));
    await store.close();

    const env = { ...SECRET };
    const list = await runParley(['auth', 'list', '--db', db], { env });
    assert.equal(list.code, 0, list.stderr);
    assert.match(
      list.stdout,
      /^linear\thttps:\/\/mcp\.example\.com\/mcp\thttps:\/\/as\.example\.com\tscope=mcp:read\texpires=\d{4}-.*\trefreshable$/m,
    );
    assert.equal(list.stdout.trim().split('\n').length, 1, "another user's rows are not listed");
    const json = await runParley(['auth', 'list', '--db', db, '--json'], { env });
    for (const secret of ['access-token-abc', 'refresh-token-def', 'client-secret-xyz', 'cid-123']) {
      assert.ok(!list.stdout.includes(secret) && !json.stdout.includes(secret), `${secret} never shown`);
    }
    assert.equal(JSON.parse(json.stdout)[0].refreshable, true);

    const out = await runParley(['auth', 'logout', 'linear', '--db', db], { env });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /signed out of linear/);
    const again = await runParley(['auth', 'logout', 'linear', '--db', db], { env });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /no stored sign-in for "linear"/);
    const short = await runParley(['auth', 'list', '--db', db], { env: { PARLEY_SECRET: 'short' } });
    assert.equal(short.code, 1);
    assert.match(short.stderr, /PARLEY_SECRET has 5 characters; at least 32/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('config: an http entry takes oauth {clientId, clientSecret, clientMetadataUrl, scope}; bad shapes name the pointer', async () => {
  const { loadHostConfig } = await import('../src/host/config/index.js');
  const { sandbox } = await import('./fixtures/config/tmp.js');
  const load = (text: string, env: Record<string, string> = {}) => {
    const s = sandbox();
    try {
      s.write('parley.json', text);
      return loadHostConfig({ cwd: s.cwd, home: s.home, env });
    } finally {
      s.cleanup();
    }
  };
  const ok = load(
    '{"servers": {"x": {"url": "https://mcp.example.com/mcp", "oauth": {"clientId": "cid", "clientSecret": "${env:CS}", "scope": "mcp:read", "clientMetadataUrl": "https://parley.example/cimd.json"}}}}',
    { CS: 'shh' },
  );
  assert.deepEqual(ok.issues, []);
  assert.deepEqual((ok.config.servers.x as any).oauth, {
    clientId: 'cid',
    clientSecret: 'shh',
    clientMetadataUrl: 'https://parley.example/cimd.json',
    scope: 'mcp:read',
  });
  const bad = load(
    '{"servers": {"a": {"url": "https://a.example/mcp", "oauth": "yes"}, "b": {"url": "https://b.example/mcp", "oauth": {"clientSecret": "s", "extra": 1}}}}',
  );
  assert.deepEqual(
    bad.issues.map((i) => [i.severity, i.path]),
    [
      ['error', '/servers/a/oauth'],
      ['warning', '/servers/b/oauth/extra'],
      ['error', '/servers/b/oauth/clientSecret'],
    ],
  );
  assert.deepEqual(Object.keys(bad.config.servers), []);
});

test('parley auth --user takes any OAuth user claim the gateway accepts (auth0|…, a+b@x), never one holding "/"', async () => {
  // A gateway with gateway.oauth keys users by their claim: 1-256 printable characters without "/".
  // The CLI's old 64-character [A-Za-z0-9._@-] rule left such users no way to sign in or out.
  const dir = tmp();
  const db = join(dir, 'p.db');
  try {
    const store = openSqliteCredentialStore(db, { env: SECRET });
    for (const user of ['auth0|5f7c8ec7c33c6c004bbafe82', 'alice+work@example.com'])
      await store.put(summarize({ tenant: 'default', user, server: 'crm' }, 'https://mcp.example.com/mcp', { clients: {} }, Date.now()));
    await store.close();
    for (const user of ['auth0|5f7c8ec7c33c6c004bbafe82', 'alice+work@example.com']) {
      const list = await runParley(['auth', 'list', '--user', user, '--db', db, '--json'], { env: SECRET });
      assert.equal(list.code, 0, list.stderr);
      assert.deepEqual(
        (JSON.parse(list.stdout) as Array<{ server: string }>).map((r) => r.server),
        ['crm'],
      );
    }
    const slash = await runParley(['auth', 'list', '--user', 'acme/alice', '--db', db], { env: SECRET });
    assert.equal(slash.code, 2);
    assert.match(slash.stderr, /--user "acme\/alice" must be 1-256 printable characters without "\/"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
