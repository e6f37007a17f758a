// An OAuth user claim cannot name another tenant's space. Inside the gateway a space is `<user>` in tenant
// `default` and `<tenant>/<user>` elsewhere; without `gateway.oauth.tenantClaim` the space key of an OAuth
// user is the user claim itself, so a claim `acme/alice` (a user name the identity provider lets a person
// choose) would land in static user alice of tenant acme: her server processes, remembered answers,
// presets and audit rows. A user claim with `/` is refused (401 invalid_token), as static names never hold one.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway, hashToken } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { openSqliteStore } from '../src/host/store/index.js';
import type { Store } from '../src/host/index.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { startIssuer } from './helpers/oidc.js';
import { postModernToolsList } from './helpers/modern-request.js';
import type { Issuer, IssuerClient } from './helpers/oidc.js';

const MALLORY: IssuerClient = { id: 'mallory-app', secret: 'mallory-secret', claims: { preferred_username: 'acme/alice' } };
const DAVE: IssuerClient = { id: 'dave-app', secret: 'dave-secret', claims: { preferred_username: 'dave' } };

for (const tenantClaim of [undefined, 'tid'] as const) {
  describe(`gateway OAuth user claims ${tenantClaim ? 'with' : 'without'} a tenant claim`, () => {
    let issuer: Issuer;
    let gw: Gateway;
    let url: string;
    let store: Store;
    let stop: () => Promise<void>;
    before(async () => {
      issuer = await startIssuer(
        [MALLORY, DAVE].map((c) => ({ ...c, claims: { ...c.claims, ...(tenantClaim ? { tid: 'other' } : {}) } })),
        [{ id: 'gateway-rs', secret: 'rs-secret' }],
      );
      const dir = mkdtempSync(join(tmpdir(), 'parley-gw-oauth-names-'));
      store = openSqliteStore(join(dir, 'g.db'));
      const config = gatewayConfig({ v2: fixture('v2', 'v2-dual.mjs') });
      config.gateway = {
        tenants: { acme: { users: { alice: { tokenSha256: hashToken('pt_alice-of-acme') } } } },
        oauth: {
          issuer: issuer.issuer,
          scopes: ['mcp'],
          userClaim: 'preferred_username',
          ...(tenantClaim ? { tenantClaim } : {}),
          algorithms: ['RS256'],
          clockSkewMs: 0,
        },
      } as never;
      gw = createGateway(config, { store });
      const s = await serveGateway(gw, {}, () => (store.close(), rmSync(dir, { recursive: true, force: true })));
      url = s.url;
      stop = async () => (await s.stop(), await issuer.close());
    });
    after(() => stop());

    it('refuses a user claim holding "/" with 401 invalid_token and opens no space for it', async () => {
      const res = await postModernToolsList(url, { authorization: `Bearer ${await issuer.token(MALLORY, url)}` });
      const body = await res.text();
      assert.equal(res.status, 401, body);
      assert.match(res.headers.get('www-authenticate') ?? '', /invalid_token/);
      assert.match(res.headers.get('www-authenticate') ?? '', /\//);
      assert.equal(gw.stats().users, 0, 'no space was made for the refused token');
      assert.equal((await store.queryAudit({ scope: { tenant: 'acme', user: 'alice' }, limit: 10 })).length, 0);
    });

    it('still accepts a plain user claim', async () => {
      const res = await postModernToolsList(url, { authorization: `Bearer ${await issuer.token(DAVE, url)}` });
      assert.equal(res.status, 200, await res.text());
      assert.equal(gw.space(tenantClaim ? 'other/dave' : 'dave').tenant, tenantClaim ? 'other' : 'default');
    });
  });
}
