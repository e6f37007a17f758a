// The host as an OAuth client, against a real OpenID Provider (oidc-provider, in process on 127.0.0.1)
// in front of a protected SDK v2 server (test/helpers/oidc-stack.ts). The browser is a redirect-following
// fetch (`followRedirects`): no UI is under test here. Real SQLite for the credential store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createHost, HeadlessPresenter, ScriptedPresenter, type InputRequestView, type ServerDef } from '../src/host/index.js';
import { MAX_AUTH_BODY_BYTES, openSqliteCredentialStore } from '../src/host/auth/index.js';
import { startOidcStack } from './helpers/oidc-stack.js';
import { protectedServerConfig, signer } from './helpers/oauth-host.js';

const SECRET = { PARLEY_SECRET: 'a-test-secret-of-at-least-32-characters!' };

const config = (url: string, extra: Partial<ServerDef> = {}) => protectedServerConfig('mcp', url, extra);
const text = (r: any) =>
  (r.content ?? [])
    .filter((c: any) => c.type === 'text')
    .map((c: any) => c.text)
    .join('\n');
const tmp = () => mkdtempSync(join(tmpdir(), 'parley-auth-'));

test('first sign-in: discovery, dynamic registration, PKCE, resource; tokens encrypted in SQLite and reused by the next run', async () => {
  const stack = await startOidcStack();
  const dir = tmp();
  const db = join(dir, 'p.db');
  try {
    const seen: InputRequestView[] = [];
    const credentials = openSqliteCredentialStore(db, { env: SECRET });
    const host = createHost(config(stack.mcpUrl), { presenter: new ScriptedPresenter([signer(seen)]), credentials });
    try {
      assert.match(text(await host.callTool('mcp', 'whoami', {})), /hello client/);
    } finally {
      await host.close();
    }
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.message, `mcp wants you to sign in at ${stack.issuer}`);
    assert.equal(seen[0]!.mode, 'url');
    assert.equal(seen[0]!.url!.host, '127.0.0.1');
    assert.equal(seen[0]!.signIn?.issuer, stack.issuer);
    const auth = stack.authorizations[0]!;
    assert.equal(auth.get('code_challenge_method'), 'S256');
    assert.equal(auth.get('resource'), stack.mcpUrl);
    assert.ok(auth.get('state') && auth.get('state')!.length >= 32);
    assert.deepEqual(stack.tokenGrants, ['authorization_code']);

    const [row] = await credentials.list({ tenant: 'default', user: 'default' });
    assert.equal(row!.server, 'mcp');
    assert.equal(row!.issuer, stack.issuer);
    assert.equal(row!.refreshable, true);
    const stored = (await credentials.get({ tenant: 'default', user: 'default', server: 'mcp' }))!;
    const access = stored.secrets.tokens!.access_token;
    await credentials.close();
    // At rest: no token, no refresh token, no client id in the file's row.
    const raw = new Database(db, { readonly: true }).prepare('SELECT * FROM oauth_credentials').get() as Record<string, string>;
    assert.ok(!JSON.stringify(raw).includes(access));
    assert.ok(!JSON.stringify(raw).includes(stored.secrets.tokens!.refresh_token!));
    assert.match(raw.secrets!, /^v1\./);
    // The wrong key does not open it (reads as absent, so a new sign-in replaces it).
    const other = openSqliteCredentialStore(db, { env: { PARLEY_SECRET: 'another-secret-that-is-32-characters-long' } });
    assert.equal(await other.get({ tenant: 'default', user: 'default', server: 'mcp' }), undefined);
    await other.close();

    // The next run signs in with nobody to ask: the stored tokens are enough.
    const again = openSqliteCredentialStore(db, { env: SECRET });
    const host2 = createHost(config(stack.mcpUrl), { presenter: new HeadlessPresenter(), credentials: again });
    try {
      assert.match(
        text(
          await host2.callTool('mcp', 'whoami', {}).catch((e) => {
            throw new Error(e.message + ' grants: ' + stack.tokenGrants.join(', '));
          }),
        ),
        /hello client/,
      );
    } finally {
      await host2.close();
      await again.close();
    }
    assert.deepEqual(stack.tokenGrants, ['authorization_code']);
  } finally {
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('refresh before expiry, then a revoked refresh token: headless fails fast, a person signs in again', async () => {
  const stack = await startOidcStack({ accessTokenTtl: 3600 });
  const dir = tmp();
  const credentials = openSqliteCredentialStore(join(dir, 'p.db'), { env: SECRET });
  let skew = 0;
  try {
    const seen: InputRequestView[] = [];
    const host = createHost(config(stack.mcpUrl), { presenter: new ScriptedPresenter([signer(seen)]), credentials });
    try {
      await host.callTool('mcp', 'whoami', {});
    } finally {
      await host.close();
    }
    const first = (await credentials.get({ tenant: 'default', user: 'default', server: 'mcp' }))!.secrets.tokens!;

    // An hour later (59 min 30 s: inside the 60 s refresh window) the next request refreshes first.
    skew = 3570_000;
    const later = () => Date.now() + skew;
    const host2 = createHost(config(stack.mcpUrl), { presenter: new HeadlessPresenter(), credentials, now: later });
    try {
      assert.match(text(await host2.callTool('mcp', 'whoami', {})), /hello client/);
      // Overlapping calls when the token is due again: one refresh serves all of them.
      skew += 3570_000;
      const results = await Promise.all([1, 2, 3, 4].map(() => host2.callTool('mcp', 'whoami', {})));
      for (const r of results) assert.match(text(r), /hello client/);
    } finally {
      await host2.close();
    }
    assert.deepEqual(stack.tokenGrants, ['authorization_code', 'refresh_token', 'refresh_token']);
    const second = (await credentials.get({ tenant: 'default', user: 'default', server: 'mcp' }))!.secrets.tokens!;
    assert.notEqual(second.access_token, first.access_token);

    // Revoke the refresh token at the provider; the access token is due again.
    const rt = await stack.provider.RefreshToken.find(second.refresh_token!);
    assert.ok(rt, 'the provider knows the stored refresh token');
    await rt.destroy();
    skew += 3570_000;
    const t0 = Date.now();
    const headless = createHost(config(stack.mcpUrl), { presenter: new HeadlessPresenter(), credentials, now: later });
    try {
      await assert.rejects(headless.callTool('mcp', 'whoami', {}), /sign-in required for mcp/);
      assert.ok(Date.now() - t0 < 10_000, 'headless fails fast');
    } finally {
      await headless.close();
    }
    assert.ok(
      stack.tokenGrants.some((g) => /^error:refresh_token \(invalid_grant/.test(g)),
      stack.tokenGrants.join(', '),
    );

    const seen2: InputRequestView[] = [];
    const person = createHost(config(stack.mcpUrl), { presenter: new ScriptedPresenter([signer(seen2)]), credentials, now: later });
    try {
      assert.match(text(await person.callTool('mcp', 'whoami', {})), /hello client/);
    } finally {
      await person.close();
    }
    assert.equal(seen2.length, 1);
  } finally {
    await credentials.close();
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a forged callback (wrong or missing state) is refused and the real one still completes; a swapped PKCE challenge is refused by the provider', async () => {
  const stack = await startOidcStack();
  try {
    const refusedStatuses: number[] = [];
    const seen: InputRequestView[] = [];
    // The attacker hits the callback first: a made-up code with a wrong state, then one without state.
    const forge = signer(seen, async (u) => {
      const cb = new URL(u.searchParams.get('redirect_uri')!);
      for (const q of ['?code=stolen&state=not-the-state', '?code=stolen']) refusedStatuses.push((await fetch(cb.href + q)).status);
    });
    const host = createHost(config(stack.mcpUrl), { presenter: new ScriptedPresenter([forge]) });
    try {
      assert.match(text(await host.callTool('mcp', 'whoami', {})), /hello client/);
    } finally {
      await host.close();
    }
    assert.deepEqual(refusedStatuses, [400, 400]);
    assert.deepEqual(stack.tokenGrants, ['authorization_code'], 'the forged code never reached the token endpoint');

    // PKCE: the authorization request carries another challenge (e.g. an attacker's); the code it yields
    // does not redeem with parley's verifier, so nothing is stored and the start fails.
    const seen2: InputRequestView[] = [];
    const swap = signer(seen2, (u) => u.searchParams.set('code_challenge', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));
    const host2 = createHost(config(stack.mcpUrl), { presenter: new ScriptedPresenter([swap]) });
    try {
      await assert.rejects(host2.callTool('mcp', 'whoami', {}), /invalid_grant|grant request is invalid/);
    } finally {
      await host2.close();
    }
    assert.equal(seen2.length, 1);
    assert.ok(
      stack.tokenGrants.slice(1).every((g) => g.startsWith('error:authorization_code')),
      stack.tokenGrants.join(', '),
    );
    assert.ok(stack.tokenGrants.length > 1);
  } finally {
    await stack.close();
  }
});

test('a protected-resource metadata document naming another resource is refused before anyone is asked', async () => {
  const stack = await startOidcStack({ advertisedResource: (u) => u.replace('/mcp', '/other') });
  try {
    const seen: InputRequestView[] = [];
    const host = createHost(config(stack.mcpUrl), { presenter: new ScriptedPresenter([signer(seen)]) });
    try {
      await assert.rejects(host.callTool('mcp', 'whoami', {}), /resource/i);
    } finally {
      await host.close();
    }
    assert.equal(seen.length, 0, 'no sign-in prompt for a mismatched resource');
    assert.equal(stack.authorizations.length, 0);
    assert.deepEqual(stack.tokenGrants, []);
  } finally {
    await stack.close();
  }
});

test('a sign-in nobody completes ends after signInTimeoutMs; a declined sign-in fails at once; neither restarts the server', async () => {
  const stack = await startOidcStack();
  try {
    const idle = createHost(config(stack.mcpUrl), { presenter: new ScriptedPresenter([{ action: 'accept' }]), signInTimeoutMs: 800 });
    const t0 = Date.now();
    try {
      await assert.rejects(idle.callTool('mcp', 'whoami', {}), /sign-in for mcp did not complete: no sign-in completed within 800 ms/);
      assert.ok(Date.now() - t0 < 15_000);
      const st = idle.listServers()[0]!.state;
      assert.equal(st.status, 'error');
      assert.equal((st as { nextRetryAt?: number }).nextRetryAt, undefined, 'no automatic restart (it would ask again)');
    } finally {
      await idle.close();
    }
    const declined = createHost(config(stack.mcpUrl), { presenter: new ScriptedPresenter([{ action: 'decline' }]) });
    try {
      await assert.rejects(declined.callTool('mcp', 'whoami', {}), /sign-in for mcp was declined/);
    } finally {
      await declined.close();
    }
  } finally {
    await stack.close();
  }
});

/**
 * A host signed in to the stack, with the clock moved into the refresh window and the token endpoint
 * made to misbehave (`fault`): the second call's refresh must give up and the call go on with the
 * token held. Returns the host's log lines and how long that call took (ms).
 */
async function dueRefreshAgainst(
  fault: 'hangTokenEndpoint' | 'stallTokenBody' | 'floodTokenBody',
  authFetchMs?: number,
): Promise<{ logs: string[]; ms: number; floodChunks: number }> {
  const stack = await startOidcStack({ accessTokenTtl: 3600 });
  const dir = tmp();
  const credentials = openSqliteCredentialStore(join(dir, 'p.db'), { env: SECRET });
  let skew = 0;
  const logs: string[] = [];
  const host = createHost(config(stack.mcpUrl), {
    presenter: new ScriptedPresenter([signer([])]),
    credentials,
    now: () => Date.now() + skew,
    ...(authFetchMs !== undefined ? { authFetchMs } : {}),
    log: (_l, m) => void logs.push(m),
  });
  try {
    assert.match(text(await host.callTool('mcp', 'whoami', {})), /hello client/);
    skew = 3570_000; // inside the refresh window
    stack[fault] = true;
    const t0 = Date.now();
    assert.match(text(await host.callTool('mcp', 'whoami', {})), /hello client/);
    return { logs, ms: Date.now() - t0, floodChunks: stack.floodChunks };
  } finally {
    await host.close();
    await credentials.close();
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const gaveUp = /refreshing the access token failed \(.*did not answer within 500 ms \(authFetchMs\)/;

test('a hung authorization server: a due refresh gives up after authFetchMs and the request goes on with the token held', {
  timeout: 60_000,
}, async () => {
  // Before the bound the refresh waited for undici's 300 s, and the call with it.
  const { logs, ms } = await dueRefreshAgainst('hangTokenEndpoint', 500);
  assert.ok(ms < 10_000, `took ${ms} ms`);
  assert.ok(
    logs.some((m) => gaveUp.test(m)),
    logs.join('\n'),
  );
});

test('an authorization server that sends headers then stalls the body: the refresh still gives up after authFetchMs', {
  timeout: 30_000,
}, async () => {
  // Before, the bound ended at the headers: the body read (and the refresh, under the store's lock) hung.
  const { logs, ms } = await dueRefreshAgainst('stallTokenBody', 500);
  assert.ok(ms < 10_000, `took ${ms} ms`);
  assert.ok(
    logs.some((m) => gaveUp.test(m)),
    logs.join('\n'),
  );
});

test('nobody to ask: the sign-in hint for a gateway user whose claim holds shell characters runs as printed (quoted)', async () => {
  const stack = await startOidcStack();
  const dir = tmp();
  const credentials = openSqliteCredentialStore(join(dir, 'p.db'), { env: SECRET });
  const host = createHost(config(stack.mcpUrl), {
    presenter: new HeadlessPresenter(),
    credentials,
    scope: { tenant: 'acme', user: "auth0|5f7c'x" },
  });
  try {
    const err = await host.callTool('mcp', 'whoami', {}).then(
      () => assert.fail('no sign-in should succeed'),
      (e: Error) => e,
    );
    assert.ok(err.message.includes("`parley auth login mcp --user 'auth0|5f7c'\\''x' --tenant acme`"), err.message);
  } finally {
    await host.close();
    await credentials.close();
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an authorization server answering without end: the refresh stops reading at MAX_AUTH_BODY_BYTES and the call goes on', {
  timeout: 30_000,
}, async () => {
  assert.equal(MAX_AUTH_BODY_BYTES, 1024 * 1024);
  const { logs, floodChunks } = await dueRefreshAgainst('floodTokenBody');
  assert.ok(
    logs.some((m) => /over 1048576 bytes \(MAX_AUTH_BODY_BYTES\)/.test(m)),
    logs.join('\n'),
  );
  assert.ok(floodChunks < 200, `the token endpoint wrote ${floodChunks} chunks of 64 KiB`);
});
