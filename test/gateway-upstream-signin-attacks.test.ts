// Attacks on the gateway's sign-in to protected upstream servers through the client (gateway.publicUrl,
// src/gateway/upstream-signin.ts): a real oidc-provider (test/helpers/oidc-stack.ts), `parley serve --http`
// from dist/, real SDK v2 clients over HTTP on 127.0.0.1.
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { startOidcStack, type OidcStack } from './helpers/oidc-stack.js';
import {
  browseTo,
  callbackUrl,
  completeIn,
  SIGNIN_SECRET,
  SIGNIN_TOKENS,
  signInClient,
  startSignInGateway,
  storedSignIns,
  TestBrowser,
  type SignInGateway,
} from './helpers/gateway-signin.js';
import { clusterSkipReason } from './helpers/replicas.js';
import { MemoryCredentialStore } from '../src/host/auth/index.js';
import { UpstreamSignIns } from '../src/gateway/upstream-signin.js';
import { FORM_CSP } from '../src/gateway/signin-pages.js';
import type { HttpServerDef } from '../src/host/index.js';

const text = (r: any) => (r.content ?? []).map((c: any) => c.text ?? '').join('\n');
const skip = clusterSkipReason?.startsWith('dist/') ? clusterSkipReason : undefined;

/**
 * GET (or POST `form`) `path` from 127.0.0.1:`port` with an explicit Host header (what a TLS-terminating
 * proxy forwards) and optionally a Cookie header.
 */
function getWithHost(
  port: number,
  path: string,
  host: string,
  more: { cookie?: string; form?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const body = more.form ? new URLSearchParams(more.form).toString() : undefined;
    const headers: Record<string, string> = { host, ...(more.cookie ? { cookie: more.cookie } : {}) };
    if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const req = request({ host: '127.0.0.1', port, path, method: body ? 'POST' : 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error('no answer in 15 s')));
    req.end(body);
  });
}

/**
 * Alice (2025-11-25) calls a tool of crm through `gw`, whose publicUrl is `publicUrl` (a proxy in front);
 * the test's browser signs in and hands the redirect to the gateway with the Host the proxy would pass
 * on. Checks the redirect URI, the 200 and the call's result; returns the redirect URL.
 */
async function signInBehindProxy(gw: SignInGateway, publicUrl: string, t: TestContext): Promise<URL> {
  let url!: (u: string) => void;
  const asked = new Promise<string>((r) => (url = r));
  const alice = await signInClient(gw.url, 'alice', '2025-11-25', async (p) => (url(p.url), { action: 'accept' }));
  t.after(() => alice.client.close());
  const call = alice.client.callTool({ name: 'crm__whoami', arguments: {} }, { timeout: 60_000 } as never);
  // The connect URL, at the public address: its form, then alice's token posted to it.
  const connect = new URL(await asked);
  assert.equal(`${connect.origin}${connect.pathname}`, `${publicUrl}/oauth/upstream/connect`);
  const form = await getWithHost(gw.port, `${connect.pathname}${connect.search}`, connect.host);
  assert.equal(form.status, 200, form.body);
  const posted = await getWithHost(gw.port, connect.pathname, connect.host, {
    form: { id: connect.searchParams.get('id')!, token: SIGNIN_TOKENS.alice! },
  });
  assert.equal(posted.status, 302, posted.body);
  const setCookie = String(posted.headers['set-cookie']);
  // Secure (publicUrl is https), HttpOnly, SameSite=Lax, under publicUrl's path.
  assert.match(setCookie, /^parley_gw_user=[^;]+;.*Path=(\/[^;]*)?\/oauth\/upstream;/);
  for (const attr of [/; Secure/, /; HttpOnly/, /; SameSite=Lax/, /; Max-Age=28800/]) assert.match(setCookie, attr);
  assert.ok(!setCookie.includes(SIGNIN_TOKENS.alice!), 'no token in the cookie');
  const authUrl = String(posted.headers.location);
  assert.equal(new URL(authUrl).searchParams.get('redirect_uri'), `${publicUrl}/oauth/upstream/callback`);
  const back = new URL(await browseTo(authUrl, (u) => u.startsWith(`${publicUrl}/`)));
  const cookie = setCookie.split(';')[0]!;
  // Without the cookie (another browser), the redirect is refused and stays usable for the right one.
  assert.equal((await getWithHost(gw.port, `${back.pathname}${back.search}`, back.host)).status, 403);
  const res = await getWithHost(gw.port, `${back.pathname}${back.search}`, back.host, { cookie });
  assert.equal(res.status, 200, res.body);
  assert.match(text(await call), /hello client/);
  return back;
}

describe('sign-in through the client: a publicUrl with a port, behind a TLS-terminating proxy', { skip }, () => {
  const PUBLIC = 'https://gw.example.test:8443';
  let stack: OidcStack;
  let gw: SignInGateway;
  before(async () => {
    stack = await startOidcStack();
    gw = await startSignInGateway(stack.mcpUrl, { publicUrl: PUBLIC });
  });
  after(async () => {
    await gw?.stop();
    await stack?.close();
  });

  it('the redirect reaching the gateway with Host gw.example.test:8443 finishes the sign-in (was 403 "Invalid Host")', async (t) => {
    const back = await signInBehindProxy(gw, PUBLIC, t);
    // Neither the code nor the state reaches the gateway's log.
    const log = gw.log.join('');
    assert.ok(!log.includes(back.searchParams.get('code')!), 'no authorization code in the log');
    assert.ok(!log.includes(back.searchParams.get('state')!), 'no state in the log');
    // A replay, a foreign Host or a foreign Origin changes nothing.
    assert.equal((await getWithHost(gw.port, `${back.pathname}${back.search}`, back.host)).status, 400);
    assert.ok(!gw.log.join('').includes(SIGNIN_TOKENS.alice!), 'no gateway token in the log');
    assert.equal((await getWithHost(gw.port, `${back.pathname}${back.search}`, 'evil.example')).status, 403);
  });

  it('the callback page forbids scripts, framing and sniffing (Content-Security-Policy), whatever its answer', async () => {
    const res = await getWithHost(gw.port, '/oauth/upstream/callback?state=nope&error_description=%3Cscript%3E', 'gw.example.test:8443');
    assert.equal(res.status, 400);
    assert.ok(!res.body.includes('<script>'), 'no parameter echoed');
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    const csp = String(res.headers['content-security-policy'] ?? '');
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
  });
});

describe('sign-in through the client: a publicUrl with a path, behind a proxy that passes the path on', { skip }, () => {
  const PUBLIC = 'https://gw.example.test/parley';
  let stack: OidcStack;
  let gw: SignInGateway;
  before(async () => {
    stack = await startOidcStack();
    gw = await startSignInGateway(stack.mcpUrl, { publicUrl: PUBLIC });
  });
  after(async () => {
    await gw?.stop();
    await stack?.close();
  });

  it('the redirect to /parley/oauth/upstream/callback finishes the sign-in (was 404: the route knew only the bare path)', async (t) => {
    const back = await signInBehindProxy(gw, PUBLIC, t);
    assert.equal(back.pathname, '/parley/oauth/upstream/callback');
  });
});

describe('sign-in through the client: a sign-in abandoned by the client, then asked again', { skip }, () => {
  let stack: OidcStack;
  let gw: SignInGateway;
  before(async () => {
    stack = await startOidcStack();
    gw = await startSignInGateway(stack.mcpUrl, { publicUrl: true });
  });
  after(async () => {
    await gw?.stop();
    await stack?.close();
  });
  const callback = () => callbackUrl(gw);

  for (const [user, era] of [
    ['alice', '2025-11-25'],
    ['bob', '2026-07-28'],
  ] as const) {
    it(`${era}: the client gives up on the first call (its own timeout); the next call shows the URL again and completes`, async (t) => {
      let asked = 0;
      const never = new Promise<never>(() => {});
      const c = await signInClient(gw.url, user, era, async (p) => {
        asked++;
        if (asked === 1) return never; // the person looks away; the client's request timeout ends the call
        void completeIn(p.url, (u) => u.startsWith(callback()), user).catch(() => {});
        return { action: 'accept' };
      });
      t.after(() => c.client.close());
      // The first call: asked, never answered. A 2025-11-25 client's timeout cancels it; a 2026-07-28
      // client simply never retries (its input_required round is abandoned).
      void c.client.callTool({ name: 'crm__whoami', arguments: {} }, { timeout: 2_000 } as never).catch(() => {});
      while (asked === 0) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 2_500));
      const started = Date.now();
      const r = await c.client.callTool({ name: 'crm__whoami', arguments: {} }, { timeout: 30_000 } as never);
      assert.match(text(r), /hello client/);
      assert.equal(asked, 2, 'the second call showed the sign-in URL');
      assert.ok(Date.now() - started < 30_000);
    });
  }
});

describe('sign-in through the client: cancelled on 2026-07-28, then asked again', { skip }, () => {
  let stack: OidcStack;
  let gw: SignInGateway;
  before(async () => {
    stack = await startOidcStack();
    gw = await startSignInGateway(stack.mcpUrl, { publicUrl: true });
  });
  after(async () => {
    await gw?.stop();
    await stack?.close();
  });
  const callback = () => callbackUrl(gw);

  it('a cancelled URL elicitation fails that call at once; the retry is asked again and completes', async (t) => {
    let asked = 0;
    const bob = await signInClient(gw.url, 'bob', '2026-07-28', async (p) => {
      if (++asked === 1) return { action: 'cancel' };
      void completeIn(p.url, (u) => u.startsWith(callback()), 'bob').catch(() => {});
      return { action: 'accept' };
    });
    t.after(() => bob.client.close());
    const first = (await bob.client.callTool({ name: 'crm__whoami', arguments: {} }, { timeout: 30_000 } as never)) as {
      isError?: boolean;
    };
    assert.equal(first.isError, true);
    assert.match(text(first), /sign-in for crm was cancelled/);
    assert.match(text(await bob.client.callTool({ name: 'crm__whoami', arguments: {} }, { timeout: 30_000 } as never)), /hello client/);
    assert.equal(asked, 2);
  });
});

describe('sign-in through the client: who opens the URL (client/elicitation §Phishing)', { skip }, () => {
  let stack: OidcStack;
  let gw: SignInGateway;
  before(async () => {
    stack = await startOidcStack();
    gw = await startSignInGateway(stack.mcpUrl, { publicUrl: true }, ['crm', 's2', 's3']);
  });
  after(async () => {
    await gw?.stop();
    await stack?.close();
  });
  const callback = () => callbackUrl(gw);
  const atCallback = (u: string) => u.startsWith(callback());
  const stored = async (user: string, server: string) =>
    (await storedSignIns(gw, user)).filter((r) => r.refreshable && r.server === server).length;
  /** Browsers verified by the first test (through the connect form). */
  const aliceBrowser = new TestBrowser('alice');
  const bobBrowser = new TestBrowser('bob');
  /** `user`'s client on `era` asks for `server`; resolves the URL its client was shown, and the call. */
  async function ask(user: string, era: '2025-11-25' | '2026-07-28', t: TestContext, server = 'crm') {
    let url!: (u: string) => void;
    const asked = new Promise<string>((r) => (url = r));
    const c = await signInClient(gw.url, user, era, async (p) => (url(p.url), { action: 'accept' }));
    t.after(() => c.client.close());
    const call = c.client.callTool({ name: `${server}__whoami`, arguments: {} }, { timeout: 60_000 } as never);
    call.catch(() => {});
    return { url: await asked, call };
  }

  it("bob's connect URL opened in alice's browser: 403, nothing stored, the provider never reached; bob then completes; a replay is refused", async (t) => {
    // alice signs in to crm first (2026-07-28): her browser is then verified as alice.
    const mine = await ask('alice', '2026-07-28', t);
    assert.equal((await aliceBrowser.fetch(await aliceBrowser.browseTo(mine.url, atCallback))).status, 200);
    assert.match(text(await mine.call), /hello client/);
    assert.equal(aliceBrowser.forms, 1);

    // bob (2025-11-25) forwards his connect URL to alice.
    const bobs = await ask('bob', '2025-11-25', t);
    const authorizations = stack.authorizations.length;
    const res = await aliceBrowser.fetch(bobs.url);
    const page = await res.text();
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('location'), null, 'no redirect to the authorization server');
    assert.match(page, /started by another gateway user/);
    assert.ok(!page.includes('state=') && !page.includes(SIGNIN_TOKENS.alice!), 'no parameter or token echoed');
    assert.equal(res.headers.get('content-security-policy'), FORM_CSP);
    // Her own token in that form does not pass either.
    const posted = await aliceBrowser.fetch(`http://127.0.0.1:${gw.port}/oauth/upstream/connect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ id: new URL(bobs.url).searchParams.get('id')!, token: SIGNIN_TOKENS.alice! }).toString(),
    });
    assert.equal(posted.status, 403);
    assert.equal(stack.authorizations.length, authorizations, 'the provider was never reached for bob');
    assert.equal(await stored('bob', 'crm'), 0, "nothing stored as bob's");

    // The sign-in stayed open: bob's own browser completes it.
    assert.equal((await bobBrowser.fetch(await bobBrowser.browseTo(bobs.url, atCallback))).status, 200);
    assert.match(text(await bobs.call), /hello client/);
    assert.equal(await stored('bob', 'crm'), 1);
    // The connect URL is single-use: replayed in either browser, refused.
    assert.equal((await bobBrowser.fetch(bobs.url)).status, 400);
    assert.equal((await aliceBrowser.fetch(bobs.url)).status, 400);
  });

  it("a forwarded authorization URL (connect skipped) is refused at the callback; bob's own browser still completes", async (t) => {
    const bobs = await ask('bob', '2026-07-28', t, 's2');
    // bob's browser (verified) passes the connect URL at once; the authorization URL it is sent to is what he forwards.
    const passed = await bobBrowser.fetch(bobs.url);
    assert.equal(passed.status, 302);
    const authUrl = passed.headers.get('location')!;
    assert.equal(new URL(authUrl).origin, stack.issuer);

    // Opened in a browser with no gateway cookie, and in alice's verified browser: both refused.
    for (const other of [new TestBrowser(), aliceBrowser]) {
      const back = await other.browseTo(authUrl, atCallback);
      const res = await other.fetch(back);
      assert.equal(res.status, 403, await res.text());
    }
    assert.equal(await stored('bob', 's2'), 0, "nothing stored as bob's");
    // bob's browser, with the same authorization URL: completes.
    const res = await bobBrowser.fetch(await bobBrowser.browseTo(authUrl, atCallback));
    assert.equal(res.status, 200);
    assert.match(text(await bobs.call), /hello client/);
    assert.equal(await stored('bob', 's2'), 1);
  });

  it('a tampered connect id, a tampered or foreign cookie: refused; wrong tokens spend the link after 5', async (t) => {
    const bobs = await ask('bob', '2025-11-25', t, 's3');
    const u = new URL(bobs.url);
    const id = u.searchParams.get('id')!;
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const tampered = new URL(u);
    tampered.searchParams.set('id', flip(id, 5));
    assert.equal((await fetch(tampered)).status, 400);
    tampered.searchParams.set('id', '<script>');
    const bad = await fetch(tampered);
    assert.equal(bad.status, 400);
    assert.ok(!(await bad.text()).includes('<script>'));

    // A verified bob browser passes at once; the same cookie with one character changed does not.
    tampered.searchParams.set('id', flip(id, 50));
    assert.equal((await bobBrowser.fetch(tampered.href)).status, 400, 'a verified browser does not help a tampered id');
    const cookie = bobBrowser.jar.get('parley_gw_user')!;
    const forged = new TestBrowser();
    forged.jar.set('parley_gw_user', flip(cookie, 40));
    const withForged = await forged.fetch(bobs.url);
    assert.equal(withForged.status, 200, 'a cookie that does not open is no identity: the form');
    assert.equal(withForged.headers.get('location'), null);
    // Another gateway's cookie (another key) is no identity either.
    const other = new TestBrowser();
    other.jar.set('parley_gw_user', `v1.${'A'.repeat(16)}.${'A'.repeat(22)}.${'A'.repeat(40)}`);
    assert.equal((await other.fetch(bobs.url)).status, 200);

    // Wrong tokens: 403 with the form again, then 429 at the fifth, and the link is spent.
    const post = (token: string) =>
      fetch(`http://127.0.0.1:${gw.port}/oauth/upstream/connect`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ id, token }).toString(),
      });
    for (let i = 1; i < 5; i++) assert.equal((await post(`pt_guess-${i}`)).status, 403);
    assert.equal((await post('pt_guess-5')).status, 429);
    assert.equal((await post(SIGNIN_TOKENS.bob!)).status, 400, 'spent: even the right token no longer passes');
    // A form from another site (its Origin) is refused before it is read.
    const cross = await fetch(`http://127.0.0.1:${gw.port}/oauth/upstream/connect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ id, token: SIGNIN_TOKENS.bob! }).toString(),
    });
    assert.equal(cross.status, 403);
    assert.equal(await stored('bob', 's3'), 0);
  });
});

describe('sign-in through the client: the overall cap of sign-ins in progress', () => {
  let stack: OidcStack;
  before(async () => {
    stack = await startOidcStack();
  });
  after(async () => {
    await stack?.close();
  });

  it('past maxPending sign-ins in progress (all users), another is refused before its client is asked', async () => {
    const signIns = new UpstreamSignIns({
      publicUrl: 'http://127.0.0.1:9',
      credentials: new MemoryCredentialStore(),
      allowLoopbackUrls: true,
      maxPending: 2,
    });
    const def = { name: 'crm', type: 'http', url: stack.mcpUrl, headers: {} } as unknown as HttpServerDef;
    const answers: Array<(a: { action: 'decline' }) => void> = [];
    let asked = 0;
    const ask = () => (asked++, new Promise<{ action: 'decline' }>((r) => answers.push(r)));
    const users = ['u1', 'u2', 'u3'].map((user) => ({ tenant: 'acme', user, server: 'crm' }));
    const first = users.slice(0, 2).map((k) => signIns.signIn(k, def, ask as never).catch((e: Error) => e));
    while (asked < 2) await new Promise((r) => setTimeout(r, 20));
    const refused = signIns.signIn(users[2]!, def, ask as never).catch((e: Error) => e);
    // Whatever happens, no sign-in is left waiting 300 s for a person.
    const ended = Promise.race([refused, new Promise((r) => setTimeout(r, 2_000))]).then(() => {
      for (const a of answers.splice(0)) a({ action: 'decline' });
    });
    assert.match(String(await refused), /MAX_PENDING_SIGN_INS \(2\)/);
    await ended;
    assert.equal(asked, 2, 'the third client was not asked');
    for (const a of answers.splice(0)) a({ action: 'decline' });
    await Promise.all(first);
    // Once those ended, the third may sign in (asked, here declined).
    const third = signIns.signIn(users[2]!, def, ask as never).catch((e: Error) => e);
    while (asked < 3) await new Promise((r) => setTimeout(r, 20));
    answers[0]!({ action: 'decline' });
    assert.match(String(await third), /declined/);
  });
});

describe('sign-in through the client: a relayed redirect answered by something else on loopback', { skip }, () => {
  let stack: OidcStack;
  let gw: SignInGateway;
  let other: Server;
  before(async () => {
    stack = await startOidcStack();
    gw = await startSignInGateway(stack.mcpUrl, { publicUrl: true });
    // Not a parley replica: a local service that answers any path with its own HTML.
    // Its own policy resembles the connect form's while allowing scripts.
    other = createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "default-src *; base-uri 'none'" })
        .end('<script>alert(document.domain)</script>'),
    );
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
  });
  after(async () => {
    await gw?.stop();
    await stack?.close();
    other?.close();
  });

  it("the relayed page is served under the gateway's own headers (CSP, nosniff), not the target's", async () => {
    // A state sealed with PARLEY_SECRET (which `parley auth login` users hold too) naming that service.
    const owner = `http://127.0.0.1:${(other.address() as AddressInfo).port}/mcp`;
    const body = `${'n'.repeat(43)}.${Buffer.from(owner).toString('base64url')}`;
    const mac = createHmac('sha256', SIGNIN_SECRET).update(`parley upstream sign-in state\n${body}`).digest('base64url');
    const res = await fetch(`http://127.0.0.1:${gw.port}/oauth/upstream/callback?code=x&state=${body}.${mac}`);
    await res.text();
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
  });
});
