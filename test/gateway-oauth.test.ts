// The gateway as an OAuth protected resource (issue 14 item 5): a real OpenID provider (oidc-provider on
// 127.0.0.1) issues JWT access tokens for the gateway's resource URL; SDK v2 clients with an OAuth provider
// discover where to sign in from the gateway's 401 and RFC 9728 metadata; bad tokens get the right
// WWW-Authenticate; static tokens keep working; two users' tokens map to two isolated users.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway, hashToken } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { loadConfigValue } from '../src/host/index.js';
import { openSqliteStore } from '../src/host/store/index.js';
import type { GatewayOAuthDef, Store } from '../src/host/index.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { text } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { startIssuer } from './helpers/oidc.js';
import { postModernToolsList } from './helpers/modern-request.js';
import { exitOf, isolatedEnv, CLI } from './helpers/cli.js';
import type { Issuer, IssuerClient } from './helpers/oidc.js';
import { verifies } from './helpers/verifies.js';

const ALICE: IssuerClient = { id: 'alice-app', secret: 'alice-secret', claims: { preferred_username: 'alice', tid: 'acme' } };
const BOB: IssuerClient = { id: 'bob-app', secret: 'bob-secret', claims: { preferred_username: 'bob', tid: 'acme' } };
const EVE: IssuerClient = { id: 'eve-app', secret: 'eve-secret', claims: { preferred_username: 'alice', tid: 'other' } };
const SHORT: IssuerClient = { id: 'short-app', secret: 'short-secret', claims: { preferred_username: 'sam', tid: 'acme' }, ttl: 1 };
const OPAQUE: IssuerClient = {
  id: 'opaque-app',
  secret: 'opaque-secret',
  claims: { preferred_username: 'olga', tid: 'acme' },
  format: 'opaque',
};
const STATIC = 'pt_static-carol-token';

async function setup(oauth: (issuer: string) => Partial<GatewayOAuthDef>, env: Record<string, string> = {}) {
  const issuer = await startIssuer([ALICE, BOB, EVE, SHORT, OPAQUE], [{ id: 'gateway-rs', secret: 'rs-secret' }]);
  const dir = mkdtempSync(join(tmpdir(), 'parley-gw-oauth-'));
  const store = openSqliteStore(join(dir, 'g.db'));
  const config = gatewayConfig({ v2: fixture('v2', 'v2-dual.mjs') });
  config.gateway = {
    users: { carol: { tokenSha256: hashToken(STATIC) } },
    oauth: {
      issuer: issuer.issuer,
      scopes: ['mcp'],
      userClaim: 'preferred_username',
      tenantClaim: 'tid',
      algorithms: ['RS256'],
      clockSkewMs: 0,
      ...oauth(issuer.issuer),
    },
  };
  const gw = createGateway(config, { store, env: { ...process.env, ...env } });
  const { url, stop } = await serveGateway(gw, {}, () => (store.close(), rmSync(dir, { recursive: true, force: true })));
  return { issuer, gw, url, store, stop: async () => (await stop(), await issuer.close()) };
}

const post = postModernToolsList;

describe('gateway: OAuth access tokens from a configured issuer (JWT via JWKS)', () => {
  let issuer: Issuer;
  let gw: Gateway;
  let url: string;
  let store: Store;
  let stop: () => Promise<void>;
  before(async () => ({ issuer, gw, url, store, stop } = await setup(() => ({}))));
  after(() => stop());

  const oauthClient = (c: IssuerClient, mode?: 'auto') => {
    const client = new Client({ name: c.id, version: '1.0.0' }, mode ? ({ protocolVersion: '2026-07-28' } as never) : undefined);
    const provider = new ClientCredentialsProvider({ clientId: c.id, clientSecret: c.secret, expectedIssuer: issuer.issuer, scope: 'mcp' });
    return { client, connect: () => client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider })) };
  };

  it('serves RFC 9728 metadata at the root and the path-suffixed well-known URL', async () => {
    verifies('AUTH-RS-PRM');
    const origin = new URL(url).origin;
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await fetch(origin + path);
      assert.equal(res.status, 200, path);
      const doc = (await res.json()) as {
        resource: string;
        authorization_servers: string[];
        scopes_supported: string[];
        bearer_methods_supported: string[];
      };
      assert.equal(doc.resource, url);
      assert.deepEqual(doc.authorization_servers, [issuer.issuer]);
      assert.deepEqual(doc.scopes_supported, ['mcp']);
      assert.deepEqual(doc.bearer_methods_supported, ['header']);
    }
    assert.equal((await fetch(`${origin}/.well-known/oauth-protected-resource/other`)).status, 404);
  });

  it('answers a request without credentials 401 with resource_metadata and no error code', async () => {
    const res = await post(url);
    assert.equal(res.status, 401);
    assert.equal(
      res.headers.get('www-authenticate'),
      `Bearer resource_metadata="${new URL(url).origin}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
    );
  });

  it('an SDK v2 client with an OAuth provider discovers the issuer from the 401 and connects (2025-11-25 and 2026-07-28)', async () => {
    for (const mode of [undefined, 'auto'] as const) {
      const { client, connect } = oauthClient(ALICE, mode);
      await connect();
      const tools = await client.listTools();
      assert.ok(
        tools.tools.some((t) => t.name === 'v2__ask'),
        JSON.stringify(tools.tools.map((t) => t.name)),
      );
      await client.close();
    }
    assert.ok(gw.space('acme/alice').host, 'alice of tenant acme has her own space');
    assert.equal(gw.space('acme/alice').tenant, 'acme');
  });

  it("two users' tokens map to two isolated users; the same name in another tenant is a third", async () => {
    const a = oauthClient(ALICE);
    const b = oauthClient(BOB);
    const e = oauthClient(EVE);
    await Promise.all([a.connect(), b.connect(), e.connect()]);
    const ask = (c: Client) => c.callTool({ name: 'v2__ask', arguments: {} });
    // No elicitation capability upstream, headless fallback: each gets parley's refusal in their own space.
    const outs = await Promise.all([ask(a.client), ask(b.client), ask(e.client)]);
    for (const o of outs) assert.match(text(o), /parley:/);
    const keys = [...['acme/alice', 'acme/bob', 'other/alice']];
    for (const k of keys) assert.ok(gw.stats().users >= 3 && gw.space(k).host, k);
    // Audit rows are keyed by tenant and user.
    for (const [tenant, user] of [
      ['acme', 'alice'],
      ['acme', 'bob'],
      ['other', 'alice'],
    ]) {
      const rows = await store.queryAudit({ scope: { tenant, user }, limit: 100 });
      assert.ok(rows.length > 0, `${tenant}/${user} has audit rows`);
      assert.ok(
        rows.every((r) => r.scope.tenant === tenant && r.scope.user === user),
        `${tenant}/${user} sees only their rows`,
      );
    }
    // alice's 2025-era session is not bob's: bob's token with alice's MCP-Session-Id gets 404.
    const sid = (a.client.transport as StreamableHTTPClientTransport).sessionId!;
    const bobToken = await issuer.token(BOB, url);
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${bobToken}`,
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    assert.equal(res.status, 404);
    await Promise.all([a.client.close(), b.client.close(), e.client.close()]);
  });

  it('refuses a token for another resource (audience) with 401 invalid_token', async () => {
    verifies(['AUTH-RS-AUDIENCE', 'AUTH-RS-401']);
    const token = await issuer.token(ALICE, 'http://127.0.0.1:1/other');
    const res = await post(url, { authorization: `Bearer ${token}` });
    assert.equal(res.status, 401);
    const h = res.headers.get('www-authenticate') ?? '';
    assert.match(h, /^Bearer error="invalid_token"/);
    assert.match(h, /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/);
    assert.match(h, /not issued for this resource/);
  });

  it('refuses an expired token with 401 invalid_token', async () => {
    const token = await issuer.token(SHORT, url);
    assert.equal((await post(url, { authorization: `Bearer ${token}` })).status, 200, 'valid while fresh');
    await new Promise((r) => setTimeout(r, 2100));
    const res = await post(url, { authorization: `Bearer ${token}` });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token".*expired/);
  });

  it('refuses a token of another issuer, signed with the right key, with 401 invalid_token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const good = { sub: 'alice-app', preferred_username: 'alice', tid: 'acme', aud: url, scope: 'mcp', iat: now, exp: now + 300 };
    assert.equal(
      (await post(url, { authorization: `Bearer ${await issuer.forge({ ...good, iss: issuer.issuer })}` })).status,
      200,
      'negative control: the forged token with the right iss passes',
    );
    const res = await post(url, { authorization: `Bearer ${await issuer.forge({ ...good, iss: 'http://127.0.0.1:9/evil' })}` });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token".*iss claim is not acceptable/);
  });

  it('refuses a token with a bad signature with 401 invalid_token', async () => {
    const token = await issuer.token(ALICE, url);
    const [h, p, s] = token.split('.');
    const flipped = `${h}.${p}.${s.startsWith('A') ? 'B' : 'A'}${s.slice(1)}`;
    const res = await post(url, { authorization: `Bearer ${flipped}` });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    // A payload from elsewhere under the provider's header and signature.
    const other = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), preferred_username: 'bob' }),
    ).toString('base64url');
    assert.equal((await post(url, { authorization: `Bearer ${h}.${other}.${s}` })).status, 401);
  });

  it('refuses a token without the required scope with 403 insufficient_scope', async () => {
    const token = await issuer.token(ALICE, url, 'admin');
    const res = await post(url, { authorization: `Bearer ${token}` });
    assert.equal(res.status, 403);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer error="insufficient_scope".*scope="mcp".*resource_metadata=/);
  });

  it('a static bearer token still works beside OAuth, and a wrong one gets 401', async () => {
    const ok = await post(url, { authorization: `Bearer ${STATIC}` });
    assert.equal(ok.status, 200);
    assert.ok(gw.space('carol'));
    const bad = await post(url, { authorization: 'Bearer pt_not-a-known-token' });
    assert.equal(bad.status, 401);
    assert.match(bad.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  });
});

describe('gateway: OAuth access tokens checked by RFC 7662 introspection', () => {
  let issuer: Issuer;
  let url: string;
  let stop: () => Promise<void>;
  before(
    async () =>
      ({ issuer, url, stop } = await setup(() => ({ introspection: { clientId: 'gateway-rs', clientSecretEnv: 'TEST_RS_SECRET' } }), {
        TEST_RS_SECRET: 'rs-secret',
      })),
  );
  after(() => stop());

  it('accepts an active opaque token for this resource and refuses one for another resource', async () => {
    const token = await issuer.token(OPAQUE, url);
    assert.ok(!token.includes('.'), 'opaque, not a JWT');
    assert.equal((await post(url, { authorization: `Bearer ${token}` })).status, 200);
    const other = await issuer.token(OPAQUE, 'http://127.0.0.1:1/other');
    const res = await post(url, { authorization: `Bearer ${other}` });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const unknown = await post(url, { authorization: 'Bearer not-a-token-the-issuer-knows' });
    assert.equal(unknown.status, 401);
    assert.match(unknown.headers.get('www-authenticate') ?? '', /not active/);
  });
});

describe('gateway.oauth configuration', () => {
  const load = (oauth: unknown) =>
    loadConfigValue({ mcpServers: { a: { command: 'x' } }, gateway: { oauth } }, { cwd: '/tmp', home: '/tmp', env: {} }, 'parley.json');

  it('reads a full section with defaults', () => {
    const r = load({ issuer: 'https://login.example.com', tenantClaim: 'tid' });
    assert.deepEqual(r.issues, []);
    assert.deepEqual(r.layer?.gateway.oauth, {
      issuer: 'https://login.example.com',
      scopes: [],
      userClaim: 'sub',
      tenantClaim: 'tid',
      algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      clockSkewMs: 5000,
    });
  });

  it('names the pointer, the rule and the fix for each bad field, and drops the section', () => {
    const r = load({
      issuer: 'http://login.example.com',
      resource: 'https://x/mcp#frag',
      algorithms: ['HS256'],
      introspection: { clientId: 'gw', clientSecret: 's3cret' },
      userClaim: 'a b',
      clockSkewMs: -1,
    });
    const by = Object.fromEntries(r.issues.filter((i) => i.severity === 'error').map((i) => [i.path, i]));
    assert.match(by['/gateway/oauth/issuer'].message, /must be https/);
    assert.match(by['/gateway/oauth/resource'].message, /#fragment/);
    assert.match(by['/gateway/oauth/algorithms'].message, /asymmetric only/);
    assert.match(by['/gateway/oauth/introspection/clientSecret'].fix ?? '', /clientSecretEnv/);
    assert.ok(!JSON.stringify(r.issues).includes('s3cret'), 'the secret is never echoed');
    assert.ok(by['/gateway/oauth/userClaim']);
    assert.ok(by['/gateway/oauth/clockSkewMs']);
    assert.equal(r.layer?.gateway.oauth, undefined);
    assert.match(load({}).issues[0].message, /needs "issuer"/);
  });
});

describe('parley serve --http with gateway.oauth', () => {
  it('says which issuer it trusts, serves the metadata and challenges with resource_metadata', { timeout: 120_000 }, async () => {
    const issuer = await startIssuer([ALICE]);
    const dir = mkdtempSync(join(tmpdir(), 'parley-serve-oauth-'));
    const cfg = join(dir, 'parley.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        mcpServers: {
          v2: { command: process.execPath, args: [fileURLToPath(new URL('./fixtures/servers-host/v2-dual.mjs', import.meta.url))] },
        },
        gateway: { oauth: { issuer: issuer.issuer, userClaim: 'preferred_username' } },
      }),
    );
    const child = spawn(process.execPath, [...CLI, 'serve', '--http', '--headless', '--config', cfg, '--db', join(dir, 'g.db')], {
      cwd: dir,
      env: { ...process.env, ...isolatedEnv(dir) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      let err = '';
      const url = await new Promise<string>((res, rej) => {
        const t = setTimeout(() => rej(new Error(`no URL within 60 s: ${err}`)), 60_000);
        child.stderr!.on('data', (d) => {
          err += d;
          const m = /serving MCP at (\S+)/.exec(err);
          if (m && /accepting OAuth access tokens/.test(err)) clearTimeout(t), res(m[1]);
        });
      });
      assert.match(err, new RegExp(`accepting OAuth access tokens of ${issuer.issuer} for resource ${url}`));
      const res = await post(url);
      assert.equal(res.status, 401);
      assert.match(
        res.headers.get('www-authenticate') ?? '',
        /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
      );
      const doc = (await (await fetch(`${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`)).json()) as {
        resource: string;
        authorization_servers: string[];
      };
      assert.deepEqual(doc, { ...doc, resource: url, authorization_servers: [issuer.issuer] });
      const token = await issuer.token(ALICE, url);
      assert.equal((await post(url, { authorization: `Bearer ${token}` })).status, 200);
    } finally {
      child.kill('SIGTERM');
      await exitOf(child);
      await issuer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
