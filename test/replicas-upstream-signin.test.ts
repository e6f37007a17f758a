// Sign-in through the client (gateway.publicUrl) on two replicas sharing one PostgreSQL store and
// PARLEY_SECRET: the redirect reaches the replica that did not start the sign-in (as a load balancer
// without affinity would send it), which relays it to the one that waits (its loopback URL is sealed in
// the state). Real oidc-provider, a real SDK v2 client on 2026-07-28 over HTTP, `parley serve` from dist/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startOidcStack, type OidcStack } from './helpers/oidc-stack.js';
import { clusterSkipReason, freePort, startCluster, TOKENS, type Cluster } from './helpers/replicas.js';
import { pgSkipReason } from './helpers/postgres.js';
import { TestBrowser } from './helpers/gateway-signin.js';

const text = (r: any) => (r.content ?? []).map((c: any) => c.text ?? '').join('\n');

describe('upstream sign-in through the client on replicas: the redirect reaches the other replica', { skip: clusterSkipReason }, () => {
  let c: Cluster | undefined;
  let stack: OidcStack;
  let publicUrl: string;
  before(async () => {
    if (clusterSkipReason) return;
    stack = await startOidcStack();
    // The load balancer's address in real life; here nothing listens there: the test's browser stops
    // before it and hands the redirect to a replica of its choosing.
    publicUrl = `http://127.0.0.1:${await freePort()}`;
    c = await startCluster({
      replicas: 2,
      servers: { crm: { url: stack.mcpUrl } },
      policy: { allowLoopbackUrls: true },
      gateway: { publicUrl },
    });
  });
  after(async () => {
    await c?.stop();
    await stack?.close();
  });

  it('started on replica 0, the redirect relayed from replica 1: the call completes; a replay is refused on both', async (t) => {
    if (!c) return t.skip(pgSkipReason);
    let signInUrl!: (u: string) => void;
    const asked = new Promise<string>((r) => (signInUrl = r));
    const client = new Client({ name: 'replica-signin', version: '1' }, {
      capabilities: { elicitation: { form: {}, url: {} } },
      versionNegotiation: { mode: 'auto' },
    } as never);
    client.setRequestHandler('elicitation/create', async (req) => {
      signInUrl((req.params as { url: string }).url);
      return { action: 'accept' };
    });
    // Every request of this client goes to replica 0, which therefore starts (and waits for) the sign-in.
    await client.connect(
      new StreamableHTTPClientTransport(new URL(c.replicas[0]!.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKENS['acme/alice']}` } },
      }),
    );
    t.after(() => client.close());
    const call = client.callTool({ name: 'crm__whoami', arguments: {} }, { timeout: 60_000 } as never);
    // The connect URL (at the load balancer's address): its form and alice's token reach replica 1,
    // which relays both to replica 0; its cookie (sealed with PARLEY_SECRET) comes back through replica 1.
    const connect = new URL(await asked);
    assert.equal(`${connect.origin}${connect.pathname}`, `${publicUrl}/oauth/upstream/connect`);
    const browser = new TestBrowser();
    const on = (i: number, path: string) => `http://127.0.0.1:${c!.replicas[i]!.port}${path}`;
    const form = await browser.fetch(on(1, `${connect.pathname}${connect.search}`));
    assert.equal(form.status, 200, await form.text());
    const post = (token: string) =>
      browser.fetch(on(1, connect.pathname), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ id: connect.searchParams.get('id')!, token }).toString(),
      });
    assert.equal((await post('pt_not-alice')).status, 403);
    const passed = await post(TOKENS['acme/alice']!);
    assert.equal(passed.status, 302, await passed.text());
    assert.ok(browser.jar.has('parley_gw_user'), 'the identity cookie came back through the relay');
    const url = passed.headers.get('location')!;
    assert.equal(new URL(url).searchParams.get('redirect_uri'), `${publicUrl}/oauth/upstream/callback`);
    const redirect = new URL(await browser.browseTo(url, (u) => u.startsWith(publicUrl)));
    const at = (i: number) => on(i, `/oauth/upstream/callback${redirect.search}`);

    // A state whose seal does not hold is refused on the replica that does not know it.
    const forged = new URL(at(1));
    const [nonce, owner] = forged.searchParams.get('state')!.split('.');
    forged.searchParams.set('state', `${nonce}.${owner}.${'A'.repeat(43)}`);
    assert.equal((await browser.fetch(forged.href)).status, 400);
    // Without the browser's cookie, relayed or not: refused (and still open).
    assert.equal((await fetch(at(1))).status, 403);

    const relayed = await browser.fetch(at(1));
    assert.equal(relayed.status, 200);
    assert.match(await relayed.text(), /Signed in/);
    assert.match(text(await call), /hello client/);
    // Single-use, wherever it lands.
    assert.equal((await browser.fetch(at(0))).status, 400);
    assert.equal((await browser.fetch(at(1))).status, 400);
    // So is the connect URL, on either replica.
    assert.equal((await browser.fetch(on(0, `${connect.pathname}${connect.search}`))).status, 400);
    assert.equal((await browser.fetch(on(1, `${connect.pathname}${connect.search}`))).status, 400);
    assert.deepEqual(stack.tokenGrants, ['authorization_code']);
  });
});
