// The tenant administrator's view of OAuth sign-ins (issue 13): users who signed in with an access token
// of the configured issuer (a real OpenID provider on 127.0.0.1) are listed at /admin/signins for an
// administrator of THEIR tenant only (subject, user, tenant, first/last sign-in, token expiry; never a
// token), and one can be revoked: its tokens are refused at once on the gateway that revoked it and
// within SIGN_IN_RECHECK_MS on another gateway sharing the store; a new token signs in again. An
// administrator of another tenant can neither see nor revoke it. SQLite and PostgreSQL.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway, hashToken } from '../src/gateway/index.js';
import { SIGN_IN_RECHECK_MS } from '../src/gateway/oauth.js';
import { openPostgresStore, openSqliteStore } from '../src/host/store/index.js';
import type { Store } from '../src/host/index.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { startIssuer } from './helpers/oidc.js';
import { postModernToolsList } from './helpers/modern-request.js';
import type { Issuer, IssuerClient } from './helpers/oidc.js';
import { pgSkipReason, startPostgres } from './helpers/postgres.js';
import type { PgServer } from './helpers/postgres.js';

const ALICE: IssuerClient = { id: 'alice-app', secret: 'alice-secret', claims: { preferred_username: 'alice', tid: 'acme' } };
const BOB: IssuerClient = { id: 'bob-app', secret: 'bob-secret', claims: { preferred_username: 'bob', tid: 'acme' } };
// The same user name in the other tenant.
const EVE: IssuerClient = { id: 'eve-app', secret: 'eve-secret', claims: { preferred_username: 'alice', tid: 'globex' } };
// Both gateways serve one resource, as replicas behind one balancer do (tokens name it as audience).
const RESOURCE = 'http://127.0.0.1:8700/mcp';
const ADMIN = { acme: 'pt_signins-acme-root', globex: 'pt_signins-globex-root' } as const;

let pg: PgServer | undefined;
before(async () => {
  pg = await startPostgres();
});
after(() => pg?.stop());

const engines: Array<{
  name: string;
  location: (dir: string) => Promise<string>;
  open: (l: string) => Promise<Store>;
  skip?: () => string | undefined;
}> = [
  { name: 'SQLite', location: async (dir) => join(dir, 'g.db'), open: async (l) => openSqliteStore(l) },
  {
    name: 'PostgreSQL',
    location: async () => pg!.createDatabase(),
    open: (l) => openPostgresStore(l),
    skip: () => (pg ? undefined : pgSkipReason),
  },
];

/** A 2026-07-28 tools/list with `token`: the HTTP status. */
const list = (url: string, token: string) =>
  postModernToolsList(url, { authorization: `Bearer ${token}` }).then(async (r) => ({
    status: r.status,
    challenge: r.headers.get('www-authenticate') ?? '',
    body: await r.text(),
  }));

for (const engine of engines) {
  describe(`OAuth sign-ins in the tenant administrator's view on ${engine.name}`, () => {
    let issuer: Issuer;
    const urls: string[] = [];
    const stops: Array<() => Promise<void>> = [];
    let skipped: string | undefined;
    before(async () => {
      skipped = engine.skip?.();
      if (skipped) return;
      issuer = await startIssuer([ALICE, BOB, EVE]);
      const dir = mkdtempSync(join(tmpdir(), 'parley-gw-signins-'));
      const location = await engine.location(dir);
      // Two gateways on one store: the second stands for another replica.
      for (let i = 0; i < 2; i++) {
        const store = await engine.open(location);
        const config = gatewayConfig({ v2: fixture('v2', 'v2-dual.mjs') });
        config.gateway = {
          users: {},
          tenants: {
            acme: { users: { root: { tokenSha256: hashToken(ADMIN.acme) } }, admins: ['root'] },
            globex: { users: { root: { tokenSha256: hashToken(ADMIN.globex) } }, admins: ['root'] },
          },
          oauth: {
            issuer: issuer.issuer,
            resource: RESOURCE,
            scopes: ['mcp'],
            userClaim: 'preferred_username',
            tenantClaim: 'tid',
            algorithms: ['RS256'],
            clockSkewMs: 0,
          },
        };
        const gw = createGateway(config, { store });
        const served = await serveGateway(gw, {}, async () => {
          await store.close();
          if (i === 1) rmSync(dir, { recursive: true, force: true });
        });
        urls.push(served.url);
        stops.push(served.stop);
      }
    });
    after(async () => {
      for (const s of stops) await s();
      await issuer?.close();
    });

    const admin = async (tenant: keyof typeof ADMIN, path: string, method = 'GET', at = 0) => {
      const r = await fetch(`${new URL(urls[at]).origin}${path}`, { method, headers: { authorization: `Bearer ${ADMIN[tenant]}` } });
      return { status: r.status, text: await r.text() };
    };
    type Row = {
      subject: string;
      user: string;
      tenant: string;
      firstSignInAt: number;
      lastSignInAt: number;
      tokenExpiresAt?: number;
      revokedAt?: number;
    };
    const signins = async (tenant: keyof typeof ADMIN) => {
      const r = await admin(tenant, '/admin/signins');
      assert.equal(r.status, 200, r.text);
      const body = JSON.parse(r.text) as { tenant: string; signins: Row[] };
      assert.equal(body.tenant, tenant);
      return { rows: body.signins, text: r.text };
    };

    it('each administrator lists its own tenant’s sign-ins, without tokens; revoking another tenant’s is refused', async (t) => {
      if (skipped) return t.skip(skipped);
      const before = Date.now();
      const [alice, bob, eve] = await Promise.all([ALICE, BOB, EVE].map((c) => issuer.token(c, RESOURCE)));
      for (const tok of [alice, bob, eve]) assert.equal((await list(urls[0], tok)).status, 200);
      const acme = await signins('acme');
      assert.deepEqual(acme.rows.map((r) => `${r.tenant}/${r.user}`).sort(), ['acme/alice', 'acme/bob']);
      for (const r of acme.rows) {
        assert.ok(r.subject.length > 0);
        assert.ok(r.firstSignInAt >= before && r.lastSignInAt >= r.firstSignInAt, JSON.stringify(r));
        assert.ok(r.tokenExpiresAt! > Date.now(), 'the token expiry is in the future');
        assert.equal(r.revokedAt, undefined);
      }
      const globex = await signins('globex');
      assert.deepEqual(
        globex.rows.map((r) => `${r.tenant}/${r.user}`),
        ['globex/alice'],
      );
      for (const tok of [alice, bob, eve]) {
        assert.ok(!acme.text.includes(tok) && !globex.text.includes(tok), 'no token in the view');
        assert.ok(!acme.text.includes(hashToken(tok)) && !globex.text.includes(hashToken(tok)), 'no token hash in the view');
      }
      // acme's administrator cannot reach globex's sign-in, even by its subject: 404, nothing changes.
      const eveSubject = globex.rows[0].subject;
      const refused = await admin('acme', `/admin/signins/revoke?subject=${encodeURIComponent(eveSubject)}`, 'POST');
      assert.equal(refused.status, 404, refused.text);
      assert.equal((await signins('globex')).rows[0].revokedAt, undefined);
      assert.equal((await list(urls[0], eve)).status, 200, 'eve still signed in');
      assert.equal((await admin('acme', '/admin/signins/revoke?subject=x')).status, 405, 'revoking takes POST');
      assert.equal((await admin('acme', '/admin/signins/revoke', 'POST')).status, 400);
    });

    it('a revoked sign-in: its token refused at once here, within SIGN_IN_RECHECK_MS on the other gateway; a new token signs in again', async (t) => {
      if (skipped) return t.skip(skipped);
      const alice = await issuer.token(ALICE, RESOURCE);
      const bob = await issuer.token(BOB, RESOURCE);
      for (const u of urls) assert.equal((await list(u, alice)).status, 200, 'both gateways accept (and cache) the token');
      const subject = (await signins('acme')).rows.find((r) => r.user === 'alice')!.subject;
      const revoked = await admin('acme', `/admin/signins/revoke?subject=${encodeURIComponent(subject)}`, 'POST');
      assert.equal(revoked.status, 200, revoked.text);
      const t0 = Date.now();
      const here = await list(urls[0], alice);
      assert.equal(here.status, 401, here.body);
      assert.match(here.challenge, /invalid_token/);
      assert.match(here.challenge, /revoked by a tenant administrator/);
      let there = await list(urls[1], alice);
      while (there.status === 200 && Date.now() - t0 < SIGN_IN_RECHECK_MS + 3_000) {
        await new Promise((r) => setTimeout(r, 200));
        there = await list(urls[1], alice);
      }
      assert.equal(there.status, 401, `the other gateway still accepts the token ${Date.now() - t0} ms after the revocation`);
      assert.ok((await signins('acme')).rows.find((r) => r.subject === subject)!.revokedAt! >= t0 - 5_000);
      assert.equal((await list(urls[0], bob)).status, 200, 'bob is not affected');
      assert.equal((await list(urls[1], await issuer.token(EVE, RESOURCE))).status, 200, 'the other tenant is not affected');
      // A token issued after the revocation (iat has 1 s resolution) is a new sign-in.
      await new Promise((r) => setTimeout(r, 1_100));
      const fresh = await issuer.token(ALICE, RESOURCE);
      assert.equal((await list(urls[1], fresh)).status, 200);
      const row = (await signins('acme')).rows.find((r) => r.subject === subject)!;
      assert.ok(row.lastSignInAt > row.revokedAt!, JSON.stringify(row));
      assert.equal((await list(urls[0], alice)).status, 401, 'the revoked token stays refused');
    });
  });
}
