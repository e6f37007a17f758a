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
  SIGNIN_SECRET,
  signInClient,
  startSignInGateway,
  storedSignIns,
  type SignInGateway,
} from './helpers/gateway-signin.js';
import { clusterSkipReason } from './helpers/replicas.js';
import { MemoryCredentialStore } from '../src/host/auth/index.js';
import { UpstreamSignIns } from '../src/gateway/upstream-signin.js';
import type { HttpServerDef } from '../src/host/index.js';

const text = (r: any) => (r.content ?? []).map((c: any) => c.text ?? '').join('\n');
const skip = clusterSkipReason?.startsWith('dist/') ? clusterSkipReason : undefined;

/** GET `path` from 127.0.0.1:`port` with an explicit Host header (what a TLS-terminating proxy forwards). */
function getWithHost(
  port: number,
  path: string,
  host: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers: { host } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error('no answer in 15 s')));
    req.end();
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
  const authUrl = await asked;
  assert.equal(new URL(authUrl).searchParams.get('redirect_uri'), `${publicUrl}/oauth/upstream/callback`);
  const back = new URL(await browseTo(authUrl, (u) => u.startsWith(`${publicUrl}/`)));
  const res = await getWithHost(gw.port, `${back.pathname}${back.search}`, back.host);
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
        void browseTo(p.url, (u) => u.startsWith(callback()))
          .then((u) => fetch(u))
          .catch(() => {});
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
      void browseTo(p.url, (u) => u.startsWith(callback()))
        .then((u) => fetch(u))
        .catch(() => {});
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
    gw = await startSignInGateway(stack.mcpUrl, { publicUrl: true });
  });
  after(async () => {
    await gw?.stop();
    await stack?.close();
  });
  const callback = () => callbackUrl(gw);
  const stored = async (user: string) => (await storedSignIns(gw, user)).filter((r) => r.refreshable).length;

  // KNOWN HOLE (design, not a small fix; see the atk10 report): the spec says servers MUST verify that the
  // user who opens the URL is the user who started the elicitation. Here the authorization URL itself is
  // the elicitation URL, and nothing binds the browser that finishes it to the gateway user who asked:
  // bob (the attacker) passes his URL to another person, who signs in at the issuer with their own
  // account; the tokens of that account are stored as bob's. Marked todo: it fails today.
  it("a URL opened in another person's browser does not sign the requesting user in", {
    todo: 'needs a gateway-side connect URL bound to the user',
  }, async (t) => {
    let url!: (u: string) => void;
    const asked = new Promise<string>((r) => (url = r));
    const bob = await signInClient(gw.url, 'bob', '2025-11-25', async (p) => (url(p.url), { action: 'accept' }));
    t.after(() => bob.client.close());
    const call = bob.client.callTool({ name: 'crm__whoami', arguments: {} }, { timeout: 60_000 } as never);
    call.catch(() => {});
    // The victim's browser (its own cookie jar; the provider signs it in as its account "alice").
    const back = await browseTo(await asked, (u) => u.startsWith(callback()));
    const res = await fetch(back);
    assert.notEqual(res.status, 200, 'the redirect of a browser not bound to bob is refused');
    assert.equal(await stored('bob'), 0, "nothing stored as bob's");
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
    other = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<script>alert(document.domain)</script>'));
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
