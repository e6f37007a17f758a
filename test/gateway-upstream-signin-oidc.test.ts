// Sign-in through the client for users of gateway.oauth (client/elicitation §Phishing): the gateway checks
// who opens the connect URL by signing that browser in to its own issuer (gateway.oauth.browserClient,
// src/gateway/browser-identity.ts). Real oidc-providers in process (the gateway's issuer,
// test/helpers/oidc.ts, and the upstream server's, test/helpers/oidc-stack.ts), `parley serve --http` from
// dist/, real SDK v2 clients on 2025-11-25 and 2026-07-28 with the issuer's access tokens.
import { after, before, describe, it, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { startOidcStack, type OidcStack } from './helpers/oidc-stack.js';
import { startIssuer, type Issuer, type IssuerClient } from './helpers/oidc.js';
import { callbackUrl, signInClient, startSignInGateway, storedSignIns, TestBrowser, type SignInGateway } from './helpers/gateway-signin.js';
import { clusterSkipReason, freePort } from './helpers/replicas.js';
import { loadHostConfig } from '../src/host/config/index.js';
import { sandbox } from './fixtures/config/tmp.js';

const text = (r: any) => (r.content ?? []).map((c: any) => c.text ?? '').join('\n');
const skip = clusterSkipReason?.startsWith('dist/') ? clusterSkipReason : undefined;

// Users of tenant corp at the issuer (the static users of helpers/gateway-signin.ts are of tenant acme).
const DANA: IssuerClient = { id: 'dana-app', secret: 'dana-secret', claims: { preferred_username: 'dana', tid: 'corp' } };
const ERIN: IssuerClient = { id: 'erin-app', secret: 'erin-secret', claims: { preferred_username: 'erin', tid: 'corp' } };
const FRAN: IssuerClient = { id: 'fran-app', secret: 'fran-secret', claims: { preferred_username: 'fran', tid: 'corp' } };
const ACCOUNTS = {
  dana: { preferred_username: 'dana', tid: 'corp' },
  erin: { preferred_username: 'erin', tid: 'corp' },
  // fran's claims in an ID token the issuer made out to another of its clients (a token substituted from
  // elsewhere, or a misconfigured issuer): OpenID Connect Core §3.1.3.7 says to refuse it.
  'fran-elsewhere': { preferred_username: 'fran', tid: 'corp', azp: 'another-client' },
};

test('gateway.oauth.browserClient and gateway.unverifiedSignIn: read, or an issue at their JSON pointer', () => {
  const load = (gateway: Record<string, unknown>) => {
    const s = sandbox();
    try {
      s.write('parley.json', JSON.stringify({ mcpServers: {}, gateway: { users: {}, ...gateway } }));
      return loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    } finally {
      s.cleanup();
    }
  };
  const oauth = (browserClient: unknown) => ({ oauth: { issuer: 'https://login.example.com', browserClient } });
  const ok = load({ ...oauth({ clientId: 'gw-browser', clientSecretEnv: 'GW_BROWSER_SECRET' }), unverifiedSignIn: true });
  assert.deepEqual(ok.config.gateway?.oauth?.browserClient, {
    clientId: 'gw-browser',
    clientSecretEnv: 'GW_BROWSER_SECRET',
    scopes: ['openid'],
  });
  assert.equal(ok.config.gateway?.unverifiedSignIn, true);
  const issue = (g: Record<string, unknown>, path: string, re: RegExp) => {
    const { issues } = load(g);
    assert.ok(
      issues.some((i) => i.path === path && re.test(i.message)),
      JSON.stringify(issues),
    );
  };
  issue(oauth({ clientId: 'x', clientSecret: 'hunter2' }), '/gateway/oauth/browserClient/clientSecret', /does not belong in configuration/);
  issue(oauth({ clientId: 'x', scopes: ['profile'] }), '/gateway/oauth/browserClient/scopes', /must include "openid"/);
  issue(oauth({ clientId: '' }), '/gateway/oauth/browserClient/clientId', /non-empty/);
  issue({ unverifiedSignIn: 'yes' }, '/gateway/unverifiedSignIn', /true or false/);
});

describe('sign-in through the client, users of gateway.oauth: the browser signs in at the issuer', { skip }, () => {
  let stack: OidcStack;
  let issuer: Issuer;
  let gw: SignInGateway;
  before(async () => {
    stack = await startOidcStack();
    const port = await freePort();
    issuer = await startIssuer([DANA, ERIN, FRAN], [], {
      id: 'gw-browser',
      redirectUri: `http://127.0.0.1:${port}/oauth/upstream/identify`,
      accounts: ACCOUNTS,
      defaultAccount: 'dana',
    });
    gw = await startSignInGateway(
      stack.mcpUrl,
      {
        publicUrl: true,
        oauth: { issuer: issuer.issuer, userClaim: 'preferred_username', tenantClaim: 'tid', browserClient: { clientId: 'gw-browser' } },
      },
      ['crm', 's2'],
      port,
    );
  });
  after(async () => {
    await gw?.stop();
    await issuer?.close();
    await stack?.close();
  });
  const atCallback = (u: string) => u.startsWith(callbackUrl(gw));
  const stored = async (user: string, server: string) =>
    (
      JSON.parse((await gw.auth(['list', '--user', user, '--tenant', 'corp', '--json'])).stdout) as Array<{
        server: string;
        refreshable: boolean;
      }>
    ).filter((r) => r.refreshable && r.server === server).length;
  /** A browser whose person is `account` at the issuer. */
  const browserOf = (account: string) => {
    const b = new TestBrowser();
    b.jar.set('test_account', account);
    return b;
  };
  async function ask(who: IssuerClient, era: '2025-11-25' | '2026-07-28', t: TestContext, server = 'crm') {
    let url!: (u: string) => void;
    const asked = new Promise<string>((r) => (url = r));
    const token = await issuer.token(who, gw.url);
    const c = await signInClient(
      gw.url,
      String(who.claims!.preferred_username),
      era,
      async (p) => (url(p.url), { action: 'accept' }),
      token,
    );
    t.after(() => c.client.close());
    const call = c.client.callTool({ name: `${server}__whoami`, arguments: {} }, { timeout: 60_000 } as never);
    call.catch(() => {});
    return { url: await asked, call };
  }

  it('dana (2025-11-25) and erin (2026-07-28) at once, crossed: each browser is checked at the issuer and completes its own sign-in', async (t) => {
    const [dana, erin] = await Promise.all([ask(DANA, '2025-11-25', t), ask(ERIN, '2026-07-28', t)]);
    for (const u of [dana.url, erin.url]) assert.equal(new URL(u).pathname, '/oauth/upstream/connect');
    const db = browserOf('dana');
    const eb = browserOf('erin');
    // Both browsers reach the upstream provider; erin's redirect comes back first.
    const [dBack, eBack] = await Promise.all([db.browseTo(dana.url, atCallback), eb.browseTo(erin.url, atCallback)]);
    assert.equal((await eb.fetch(eBack)).status, 200);
    assert.match(text(await erin.call), /hello client/);
    assert.equal(await stored('dana', 'crm'), 0, 'nothing of erin reached dana');
    assert.equal((await db.fetch(dBack)).status, 200);
    assert.match(text(await dana.call), /hello client/);
    assert.equal(await stored('dana', 'crm'), 1);
    assert.equal(await stored('erin', 'crm'), 1);
    assert.equal(db.forms + eb.forms, 0, 'no token form for users of the issuer');
    // The connect URL is spent.
    assert.equal((await db.fetch(dana.url)).status, 400);
    // The tokens the issuer gave the browser never reach the gateway's log.
    assert.ok(!/eyJ[\w-]{10,}\./.test(gw.log.join('')), 'no token in the gateway log');
  });

  it("erin's connect URL opened by dana (signed in at the issuer as dana): 403, nothing stored; erin then completes", async (t) => {
    const erin = await ask(ERIN, '2026-07-28', t, 's2');
    const db = browserOf('dana');
    const authorizations = stack.authorizations.length;
    const r = await db.browse(erin.url, atCallback);
    assert.equal(r.status, 403);
    assert.equal(new URL(r.last).pathname, '/oauth/upstream/connect', 'back at the connect URL, refused there');
    assert.equal(stack.authorizations.length, authorizations, 'the upstream provider was never reached');
    assert.equal(await stored('erin', 's2'), 0);
    // An identify answer taken from erin's browser and opened in dana's: refused (no login cookie of it).
    const eb = browserOf('erin');
    const identify = await eb.browseTo(erin.url, (u) => u.includes('/oauth/upstream/identify'));
    assert.equal((await new TestBrowser().fetch(identify)).status, 400);
    // erin's own browser goes on from there and completes.
    const back = await eb.browseTo(identify, atCallback);
    assert.equal((await eb.fetch(back)).status, 200);
    assert.match(text(await erin.call), /hello client/);
    assert.equal(await stored('erin', 's2'), 1);
    assert.equal(await stored('dana', 's2'), 0);
  });

  it("an ID token with fran's claims made out to another client (azp): 403 where it is checked, nothing stored", async (t) => {
    const fran = await ask(FRAN, '2025-11-25', t);
    const authorizations = stack.authorizations.length;
    const r = await browserOf('fran-elsewhere').browse(fran.url, atCallback);
    assert.equal(r.status, 403);
    assert.equal(new URL(r.last).pathname, '/oauth/upstream/identify', 'refused where the ID token is checked');
    assert.equal(stack.authorizations.length, authorizations, 'the upstream provider was never reached');
    assert.equal(await stored('fran', 'crm'), 0);
  });
});

describe('sign-in through the client, users of gateway.oauth without browserClient', { skip }, () => {
  let stack: OidcStack;
  let issuer: Issuer;
  let strict: SignInGateway;
  let unverified: SignInGateway;
  before(async () => {
    stack = await startOidcStack();
    issuer = await startIssuer([DANA]);
    const oauth = { issuer: issuer.issuer, userClaim: 'preferred_username', tenantClaim: 'tid' };
    [strict, unverified] = await Promise.all([
      startSignInGateway(stack.mcpUrl, { publicUrl: true, oauth }),
      startSignInGateway(stack.mcpUrl, { publicUrl: true, oauth, unverifiedSignIn: true }),
    ]);
  });
  after(async () => {
    await Promise.all([strict?.stop(), unverified?.stop()]);
    await issuer?.close();
    await stack?.close();
  });

  it('by default no URL-mode sign-in (the `parley auth login` hint); with unverifiedSignIn: true, offered and not checked', async (t) => {
    let asked = 0;
    const dana = await signInClient(
      strict.url,
      'dana',
      '2026-07-28',
      async () => (asked++, { action: 'accept' }),
      await issuer.token(DANA, strict.url),
    );
    t.after(() => dana.client.close());
    assert.deepEqual(
      (await dana.client.listTools()).tools.map((x) => x.name),
      [],
      'no sign-in tool',
    );
    await assert.rejects(dana.client.callTool({ name: 'crm__whoami', arguments: {} }), /parley auth login crm --user dana --tenant corp/);
    assert.equal(asked, 0);
    // A static-token user of the same gateway is still offered it (checked by their token).
    const alice = await signInClient(strict.url, 'alice', '2026-07-28', async () => ({ action: 'decline' }));
    t.after(() => alice.client.close());
    assert.deepEqual(
      (await alice.client.listTools()).tools.map((x) => x.name),
      ['crm__parley_sign_in'],
    );

    let url!: (u: string) => void;
    const shown = new Promise<string>((r) => (url = r));
    const open = await signInClient(
      unverified.url,
      'dana',
      '2025-11-25',
      async (p) => (url(p.url), { action: 'accept' }),
      await issuer.token(DANA, unverified.url),
    );
    t.after(() => open.client.close());
    const call = open.client.callTool({ name: 'crm__whoami', arguments: {} }, { timeout: 60_000 } as never);
    // Any browser passes the connect URL and finishes (the check is given up).
    const b = new TestBrowser();
    const back = await b.browseTo(await shown, (u) => u.startsWith(callbackUrl(unverified)));
    assert.equal((await b.fetch(back)).status, 200);
    assert.match(text(await call), /hello client/);
    assert.ok(!b.jar.has('parley_gw_user'), 'no identity cookie: nobody was verified');
    assert.equal((await storedSignIns(unverified, 'dana')).length, 0, 'stored under tenant corp, not acme');
  });
});
