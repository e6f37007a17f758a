// Sign-in through the client on replicas, users of gateway.oauth: a connect URL opened on a replica other
// than the one that minted it is relayed there (./upstream-signin.ts #relay), and the browser's OpenID
// Connect sign-in that replica starts keeps its login cookie (./browser-session.ts LOGIN_COOKIE), which the
// identify step on any replica needs. Two UpstreamSignIns on loopback HTTP servers sharing PARLEY_SECRET,
// a real OAuth upstream (oidc-provider); the browser sign-in at the gateway's issuer is a stand-in that
// sets the real sealed login cookie (the relay is what is under test).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startOidcStack, type OidcStack } from './helpers/oidc-stack.js';
import { MemoryCredentialStore } from '../src/host/auth/index.js';
import { LOGIN_COOKIE } from '../src/gateway/browser-session.js';
import { redirect } from '../src/gateway/signin-pages.js';
import { UpstreamSignIns, type BrowserSignIn } from '../src/gateway/upstream-signin.js';
import type { HttpServerDef } from '../src/host/index.js';

const SECRET = 'a replica secret of at least 32 characters';

describe('sign-in through the client on replicas: the browser sign-in started by the owner replica', () => {
  let stack: OidcStack;
  const servers: Server[] = [];
  before(async () => {
    stack = await startOidcStack();
  });
  after(async () => {
    for (const s of servers) s.close();
    await stack?.close();
  });

  /** A replica: its sign-ins served on a loopback port. */
  async function replica(): Promise<{ signIns: UpstreamSignIns; url: string }> {
    let url = '';
    const browser: BrowserSignIn = {
      start: async (connect, sessions) =>
        redirect('https://issuer.example/authorize', sessions.loginCookie({ state: 's', verifier: 'v', nonce: 'n', connect })),
      finish: async () => {
        throw new Error('not reached');
      },
    };
    const signIns = new UpstreamSignIns({
      publicUrl: 'https://gw.example.com',
      credentials: new MemoryCredentialStore(),
      allowLoopbackUrls: true,
      secret: SECRET,
      selfUrl: () => url,
      browser,
    });
    const server = createServer(async (req, res) => {
      const r = await signIns.route(new URL(req.url ?? '/', 'http://x').pathname, req);
      if (!r) return void res.writeHead(404).end();
      res.writeHead(r.status, r.headers).end(r.body);
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    return { signIns, url };
  }

  it('a connect URL opened on the other replica: the redirect to the issuer sets the login cookie there too', async () => {
    const [a, b] = [await replica(), await replica()];
    const def = { name: 'crm', type: 'http', url: stack.mcpUrl, headers: {} } as unknown as HttpServerDef;
    let shown!: (u: string) => void;
    const connectUrl = new Promise<string>((r) => (shown = r));
    let answer!: (a: { action: 'decline' }) => void;
    const done = a.signIns
      .signIn({ tenant: 'acme', user: 'dana', server: 'crm' }, def, ((view: { url?: { full: string } }) => {
        shown(view.url!.full);
        return new Promise((r) => (answer = r));
      }) as never)
      .catch((e: Error) => e);
    const id = new URL(await connectUrl).searchParams.get('id')!;
    const at = (r: { url: string }) => new URL(r.url).origin;
    // On the owner: the redirect to the issuer with the login cookie.
    const own = await fetch(`${at(a)}/oauth/upstream/connect?id=${id}`, { redirect: 'manual' });
    assert.equal(own.status, 302);
    assert.match(own.headers.get('set-cookie') ?? '', new RegExp(`^${LOGIN_COOKIE}=`));
    // On the other replica (a load balancer's choice): relayed, the same answer, cookie included.
    const relayed = await fetch(`${at(b)}/oauth/upstream/connect?id=${id}`, { redirect: 'manual' });
    assert.equal(relayed.status, 302);
    assert.equal(relayed.headers.get('location'), 'https://issuer.example/authorize');
    assert.match(relayed.headers.get('set-cookie') ?? '', new RegExp(`^${LOGIN_COOKIE}=`), 'the login cookie passes the relay');
    answer({ action: 'decline' });
    assert.match(String(await done), /declined/);
  });
});
