// Issue 12 items 4 and 5: every server→client request a 2025-era server pushes reaches parley's liberal
// reader (not the SDK Client's own validation first), over stdio and Streamable HTTP, with a real SDK
// v1 1.32.2 server pushing raw params: `$ref` is repaired and shown; a nested object, a missing or
// non-string message, empty params, a schema that is not an object and a title over the cap get a
// short -32602 naming the rule and pointer, an audit row and a notice for the person; roots/list with
// garbage params is answered; sampling and unknown methods get -32601. Nothing is left unanswered.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { ServerManager } from '../src/host/servers/index.js';
import { ElicitationBroker } from '../src/host/broker/index.js';
import { ScriptedPresenter } from '../src/host/presenter.js';
import { CallbackServer, MemoryCredentialStore } from '../src/host/auth/index.js';
import type { HttpServerDef, ServerDef } from '../src/host/config/types.js';
import { MemoryStore } from './fixtures/broker/memoryStore.js';
import { fixture, clientInfo, fastStop, text, ROOT } from './fixtures/servers-host/helpers.js';
import { spawnListening, stopChild } from './helpers/peers.js';
import { bounded } from './helpers/wait.js';

const ZOD_DUMP = /invalid_type|"code":|Invalid elicitation request/;

/** `auth`: as createHost always passes it (OAuth sign-ins ready), so the transport's fetch is the session's. */
function host(def: ServerDef, auth = false) {
  const store = new MemoryStore();
  const presenter = new ScriptedPresenter([
    (p) => ({ action: 'accept', content: { colour: (p.schema?.properties.colour as { enum?: string[] })?.enum?.[0] } }),
  ]);
  const broker = new ElicitationBroker({ presenter, store });
  const m = new ServerManager(
    { hostile: def },
    {
      handlers: {
        elicit: broker.elicit,
        elicitationComplete: broker.elicitationComplete,
        malformedMessage: broker.malformedMessage,
        listRoots: async () => ({ roots: [ROOT] }),
      },
      clientInfo,
      stop: fastStop,
      ...(auth
        ? {
            auth: {
              store: new MemoryCredentialStore(),
              callback: new CallbackServer(),
              presenter,
              scope: { tenant: 'default', user: 'default' },
            },
          }
        : {}),
    },
  );
  const call = async (c: string) =>
    JSON.parse(text(await bounded(m.callTool('hostile', `push-${c}`, {}), 25_000, `push-${c}`))) as {
      result?: any;
      error?: { code: number; message: string };
    };
  return { m, store, presenter, call };
}

for (const [transport, auth] of [
  ['stdio', false],
  ['http', false],
  ['http', true],
] as const) {
  describe(`server→client requests from an SDK v1 server over ${transport}${auth ? ' (with OAuth sign-ins ready, as createHost)' : ''}`, () => {
    let peer: ChildProcess | undefined;
    let h: ReturnType<typeof host>;
    before(async () => {
      let def: ServerDef = fixture('hostile', 'v1-hostile.mjs');
      if (transport === 'http') {
        const { child, match } = await spawnListening([def.args[0], '--http'], /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
        peer = child;
        def = {
          name: 'hostile',
          type: 'http',
          url: match,
          headers: {},
          origin: { file: '<test>', pointer: '/servers/hostile' },
        } satisfies HttpServerDef;
      }
      h = host(def, auth);
      await h.m.start('hostile');
      assert.equal(h.m.info('hostile')?.era, 'legacy');
    });
    after(async () => {
      await h?.m.stopAll();
      if (peer) await stopChild(peer);
    });

    it('a $ref schema is repaired (inlined) and shown; the answer goes back', async () => {
      const r = await h.call('ref');
      assert.deepEqual(r.result, { action: 'accept', content: { colour: 'red' } });
      const prompt = h.presenter.prompts.at(-1)!;
      assert.ok(
        prompt.repairs.some((x) => x.code === 'ref-inlined'),
        JSON.stringify(prompt.repairs),
      );
    });

    it('a nested object is refused with a short -32602 naming the rule and pointer; audited; the person is told', async () => {
      const notices = h.presenter.notices.length;
      const r = await h.call('nested');
      assert.equal(r.error?.code, -32602, JSON.stringify(r));
      assert.match(r.error!.message, /nested-object at requestedSchema\/properties\/address/);
      assert.doesNotMatch(r.error!.message, ZOD_DUMP);
      assert.ok(r.error!.message.length < 600, r.error!.message);
      const told = h.presenter.notices.slice(notices);
      assert.deepEqual(
        told.map((n) => [n.kind, n.server, n.reason]),
        [['refused', 'hostile', 'invalid-request']],
      );
      assert.match(told[0].message, /hostile sent a request parley could not show/);
      const rows = h.store.audit.filter((a) => a.requestId === told[0].requestId);
      assert.deepEqual(
        rows.map((a) => a.kind),
        ['request', 'error'],
      );
      assert.equal(rows[1].detail?.code, -32602);
    });

    for (const [c, re] of [
      ['no-message', /message must be a string/],
      ['message-number', /message must be a string/],
      ['empty-params', /message must be a string/],
      ['no-params', /params must be an object|message must be a string/],
      ['schema-string', /not-object at requestedSchema: requestedSchema must be a JSON object/],
      ['huge-title', /too-large at requestedSchema\/properties\/a\/title: a property title has 100000 characters, over the cap of 512/],
    ] as const) {
      it(`elicitation/create with ${c} gets -32602 (never silence), audited and told`, async () => {
        const notices = h.presenter.notices.length;
        const r = await h.call(c);
        assert.equal(r.error?.code, -32602, JSON.stringify(r).slice(0, 500));
        assert.match(r.error!.message, re);
        assert.doesNotMatch(r.error!.message, ZOD_DUMP);
        assert.equal(h.presenter.notices.slice(notices).filter((n) => n.reason === 'invalid-request').length, 1);
      });
    }

    it('roots/list with garbage params is answered with the roots', async () => {
      const r = await h.call('roots-garbage');
      assert.deepEqual(r.result, { roots: [ROOT] });
    });

    it(`params null, an array or a number get -32602 too (carried past the transport's parse: ${transport === 'http' ? 'wire-repair.ts' : "parley's own stdio reader"}), audited and told`, async () => {
      for (const [c, got] of [
        ['null-params', 'null'],
        ['array-params', 'an array'],
        ['number-params', 'number'],
      ] as const) {
        const notices = h.presenter.notices.length;
        const r = await h.call(c);
        assert.equal(r.error?.code, -32602, `${c}: ${JSON.stringify(r)}`);
        assert.match(r.error!.message, new RegExp(`params must be an object \\(got ${got}\\)`));
        const told = h.presenter.notices.slice(notices).filter((n) => n.reason === 'invalid-request');
        assert.equal(told.length, 1, `${c}: the person is told once`);
        assert.match(told[0].message, /hostile sent a request parley could not show/);
        const rows = h.store.audit.filter((a) => a.requestId === told[0].requestId);
        assert.deepEqual(
          rows.map((a) => a.kind),
          ['request', 'error'],
          c,
        );
      }
    });

    it('sampling/createMessage (not offered) and an unknown method get -32601', async () => {
      for (const c of ['sampling-garbage', 'unknown-method']) {
        const r = await h.call(c);
        assert.equal(r.error?.code, -32601, `${c}: ${JSON.stringify(r)}`);
      }
    });
  });
}

describe('2026-07-28: a pushed server→client request (which that revision does not have)', () => {
  it('is answered -32601 instead of being dropped in silence', async () => {
    const h = host(fixture('hostile', 'modern-push.mjs'));
    try {
      await h.m.start('hostile');
      assert.equal(h.m.info('hostile')?.era, 'modern');
      const r = await bounded(h.m.callTool('hostile', 'push', {}), 20_000, 'push');
      assert.equal(text(r), 'answered -32601');
    } finally {
      await h.m.stopAll();
    }
  });
});
