// Tenants (issue 13 item 7): users of two tenants, one user name in both, real SDK clients over HTTP on
// both eras, on SQLite and on a private PostgreSQL. Proves that no tenant ever sees another tenant's
// prompts, audit rows, presets or servers: each identity gets a host scoped (tenant, user).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway, hashToken } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { openPostgresStore, openSqliteStore } from '../src/host/store/index.js';
import type { Presenter, InputRequestView, Store } from '../src/host/index.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { pgSkipReason, startPostgres } from './helpers/postgres.js';
import type { PgServer } from './helpers/postgres.js';

/** Identity → token. `alice` exists in both tenants; `globex` gets only the v2 server. */
const TOKENS: Record<string, string> = {
  'acme/alice': 'pt_acme-alice',
  'acme/bob': 'pt_acme-bob',
  'globex/alice': 'pt_globex-alice',
  'globex/carol': 'pt_globex-carol',
};
const IDS = Object.keys(TOKENS);

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
  describe(`gateway tenants on ${engine.name}: nobody sees another tenant's data`, () => {
    let gw: Gateway;
    let url: string;
    let store: Store;
    let stop: () => Promise<void> = async () => {};
    let skipped: string | undefined;
    /** Prompts that reached each identity's fallback (clients that declared no elicitation). */
    const fallbackViews: Record<string, InputRequestView[]> = {};
    const fallback = (id: string): Presenter => ({
      interactive: true,
      present: async (view: InputRequestView) => {
        (fallbackViews[id] ??= []).push(view);
        return { action: 'accept', content: { name: `remembered ${id}` }, remember: 'always' };
      },
      notify: () => {},
    });
    before(async () => {
      skipped = engine.skip?.();
      if (skipped) return;
      const dir = mkdtempSync(join(tmpdir(), 'parley-gw-tenants-'));
      store = await engine.open(dir);
      const config = gatewayConfig({ v1: fixture('v1', 'v1-push.mjs'), v2: fixture('v2', 'v2-dual.mjs') });
      const users = (t: string) =>
        Object.fromEntries(
          IDS.filter((i) => i.startsWith(`${t}/`)).map((i) => [i.slice(t.length + 1), { tokenSha256: hashToken(TOKENS[i]) }]),
        );
      config.gateway = { users: {}, tenants: { acme: { users: users('acme') }, globex: { users: users('globex'), servers: ['v2'] } } };
      gw = createGateway(config, { store, fallback });
      ({ url, stop } = await serveGateway(gw, {}, () => rmSync(dir, { recursive: true, force: true })));
      await Promise.all(IDS.map((i) => gw.space(i).host.start()));
    });
    after(async () => {
      await stop();
      await store?.close();
    });

    function client(id: string, mode?: 'auto') {
      const asked: string[] = [];
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const arrived: Array<() => void> = [];
      const c = v2Client(
        (async (r: { params: { message: string } }) => {
          asked.push(r.params.message);
          arrived.shift()?.();
          await released;
          return { action: 'accept', content: { name: id } };
        }) as never,
        mode ? { mode } : {},
      );
      const connect = () =>
        c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS[id]}` } } }));
      const prompted = () =>
        new Promise<void>((r, j) => {
          arrived.push(r);
          setTimeout(() => j(new Error(`${id} was not prompted within 60 s`)), 60_000).unref();
        });
      return { c, asked, release, connect, prompted };
    }

    for (const [label, mode] of [
      ['2025-11-25 clients', undefined],
      ['2026-07-28 clients', 'auto'],
    ] as const) {
      it(`${label}: four users of two tenants, all prompts pending at once, each answer reaches its own caller`, (t) => {
        if (skipped) return t.skip(skipped);
        return (async () => {
          const cs = IDS.map((id) => client(id, mode));
          await Promise.all(cs.map((x) => x.connect()));
          try {
            const calls: Array<Promise<unknown>> = [];
            for (const x of cs) {
              const p = x.prompted();
              calls.push(x.c.callTool({ name: 'v2__ask', arguments: {} }));
              await p;
            }
            // Every prompt is pending; release in reverse order so answers cross.
            for (const x of [...cs].reverse()) x.release();
            const results = await Promise.all(calls);
            IDS.forEach((id, i) => {
              assert.equal(text(results[i]), `hello ${id}`);
              assert.deepEqual(cs[i].asked, ['[v2] Your name?']);
            });
          } finally {
            await Promise.all(cs.map((x) => x.c.close()));
          }
        })();
      });
    }

    it("a tenant's servers list narrows what its users see; the others see every server", async (t) => {
      if (skipped) return t.skip(skipped);
      for (const [id, want] of [
        ['acme/alice', ['v1', 'v2']],
        ['globex/alice', ['v2']],
      ] as const) {
        const x = client(id);
        await x.connect();
        try {
          const servers = new Set((await x.c.listTools()).tools.map((tool) => tool.name.split('__')[0]));
          assert.deepEqual([...servers].sort(), want, id);
          if (id.startsWith('globex')) {
            const r = await x.c.callTool({ name: 'v1__ask', arguments: {} }).catch((e: Error) => e);
            assert.ok(r instanceof Error && /Unknown tool/.test(r.message), "globex cannot reach acme's server");
          }
        } finally {
          await x.c.close();
        }
      }
    });

    it("audit rows carry (tenant, user); a tenant's query returns only its own rows", async (t) => {
      if (skipped) return t.skip(skipped);
      for (const tenant of ['acme', 'globex']) {
        const rows = await store.queryAudit({ scope: { tenant }, limit: 10_000 });
        assert.ok(rows.length > 0, `${tenant} has rows`);
        assert.ok(
          rows.every((r) => r.scope.tenant === tenant),
          `${tenant}'s query returned another tenant's row`,
        );
      }
      // The same user name in two tenants: two disjoint row sets, each with that user's tool calls.
      const a = await store.queryAudit({ scope: { tenant: 'acme', user: 'alice' }, kind: 'tool-call', limit: 10_000 });
      const g = await store.queryAudit({ scope: { tenant: 'globex', user: 'alice' }, kind: 'tool-call', limit: 10_000 });
      assert.ok(a.length >= 2 && g.length >= 2, `acme/alice ${a.length}, globex/alice ${g.length}`);
      assert.ok(a.every((r) => r.scope.tenant === 'acme') && g.every((r) => r.scope.tenant === 'globex'));
      // The audit reader of a host is its own tenant's: gw.space(id).host.audit scopes by the caller.
      assert.equal(gw.space('globex/alice').tenant, 'globex');
      assert.equal(gw.space('acme/alice').tenant, 'acme');
    });

    it("an answer acme/alice remembers prefills acme/alice's next prompt, never globex/alice's", async (t) => {
      if (skipped) return t.skip(skipped);
      const call = async (id: string) => {
        const c = v2Client((() => ({ action: 'cancel' })) as never, { caps: {} });
        await c.connect(
          new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS[id]}` } } }),
        );
        try {
          return text(await c.callTool({ name: 'v2__ask', arguments: {} }));
        } finally {
          await c.close();
        }
      };
      assert.equal(await call('acme/alice'), 'hello remembered acme/alice');
      assert.deepEqual(fallbackViews['acme/alice'][0].prefill, {}, 'nothing remembered yet');
      // Remembered answers are written without blocking the call: wait for the row (bounded).
      const deadline = Date.now() + 10_000;
      for (;;) {
        assert.equal(await call('acme/alice'), 'hello remembered acme/alice');
        const last = fallbackViews['acme/alice'].at(-1)!;
        if (last.prefill.name === 'remembered acme/alice') break;
        assert.ok(Date.now() < deadline, "acme/alice's remembered answer never came back as prefill");
      }
      assert.equal(await call('globex/alice'), 'hello remembered globex/alice');
      assert.deepEqual(fallbackViews['globex/alice'][0].prefill, {}, "globex/alice was offered acme/alice's remembered answer");
      assert.equal(await call('acme/bob'), 'hello remembered acme/bob');
      assert.deepEqual(fallbackViews['acme/bob'][0].prefill, {}, "acme/bob was offered acme/alice's remembered answer");
    });

    // A gateway host's presets are kept under its own session (host scope has a random session id), so this
    // guards the (tenant, user) part without being its proof: the audit and remembered-answer tests above are.
    it('presets saved by acme/alice are invisible to globex/alice and acme/bob', async (t) => {
      if (skipped) return t.skip(skipped);
      await gw.space('acme/alice').host.presets.save('acme-secret', { answers: { x: { name: 'acme' } } as never });
      assert.deepEqual(
        (await gw.space('acme/alice').host.presets.list()).map((p) => p.name),
        ['acme-secret'],
      );
      for (const other of ['globex/alice', 'acme/bob', 'globex/carol']) {
        assert.deepEqual(await gw.space(other).host.presets.list(), [], other);
        await assert.rejects(gw.space(other).host.presets.load('acme-secret'), /no preset named/, other);
      }
    });
  });
}
