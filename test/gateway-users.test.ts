// Several users over HTTP (issue 6): bearer identities hashed in parley.json, one host per user, and an
// elicitation reaches only the user whose call caused it — interleaved, on a 2025-era and a 2026-07-28
// downstream, with the audit log keyed by user. Also: nothing is left waiting after a disconnect.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway, hashToken } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { openPostgresStore, openSqliteStore } from '../src/host/index.js';
import { pgSkipReason, startPostgres, type PgServer } from './helpers/postgres.js';
import type { Store } from '../src/host/index.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { hostInternals } from '../src/host/internals.js';

const TOKENS = { alice: 'pt_alice-secret-token', bob: 'pt_bob-secret-token' };

// The same scenario on both stores: the embedded SQLite file and a real PostgreSQL (test/helpers/postgres.ts).
for (const engine of ['sqlite', 'postgres'] as const)
  describe(`gateway: two users, interleaved elicitations, zero cross-delivery (${engine} store)`, {
    skip: engine === 'postgres' && pgSkipReason && !/^(1|true|yes)$/i.test(process.env.CI ?? '') ? pgSkipReason : false,
  }, () => {
    let gw: Gateway;
    let pg: PgServer | undefined;
    let url: string;
    let dir: string;
    let store: Store;
    let stop: () => Promise<void>;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'parley-gw-users-'));
      if (engine === 'postgres') pg = await startPostgres();
      store = pg ? await openPostgresStore(await pg.createDatabase()) : openSqliteStore(join(dir, 'g.db'));
      const config = gatewayConfig({ v1: fixture('v1', 'v1-push.mjs'), v2: fixture('v2', 'v2-dual.mjs') });
      config.gateway = { users: { alice: { tokenSha256: hashToken(TOKENS.alice) }, bob: { tokenSha256: hashToken(TOKENS.bob) } } };
      gw = createGateway(config, { store });
      ({ url, stop } = await serveGateway(gw, {}));
      // Start both users' servers up front so the interleaving below is not at the mercy of cold starts.
      await Promise.all([gw.space('alice').host.start(), gw.space('bob').host.start()]);
    });
    after(async () => {
      await stop();
      await store.close();
      await pg?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    /** A client of `user` whose prompts wait until released; records what it was asked. */
    function userClient(user: keyof typeof TOKENS, mode?: 'auto') {
      const asked: string[] = [];
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const arrived: Array<() => void> = [];
      const c = v2Client(
        (async (r: { params: { message: string } }) => {
          asked.push(r.params.message);
          arrived.shift()?.();
          await released;
          return { action: 'accept', content: { name: user } };
        }) as never,
        mode ? { mode } : {},
      );
      const connect = () =>
        c.connect(
          new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS[user]}` } } }),
        );
      const prompted = () =>
        new Promise<void>((r, j) => {
          arrived.push(r);
          setTimeout(() => j(new Error(`${user} was not prompted within 60 s`)), 60_000).unref();
        });
      return { c, asked, release, connect, prompted };
    }

    for (const [label, mode] of [
      ['2025-11-25 clients', undefined],
      ['2026-07-28 clients', 'auto'],
    ] as const) {
      for (const tool of ['v1__ask', 'v2__ask']) {
        it(`${label}, ${tool}: alice's prompt goes to alice and bob's to bob while both wait`, async () => {
          const a = userClient('alice', mode),
            b = userClient('bob', mode);
          await a.connect();
          await b.connect();
          try {
            const aPrompted = a.prompted(),
              bPrompted = b.prompted();
            const aCall = a.c.callTool({ name: tool, arguments: {} });
            await aPrompted;
            const bCall = b.c.callTool({ name: tool, arguments: {} });
            await bPrompted;
            // Both prompts are pending now; answer bob first.
            b.release();
            assert.equal(text(await bCall), 'hello bob');
            a.release();
            assert.equal(text(await aCall), 'hello alice');
            assert.deepEqual(a.asked, [`[${tool.slice(0, 2)}] Your name?`]);
            assert.deepEqual(b.asked, [`[${tool.slice(0, 2)}] Your name?`]);
          } finally {
            await a.c.close();
            await b.c.close();
          }
        });
      }
    }

    it('each user has their own host and audit rows', async () => {
      assert.notEqual(gw.space('alice').host, gw.space('bob').host);
      const alice = await store.queryAudit({ scope: { user: 'alice' }, kind: 'tool-call', limit: 1000 });
      const bob = await store.queryAudit({ scope: { user: 'bob' }, kind: 'tool-call', limit: 1000 });
      assert.ok(alice.length >= 4 && bob.length >= 4, `alice ${alice.length}, bob ${bob.length}`);
      assert.ok(alice.every((r) => r.scope.user === 'alice'));
      assert.ok(bob.every((r) => r.scope.user === 'bob'));
    });

    it("no token or a wrong token is HTTP 401; nobody can use another user's session", async () => {
      const init = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      });
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      assert.equal((await fetch(url, { method: 'POST', headers, body: init })).status, 401);
      assert.equal(
        (await fetch(url, { method: 'POST', headers: { ...headers, authorization: 'Bearer pt_wrong' }, body: init })).status,
        401,
      );
      const ok = await fetch(url, { method: 'POST', headers: { ...headers, authorization: `Bearer ${TOKENS.alice}` }, body: init });
      assert.equal(ok.status, 200);
      const sid = ok.headers.get('mcp-session-id')!;
      await ok.text();
      const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const asBob = await fetch(url, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${TOKENS.bob}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
        body: list,
      });
      assert.equal(asBob.status, 404);
    });

    it('a client that disconnects while its prompt waits leaves nothing behind', async () => {
      const a = userClient('alice');
      await a.connect();
      const prompted = a.prompted();
      const call = a.c.callTool({ name: 'v1__ask', arguments: {} }).catch((e: Error) => e);
      await prompted;
      assert.equal(gw.stats().openCalls, 1);
      // req: CANCEL-SERVER-REQUEST
      await a.c.close();
      await call;
      const deadline = Date.now() + 10_000;
      while (gw.stats().openCalls > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.equal(gw.stats().openCalls, 0, 'the upstream call was closed');
      assert.equal(hostInternals(gw.space('alice').host).broker.pending?.().length ?? 0, 0, 'no prompt left pending in the broker');
    });
  });
