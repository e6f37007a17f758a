// Call attribution (src/host/servers/calls.ts): an input request carries the tool call it belongs to,
// exactly on 2026-07-28 (MRTR rounds run inside the call), and on 2025 eras whenever the in-flight
// calls of that connection leave no doubt or, over Streamable HTTP, the request arrives on its call's own
// POST stream. A gateway routes prompts to upstream sessions by `call.tag`.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServerManager } from '../src/host/servers/index.js';
import type { InputContext } from '../src/host/servers/index.js';
import type { ServerDef } from '../src/host/config/types.js';
import { serve } from '../src/server/index.js';
import { fixture, scriptedHandlers, text, clientInfo, fastStop } from './fixtures/servers-host/helpers.js';
// @ts-expect-error an .mjs test peer without types
import { reaskServer } from './fixtures/servers-host/v2-reask.mjs';

/** Holds every answer until `n` requests are pending (bounded), so concurrency is real, not assumed. */
function gate(n: number, ms = 10_000) {
  const seen: InputContext[] = [];
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const timer = setTimeout(() => open(), ms);
  return {
    seen,
    async wait(ctx: InputContext) {
      seen.push(ctx);
      if (seen.length >= n) clearTimeout(timer), open();
      await opened;
    },
  };
}

describe('2026-07-28 (SDK v2 dual-era server, modern verdict): each MRTR round is its own call', () => {
  const h = scriptedHandlers();
  const m = new ServerManager({ v2: fixture('v2', 'v2-dual.mjs') }, { handlers: h.handlers, clientInfo, stop: fastStop });
  after(() => m.stopAll());

  it('two concurrent calls with different tags: each prompt carries its own call, and each answer reaches its own call', async () => {
    await m.start('v2');
    const g = gate(2);
    h.state.answer = async (_p, ctx) => {
      await g.wait(ctx);
      return { action: 'accept', content: { name: `for-${ctx.call?.tag ?? 'nobody'}` } };
    };
    const [a, b] = await Promise.all([m.callTool('v2', 'ask', {}, { tag: 'alice' }), m.callTool('v2', 'ask', {}, { tag: 'bob' })]);
    assert.equal(m.info('v2')?.era, 'modern');
    assert.equal(g.seen.length, 2, 'both prompts were pending at once');
    assert.equal(text(a), 'hello for-alice');
    assert.equal(text(b), 'hello for-bob');
    for (const c of g.seen) {
      assert.equal(c.call?.tool, 'ask');
      assert.match(c.call?.callId ?? '', /^[0-9a-f-]{36}$/);
    }
    assert.notEqual(g.seen[0].call?.callId, g.seen[1].call?.callId);
  });
});

describe('2025-11-25 (SDK v1 server, pushed elicitation/create): attributed when the in-flight calls leave no doubt', () => {
  const h = scriptedHandlers();
  const m = new ServerManager({ v1: fixture('v1', 'v1-push.mjs') }, { handlers: h.handlers, clientInfo, stop: fastStop });
  after(() => m.stopAll());

  it('one call in flight: the pushed request is that call', async () => {
    h.state.answer = () => ({ action: 'accept', content: { name: 'grace' } });
    const r = await m.callTool('v1', 'ask', {}, { tag: 'alice' });
    assert.equal(m.info('v1')?.era, 'legacy');
    assert.equal(text(r), 'hello grace');
    const ctx = h.calls.at(-1)!.ctx;
    assert.equal(ctx.call?.tool, 'ask');
    assert.equal(ctx.call?.tag, 'alice');
    assert.match(ctx.call?.callId ?? '', /^[0-9a-f-]{36}$/);
  });

  it('two calls of one tag in flight: the tag is known, the call is not', async () => {
    const g = gate(2);
    h.state.answer = async (_p, ctx) => (await g.wait(ctx), { action: 'accept', content: { name: 'x' } });
    await Promise.all([m.callTool('v1', 'ask', {}, { tag: 'alice' }), m.callTool('v1', 'ask', {}, { tag: 'alice' })]);
    assert.equal(g.seen.length, 2);
    for (const c of g.seen) assert.deepEqual(c.call, { tool: 'one of: ask', callId: '', tag: 'alice' });
  });

  it('two calls of different tags in flight: not attributed (never guessed)', async () => {
    const g = gate(2);
    h.state.answer = async (_p, ctx) => (await g.wait(ctx), { action: 'accept', content: { name: 'x' } });
    await Promise.all([m.callTool('v1', 'ask', {}, { tag: 'alice' }), m.callTool('v1', 'ask', {}, { tag: 'bob' })]);
    assert.equal(g.seen.length, 2);
    for (const c of g.seen) assert.equal(c.call, undefined);
  });
});

for (const revision of ['2025-06-18', '2025-11-25'] as const) {
  describe(`${revision} over Streamable HTTP (SDK v2 server, pushed elicitation/create): the call's own POST stream names it`, () => {
    it('two calls of different tags in flight: each prompt carries its own call', async () => {
      const http = await serve(() => reaskServer({ revision }), { http: { port: 0 } });
      const def = { name: 'r', type: 'http', url: http.url, headers: {}, origin: { file: '<test>', pointer: '/servers/r' } } as ServerDef;
      const g = gate(2);
      const h = scriptedHandlers(async (_p, ctx) => {
        await g.wait(ctx);
        return { action: 'accept', content: { from: '2025-01-01', to: '2025-02-01', password: 'p' } };
      });
      const legacy = {
        getEraVerdict: async (defHash: string) => ({ defHash, era: 'legacy' as const, verifiedAt: Date.now() }),
        putEraVerdict: async () => {},
        deleteEraVerdict: async () => true,
      };
      const m = new ServerManager({ r: def }, { handlers: h.handlers, clientInfo, stop: fastStop, eraVerdicts: legacy });
      try {
        const [a, b] = await Promise.all([
          m.callTool('r', 'range', { tag: 'alice' }, { tag: 'alice' }),
          m.callTool('r', 'range', { tag: 'bob' }, { tag: 'bob' }),
        ]);
        assert.equal(m.info('r')?.negotiatedRevision, revision);
        assert.match(text(a), /^alice: /);
        assert.match(text(b), /^bob: /);
        assert.equal(g.seen.length, 2, 'both prompts were pending at once');
        for (const call of h.calls) {
          const tag = /Range for (\w+)\?/.exec(call.params.message)?.[1];
          assert.equal(call.ctx.call?.tag, tag, 'the prompt names the call it came from');
          assert.equal(call.ctx.call?.tool, 'range');
          assert.match(call.ctx.call?.callId ?? '', /^[0-9a-f-]{36}$/);
        }
        assert.notEqual(h.calls[0].ctx.call?.callId, h.calls[1].ctx.call?.callId);
      } finally {
        await m.stopAll();
        await http.close();
      }
    });
  });
}
