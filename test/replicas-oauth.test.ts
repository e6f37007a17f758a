// OAuth users across replicas (issue 13 items 4 and 7; docs/scaling.md §2026-07-28 and §2025-era sessions):
// a real OpenID provider (oidc-provider, test/helpers/oidc.ts) issues JWT access tokens with user and
// tenant claims; two replicas on one real PostgreSQL share PARLEY_SECRET. A 2026-07-28 retry that lands
// on the replica that does not park its call is forwarded to the owner, which must run it as the same
// OAuth user of the same tenant: the forwarding replica vouches for (key, user, tenant) with an HMAC proof
// bound to the owner's URL, and the bearer token stays where it arrived. Two users of one tenant and a
// namesake in another tenant retry overlapping rounds crossing the replicas both ways (right call, right
// person); a 2025-era session of an OAuth user works through the other replica too; a client that sends
// its own x-parley-forward header is not believed.
import { after, before, describe, it } from 'node:test';
import { existsSync } from 'node:fs';
import assert from 'node:assert/strict';
import pg from 'pg';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { text } from './fixtures/toolkit/peers.js';
import { forwardProof } from '../src/gateway/forward.js';
import { clusterSkipReason, NGINX, SECRET, startCluster } from './helpers/replicas.js';
import type { Cluster } from './helpers/replicas.js';
import { startIssuer } from './helpers/oidc.js';
import { postModernToolsList } from './helpers/modern-request.js';
import type { Issuer, IssuerClient } from './helpers/oidc.js';
import { pgSkipReason } from './helpers/postgres.js';

/** The audience every replica accepts (`gateway.oauth.resource`): the balancer's public URL in production. */
const RESOURCE = 'https://mcp.example.test/mcp';
const DANA: IssuerClient = { id: 'dana-app', secret: 'dana-secret', claims: { preferred_username: 'dana', tid: 'initech' } };
const ERIN: IssuerClient = { id: 'erin-app', secret: 'erin-secret', claims: { preferred_username: 'erin', tid: 'initech' } };
/** Another tenant's user with the same name as DANA. */
const DANA2: IssuerClient = { id: 'dana2-app', secret: 'dana2-secret', claims: { preferred_username: 'dana', tid: 'umbrella' } };
const WHO: Array<{ c: IssuerClient; label: string; tenant: string; user: string }> = [
  { c: DANA, label: 'initech/dana', tenant: 'initech', user: 'dana' },
  { c: ERIN, label: 'initech/erin', tenant: 'initech', user: 'erin' },
  { c: DANA2, label: 'umbrella/dana', tenant: 'umbrella', user: 'dana' },
];

/** Reads the owner URL a sealed requestState names (signed, not encrypted: `<3-char prefix><b64url json>.<mac>`). */
function ownerOf(state: string): string {
  const body = state.slice(3, state.lastIndexOf('.'));
  return (JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { p: { a: string } }).p.a;
}

async function modern(url: string, token: string) {
  const m = new Client({ name: 'm', version: '1' }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: 'auto' },
    inputRequired: { autoFulfill: false },
  } as never);
  await m.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return m;
}

describe('OAuth users across replicas on PostgreSQL', { skip: clusterSkipReason }, () => {
  let issuer: Issuer | undefined;
  let c: Cluster | undefined;
  const tokens = new Map<string, string>();
  before(async () => {
    if (clusterSkipReason) return;
    issuer = await startIssuer(WHO.map((w) => w.c));
    c = await startCluster({
      replicas: 2,
      gateway: {
        oauth: { issuer: issuer.issuer, resource: RESOURCE, scopes: ['mcp'], userClaim: 'preferred_username', tenantClaim: 'tid' },
      },
    });
    for (const w of WHO) tokens.set(w.label, await issuer.token(w.c, RESOURCE));
  });
  after(async () => {
    await c?.stop();
    await issuer?.close();
  });

  it("2026-07-28: overlapping retries of two users and a namesake in another tenant, each forwarded to the other replica, get their own call's answer", async (t) => {
    if (!c) return t.skip(pgSkipReason);
    const [a, b] = c.replicas.map((r) => r.url);
    // Two rounds per user, one parked on each replica; every retry goes through the other one.
    const rounds = await Promise.all(
      WHO.flatMap((w) =>
        [0, 1].map(async (k) => {
          const park = k === 0 ? a : b;
          const via = k === 0 ? b : a;
          const token = tokens.get(w.label)!;
          const first = await modern(park, token);
          const again = await modern(via, token);
          const r = (await first.callTool({ name: 'v2__ask', arguments: {} } as never, { allowInputRequired: true } as never)) as Record<
            string,
            unknown
          >;
          assert.equal(r.resultType, 'input_required', JSON.stringify(r));
          assert.equal(ownerOf(r.requestState as string), park, 'the round is parked where it started');
          return { w, k, via, first, again, r };
        }),
      ),
    );
    try {
      // All retries at once, answers crossing: each carries its own answer through the replica that does
      // not park its call.
      const results = await Promise.all(
        rounds.map(async ({ w, k, again, r }) => {
          const key = Object.keys(r.inputRequests as object)[0];
          const res = await again.callTool(
            {
              name: 'v2__ask',
              arguments: {},
              inputResponses: { [key]: { action: 'accept', content: { name: `${w.label}#${k}` } } },
              requestState: r.requestState,
            } as never,
            { allowInputRequired: true } as never,
          );
          return text(res);
        }),
      );
      assert.deepEqual(
        results,
        rounds.map(({ w, k }) => `hello ${w.label}#${k}`),
      );
      // Another user's requestState is refused at the replica it reaches, before anything is forwarded.
      const x = await modern(b, tokens.get('initech/erin')!);
      const y = await modern(a, tokens.get('initech/dana')!);
      try {
        const dana = (await y.callTool({ name: 'v2__ask', arguments: {} } as never, { allowInputRequired: true } as never)) as Record<
          string,
          unknown
        >;
        const key = Object.keys(dana.inputRequests as object)[0];
        await assert.rejects(
          x.callTool(
            {
              name: 'v2__ask',
              arguments: {},
              inputResponses: { [key]: { action: 'accept', content: { name: 'erin in dana’s round' } } },
              requestState: dana.requestState,
            } as never,
            { allowInputRequired: true } as never,
          ),
          (e: Error & { code?: number }) => e.code === -32602 || /requestState/i.test(e.message),
        );
      } finally {
        await x.close();
        await y.close();
      }
    } finally {
      await Promise.all(rounds.flatMap(({ first, again }) => [first.close(), again.close()]));
    }
    // The owners ran each call as the OAuth user of the right tenant: the audit rows name exactly these
    // three (tenant, user) pairs, never a forwarding replica's guess.
    const db = new pg.Client({ connectionString: c.storeUrl });
    await db.connect();
    try {
      const rows = (await db.query('SELECT DISTINCT tenant, "user" AS u FROM audit ORDER BY tenant, u')).rows as Array<{
        tenant: string;
        u: string;
      }>;
      assert.deepEqual(
        rows.map((r) => `${r.tenant}/${r.u}`),
        ['initech/dana', 'initech/erin', 'umbrella/dana'],
      );
    } finally {
      await db.end();
    }
  });

  it('2025-era: an OAuth user’s session opened on one replica works through the other (forwarded without the token)', async (t) => {
    if (!c) return t.skip(pgSkipReason);
    const [a, b] = c.replicas.map((r) => r.url);
    let n = 0;
    const fetchVia = (_u: string | URL, init?: RequestInit) => fetch(n++ === 0 ? a : b, init);
    const s = new Client({ name: 'v2', version: '1' }, { capabilities: { elicitation: { form: {} } } as never });
    s.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'erin, pushed' } }) as never);
    await s.connect(
      new StreamableHTTPClientTransport(new URL(a), {
        requestInit: { headers: { authorization: `Bearer ${tokens.get('initech/erin')}` } },
        fetch: fetchVia as never,
      }),
    );
    try {
      assert.equal(text(await s.callTool({ name: 'v2__ask', arguments: {} })), 'hello erin, pushed');
      assert.ok(n > 2, 'requests after initialize went to the other replica');
    } finally {
      await s.close();
    }
  });

  it('through nginx (the docs/scaling.md example): a client without a token finds the RFC 9728 metadata the 401 points to', async (t) => {
    if (!c) return t.skip(pgSkipReason);
    if (!existsSync(NGINX) && !process.env.CI) return t.skip(`${NGINX} not found: install Debian package nginx`);
    const lb = await c.nginx();
    const res = await fetch(lb, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    assert.equal(res.status, 401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    const where = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    assert.ok(where, challenge);
    // The balancer's origin stands in for the public one (RESOURCE's host is not resolvable here).
    const meta = await fetch(new URL(new URL(where).pathname, lb));
    // An example that proxied only /mcp answered nginx's own 404 here: no client could discover the issuer.
    assert.equal(meta.status, 200, `GET ${new URL(where).pathname} through nginx`);
    const doc = (await meta.json()) as { resource: string; authorization_servers: string[] };
    assert.equal(doc.resource, RESOURCE);
    assert.deepEqual(doc.authorization_servers, [issuer!.issuer]);
  });

  it('a client’s own x-parley-forward header is not believed: a wrong secret, or a proof made for another replica, gets 401', async (t) => {
    if (!c) return t.skip(pgSkipReason);
    const [a, b] = c.replicas.map((r) => r.url);
    const dana = { key: 'initech/dana', user: 'dana', tenant: 'initech' };
    const post = (url: string, proof: string) => postModernToolsList(url, { 'x-parley-forward': proof });
    assert.equal((await post(a, forwardProof('not the replicas’ secret, but 32+ bytes long', dana, a))).status, 401);
    assert.equal((await post(a, forwardProof(SECRET, dana, b))).status, 401, 'a proof for replica b is not one for replica a');
    // The control: the replicas' own proof for this replica is accepted (what a forwarding replica sends).
    assert.equal((await post(a, forwardProof(SECRET, dana, a))).status, 200);
  });
});
