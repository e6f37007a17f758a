// Tenant administrators (issue 13 item 7): `gateway.tenants.<t>.admins` users read their own tenant's
// audit, presets, remembered answers and roots at /admin/*, never another tenant's, on SQLite and on a
// private PostgreSQL. The same user name ("alice") lives in both tenants; rows are written by real tool
// calls through the gateway (SDK v2 client over HTTP) and directly in the store for every identity.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway, hashToken } from '../src/gateway/index.js';
import { openPostgresStore, openSqliteStore } from '../src/host/index.js';
import type { Presenter, Store } from '../src/host/index.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { pgSkipReason, startPostgres } from './helpers/postgres.js';
import type { PgServer } from './helpers/postgres.js';

const TOKENS: Record<string, string> = {
  'acme/alice': 'pt_adm-acme-alice',
  'acme/bob': 'pt_adm-acme-bob',
  'globex/alice': 'pt_adm-globex-alice',
  'globex/carol': 'pt_adm-globex-carol',
};
const IDS = Object.keys(TOKENS);
const ADMINS = { acme: 'acme/alice', globex: 'globex/carol' } as const;

let pg: PgServer | undefined;
before(async () => {
  pg = await startPostgres();
});
after(() => pg?.stop());

const engines: Array<{ name: string; open: (dir: string) => Promise<Store>; skip?: () => string | undefined }> = [
  { name: 'SQLite', open: async (dir) => openSqliteStore(join(dir, 'g.db')) },
  { name: 'PostgreSQL', open: async () => openPostgresStore(await pg!.createDatabase()), skip: () => (pg ? undefined : pgSkipReason) },
];

for (const engine of engines) {
  describe(`tenant administrators on ${engine.name}: each sees only its own tenant`, () => {
    let url: string;
    let origin: string;
    let store: Store;
    let stop: () => Promise<void> = async () => {};
    let skipped: string | undefined;
    const fallback = (id: string): Presenter => ({
      interactive: true,
      present: async () => ({ action: 'accept', content: { name: `n-${id}` }, remember: 'always' }),
      notify: () => {},
    });
    before(async () => {
      skipped = engine.skip?.();
      if (skipped) return;
      const dir = mkdtempSync(join(tmpdir(), 'parley-gw-admin-'));
      store = await engine.open(dir);
      const config = gatewayConfig({ v2: fixture('v2', 'v2-dual.mjs') });
      const users = (t: string) =>
        Object.fromEntries(
          IDS.filter((i) => i.startsWith(`${t}/`)).map((i) => [i.slice(t.length + 1), { tokenSha256: hashToken(TOKENS[i]) }]),
        );
      config.gateway = {
        users: {},
        tenants: { acme: { users: users('acme'), admins: ['alice'] }, globex: { users: users('globex'), admins: ['carol'] } },
      };
      const gw = createGateway(config, { store, fallback });
      ({ url, stop } = await serveGateway(gw, {}, () => rmSync(dir, { recursive: true, force: true })));
      origin = new URL(url).origin;
      // Rows of every kind for every identity, each marked with its identity.
      for (const id of IDS) {
        const [tenant, user] = id.split('/');
        const scope = { tenant, user, session: null };
        await store.appendAudit({ ts: Date.now(), scope, server: 'v2', kind: 'note', detail: { mark: id } });
        await store.savePreset({ name: `preset-${id}`, scope, roots: [], answers: {}, config: {}, updatedAt: Date.now() });
        await store.putRoot({ scope, uri: `file:///tmp/${id}`, lifetime: 'app', source: 'user' });
        await store.remember({
          scope,
          server: 'v2',
          schemaHash: `h-${id}`,
          content: { mark: id },
          remember: 'always',
          updatedAt: Date.now(),
        });
        // A real tool call (no elicitation declared: the prompt goes to the fallback): its audit rows.
        const c = v2Client((() => ({ action: 'cancel' })) as never, { caps: {} });
        await c.connect(
          new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS[id]}` } } }),
        );
        try {
          assert.equal(text(await c.callTool({ name: 'v2__ask', arguments: {} })), `hello n-${id}`);
        } finally {
          await c.close();
        }
      }
    });
    after(async () => {
      await stop();
      await store?.close();
    });

    const get = async (path: string, id?: string) => {
      const r = await fetch(`${origin}${path}`, { headers: id ? { authorization: `Bearer ${TOKENS[id]}` } : {} });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };

    it('an admin reads its tenant’s audit (every user of it, real tool calls included) and no other tenant’s row', async (t) => {
      if (skipped) return t.skip(skipped);
      for (const [tenant, admin] of Object.entries(ADMINS)) {
        const { status, body } = await get('/admin/audit?limit=10000', admin);
        assert.equal(status, 200, JSON.stringify(body));
        assert.equal(body.tenant, tenant);
        const rows = body.audit as Array<{ scope: { tenant: string; user: string }; kind: string; detail?: { mark?: string } }>;
        assert.ok(rows.length > 0);
        assert.deepEqual(
          rows.filter((r) => r.scope.tenant !== tenant),
          [],
          `${admin} got another tenant's rows`,
        );
        const members = IDS.filter((i) => i.startsWith(`${tenant}/`));
        for (const m of members) {
          assert.ok(
            rows.some((r) => r.detail?.mark === m),
            `${admin} sees ${m}'s note`,
          );
          assert.ok(
            rows.some((r) => r.kind === 'tool-call' && r.scope.user === m.split('/')[1]),
            `${admin} sees ${m}'s tool call`,
          );
        }
        const others = IDS.filter((i) => !i.startsWith(`${tenant}/`));
        for (const o of others) assert.ok(!JSON.stringify(body).includes(`"mark":"${o}"`), `${admin} saw ${o}'s row`);
      }
      // Narrowed to one user name that exists in both tenants: still only the admin's tenant.
      const { body } = await get('/admin/audit?user=alice&limit=10000', ADMINS.globex);
      const rows = body.audit as Array<{ scope: { tenant: string; user: string } }>;
      assert.ok(rows.length > 0 && rows.every((r) => r.scope.tenant === 'globex' && r.scope.user === 'alice'));
    });

    it("presets, remembered answers and roots: an admin sees its tenant's users' rows only", async (t) => {
      if (skipped) return t.skip(skipped);
      for (const [tenant, admin] of Object.entries(ADMINS)) {
        const members = IDS.filter((i) => i.startsWith(`${tenant}/`));
        const others = IDS.filter((i) => !i.startsWith(`${tenant}/`));
        const presets = (await get('/admin/presets', admin)).body.presets as Array<{ name: string }>;
        assert.deepEqual(presets.map((p) => p.name).sort(), members.map((m) => `preset-${m}`).sort());
        const roots = (await get('/admin/roots', admin)).body.roots as Array<{ uri: string; scope: { tenant: string } }>;
        for (const m of members)
          assert.ok(
            roots.some((r) => r.uri === `file:///tmp/${m}`),
            `${admin} sees ${m}'s root`,
          );
        assert.ok(roots.every((r) => r.scope.tenant === tenant));
        for (const o of others) assert.ok(!roots.some((r) => r.uri === `file:///tmp/${o}`));
        const answers = (await get('/admin/answers', admin)).body.answers as Array<{ schemaHash: string; scope: { tenant: string } }>;
        for (const m of members)
          assert.ok(
            answers.some((a) => a.schemaHash === `h-${m}`),
            `${admin} sees ${m}'s remembered answer`,
          );
        assert.ok(answers.every((a) => a.scope.tenant === tenant));
        assert.ok(!JSON.stringify(answers).includes('"mark"'), 'remembered values are not shown');
      }
    });

    it('non-admins get 403, no token 401, other methods 405, unknown views 404', async (t) => {
      if (skipped) return t.skip(skipped);
      for (const id of ['acme/bob', 'globex/alice']) {
        const r = await get('/admin/audit', id);
        assert.equal(r.status, 403);
        assert.match(String(r.body.error), /not an administrator/);
      }
      assert.equal((await get('/admin/audit')).status, 401);
      assert.equal(
        (await fetch(`${origin}/admin/audit`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS[ADMINS.acme]}` } })).status,
        405,
      );
      assert.equal((await get('/admin/everything', ADMINS.acme)).status, 404);
      assert.equal((await get('/admin/audit?limit=0', ADMINS.acme)).status, 400);
    });
  });
}
