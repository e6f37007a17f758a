// A team's gateway (two `parley serve --http` replicas from dist/ on one PostgreSQL, HAProxy in front,
// users of tenant acme) in front of an OAuth-protected upstream server (a real oidc-provider that rotates
// refresh tokens). Nobody can be asked to sign in inside a multi-user gateway, so the tool result must say
// how: `parley auth login <server> --user <u> --tenant <t>`, which signs that gateway user in (the browser
// is a redirect-following fetch) into the shared store; then every replica serves the user with it, and
// another user of the tenant is still asked to sign in for themselves (tokens never cross users).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { followRedirects } from '../scripts/conformance/client.js';
import { startOidcStack, type OidcStack } from './helpers/oidc-stack.js';
import { clusterSkipReason, MAIN, SECRET, startCluster, TOKENS, type Cluster } from './helpers/replicas.js';
import { isolatedEnv } from './helpers/cli.js';
import { pgSkipReason } from './helpers/postgres.js';

const text = (r: any) => (r.content ?? []).map((c: any) => c.text ?? '').join('\n');

async function client(id: string, url: string, era: 'legacy' | 'modern') {
  const c = new Client({ name: `oauth-${era}`, version: '1' }, {
    capabilities: { elicitation: { form: {} } },
    ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {}),
  } as never);
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS[id]}` } } }));
  return { call: () => c.callTool({ name: 'crm__whoami', arguments: {} }, { timeout: 60_000 } as never), close: () => c.close() };
}

/** `parley auth …` from dist/ against the cluster's configuration and store; `onUrl` gets the sign-in address. */
function parley(c: Cluster, args: string[], onUrl?: (url: string) => void) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, 'auth', ...args, '--config', join(c.dir, 'parley.json'), '--store', c.storeUrl], {
      env: { ...process.env, ...isolatedEnv(c.dir), PARLEY_SECRET: SECRET },
      cwd: c.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let seen = false;
    const timer = setTimeout(
      () => (child.kill('SIGKILL'), reject(new Error(`parley auth ${args.join(' ')}: no exit in 60 s\n${stderr}`))),
      60_000,
    );
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /^ {2}(http\S+)$/m.exec(stderr);
      if (m && !seen) (seen = true), onUrl?.(m[1]!);
    });
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
  });
}

describe('an OAuth-protected upstream server behind a team gateway (replicas, PostgreSQL, HAProxy)', { skip: clusterSkipReason }, () => {
  let c: Cluster | undefined;
  let stack: OidcStack;
  before(async () => {
    if (clusterSkipReason) return;
    stack = await startOidcStack({ rotateRefreshToken: true });
    c = await startCluster({ replicas: 2, servers: { crm: { url: stack.mcpUrl } }, policy: { allowLoopbackUrls: true } });
  });
  after(async () => {
    await c?.stop();
    await stack?.close();
  });

  it('a gateway user is told how to sign in, signs in with `parley auth login`, and every replica then serves only that user', async (t) => {
    if (!c) return t.skip(pgSkipReason);
    const alice = await client('acme/alice', c.lbUrl, 'modern');
    const bob = await client('acme/bob', c.lbUrl, 'legacy');
    t.after(() => Promise.allSettled([alice.close(), bob.close()]));

    // Before: crm's tools are left out for alice; calling one names the server, the user and the command
    // that fixes it (and so does the replica's log).
    await assert.rejects(
      alice.call(),
      /Unknown tool "crm__whoami": server "crm" is unavailable: could not start: sign-in required for crm \(at http:\/\/127\.0\.0\.1:\d+\) for user "alice" of tenant "acme"; .*`parley auth login crm --user alice --tenant acme`/,
    );
    const logs = () => c!.replicas.map((r) => r.log.join('')).join('\n');
    assert.match(logs(), /sign-in required for crm \(at http:\/\/127\.0\.0\.1:\d+\) for user "alice" of tenant "acme"/);
    assert.match(logs(), /parley auth login crm --user alice --tenant acme/);

    // A name the gateway does not know is refused (it would sign in for nobody).
    const typo = await parley(c, ['login', 'crm', '--user', 'alcie', '--tenant', 'acme']);
    assert.equal(typo.code, 2, typo.stderr);
    assert.match(typo.stderr, /no user "alcie" in tenant "acme" \(gateway\.tenants\.acme\.users in parley\.json\)/);

    const login = await parley(
      c,
      ['login', 'crm', '--user', 'alice', '--tenant', 'acme'],
      (url) => void followRedirects(url).catch(() => {}),
    );
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stderr, /crm wants you to sign in at http:\/\/127\.0\.0\.1:\d+ as user "alice" of tenant "acme"/);
    assert.match(login.stdout, /^crm: signed in as user "alice" of tenant "acme"$/m);

    // After: alice's calls through the balancer (2026-07-28: each request on either replica) succeed.
    for (let i = 0; i < 4; i++) assert.match(text(await alice.call()), /hello client/);
    // And an SDK v1 (1.32.2) client of alice on 2025-11-25, its session on one replica.
    const v1 = new V1Client({ name: 'oauth-v1', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    await v1.connect(new V1Transport(new URL(c.lbUrl), { requestInit: { headers: { authorization: `Bearer ${TOKENS['acme/alice']}` } } }));
    try {
      for (let i = 0; i < 2; i++) assert.match(text(await v1.callTool({ name: 'crm__whoami', arguments: {} })), /hello client/);
    } finally {
      await v1.close();
    }
    // bob of the same tenant is not served with alice's sign-in.
    await assert.rejects(bob.call(), /Unknown tool "crm__whoami"/);
    assert.match(logs(), /sign-in required for crm .* for user "bob" of tenant "acme".*parley auth login crm --user bob --tenant acme/);

    const listed = await parley(c, ['list', '--user', 'alice', '--tenant', 'acme', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      JSON.parse(listed.stdout).map((r: { server: string; refreshable: boolean }) => [r.server, r.refreshable]),
      [['crm', true]],
    );
    // bob holds at most the client registration of his attempt, no tokens.
    const bobs = JSON.parse((await parley(c, ['list', '--user', 'bob', '--tenant', 'acme', '--json'])).stdout);
    assert.ok(
      bobs.every((r: { refreshable: boolean; expiresAt?: number }) => !r.refreshable && r.expiresAt === undefined),
      JSON.stringify(bobs),
    );

    // Encrypted at rest, and no token in any replica's log.
    const db = new pg.Client({ connectionString: c.storeUrl });
    await db.connect();
    const raw = JSON.stringify((await db.query('SELECT * FROM oauth_credentials')).rows);
    await db.end();
    const grant = [...stack.tokenGrants];
    assert.deepEqual(grant, ['authorization_code']);
    assert.ok(!/eyJ[\w-]{10,}\./.test(raw), 'no JWT in the stored row');
    for (const r of c.replicas) assert.ok(!/eyJ[\w-]{10,}\./.test(r.log.join('')), `no JWT in replica ${r.port}'s log`);

    // `parley auth logout` reaches every replica within storeRecheckMs (5 s, docs/auth.md), although each
    // holds the hour-long access token in memory. Without the re-read both kept serving alice for the hour.
    const direct = await Promise.all(c.replicas.map((r) => client('acme/alice', r.url, 'modern')));
    t.after(() => Promise.allSettled(direct.map((d) => d.close())));
    for (const d of direct) assert.match(text(await d.call()), /hello client/);
    const out = await parley(c, ['logout', 'crm', '--user', 'alice', '--tenant', 'acme']);
    assert.equal(out.code, 0, out.stderr);
    await new Promise((r) => setTimeout(r, 5_200));
    for (const [i, d] of direct.entries()) {
      const got = await d.call().then(text, (e: Error) => e.message);
      assert.match(got, /sign-in required for crm .*for user "alice" of tenant "acme"/, `replica ${i + 1}: ${got}`);
    }
    assert.deepEqual(stack.tokenGrants, ['authorization_code'], 'nothing refreshed');
  });
});
