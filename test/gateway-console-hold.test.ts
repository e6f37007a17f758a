// Clients without elicitation (issue 15 item 11): while a prompt of their call waits in parley's console,
// a client that sent a progressToken gets progress naming the console address (never its token), which
// keeps its timeout alive; a client without one gets, after a bound, a result saying where to answer, and
// calling the tool again with the same arguments picks up the same downstream call.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import type { Presenter, PresenterAnswer, InputRequestView } from '../src/host/index.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { text } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { waitUntil } from './helpers/wait.js';

const CONSOLE = 'http://127.0.0.1:41999/';

/** Stands in for the console: prompts wait until the test answers them. */
class DeferredConsole implements Presenter {
  readonly interactive = true;
  readonly waiting: Array<{ prompt: InputRequestView; answer: (a: PresenterAnswer) => void }> = [];
  shown = 0;
  present(prompt: InputRequestView): Promise<PresenterAnswer> {
    this.shown++;
    return new Promise((answer) => this.waiting.push({ prompt, answer }));
  }
  notify(): void {}
}

describe('gateway: calls waiting for the console', () => {
  let gw: Gateway;
  let url: string;
  let stop: () => Promise<void>;
  const console = new DeferredConsole();
  before(async () => {
    gw = createGateway(gatewayConfig({ v1: fixture('v1', 'v1-push.mjs') }), {
      fallback: () => console,
      consoleAddress: () => CONSOLE,
      hold: { progressEveryMs: 150, holdMs: 700, keepMs: 60_000 },
    });
    ({ url, stop } = await serveGateway(gw));
    await gw.space('default').host.start();
  });
  after(() => stop());

  it('with a progressToken: progress names the console without its token and keeps a 1 s client timeout alive for 2.5 s', {
    timeout: 60_000,
  }, async () => {
    const c = new Client({ name: 'no-elicit', version: '1' }, { capabilities: {} });
    const t = new StreamableHTTPClientTransport(new URL(url));
    await c.connect(t);
    try {
      const notes: Array<{ progress: number; message?: string }> = [];
      const result = c.callTool(
        { name: 'v1__ask', arguments: { n: 1 } },
        { onprogress: (p) => void notes.push(p), timeout: 1_000, resetTimeoutOnProgress: true, maxTotalTimeout: 30_000 },
      );
      await waitUntil(() => console.waiting.length === 1, { ms: 20_000 });
      await new Promise((r) => setTimeout(r, 2_500));
      console.waiting.shift()!.answer({ action: 'accept', content: { name: 'console' } });
      const r = await result;
      assert.equal(text(r as never), 'hello console');
      assert.ok(notes.length >= 5, `${notes.length} progress notifications`);
      assert.ok(
        notes.every((n, i) => i === 0 || n.progress > notes[i - 1].progress),
        'progress increases',
      );
      assert.match(
        notes[0].message ?? '',
        new RegExp(
          `v1 asks for fields name, which this client cannot show\\. Answer it in parley's console at ${CONSOLE.replace(/\//g, '\\/')}`,
        ),
      );
      assert.doesNotMatch(notes.map((n) => n.message).join('\n'), /token=/);
    } finally {
      await t.terminateSession().catch(() => undefined);
      await c.close();
    }
  });

  it('without a progressToken: after the bound, "answer in the console, call again"; the second call picks up the same call', {
    timeout: 60_000,
  }, async () => {
    const c = new V1Client({ name: 'v1-no-elicit', version: '1' }, { capabilities: {} });
    const t = new V1Http(new URL(url));
    await c.connect(t);
    const shownBefore = console.shown;
    try {
      const first = (await c.callTool({ name: 'v1__ask', arguments: { n: 2 } })) as { isError?: boolean };
      assert.equal(first.isError, true);
      assert.match(
        text(first as never),
        /Answer it in parley's console at http:\/\/127\.0\.0\.1:41999\/.*Then call v1__ask again with the same arguments/,
      );
      assert.equal(console.waiting.length, 1, 'the prompt still waits in the console');
      console.waiting.shift()!.answer({ action: 'accept', content: { name: 'later' } });
      const second = await c.callTool({ name: 'v1__ask', arguments: { n: 2 } });
      assert.equal(text(second as never), 'hello later');
      assert.equal(console.shown - shownBefore, 1, 'one downstream call, one prompt');
      // Picked up once: a third call is a new call.
      const third = c.callTool({ name: 'v1__ask', arguments: { n: 2 } });
      await waitUntil(() => console.waiting.length === 1, { ms: 20_000 });
      console.waiting.shift()!.answer({ action: 'accept', content: { name: 'third' } });
      assert.equal(text((await third) as never), 'hello third');
    } finally {
      await t.terminateSession().catch(() => undefined);
      await c.close();
    }
  });

  it('two held calls with other arguments, answered and picked up in crossed order, each get their own result', {
    timeout: 60_000,
  }, async () => {
    const c = new V1Client({ name: 'v1-crossed', version: '1' }, { capabilities: {} });
    const t = new V1Http(new URL(url));
    await c.connect(t);
    try {
      // B starts once A's prompt waits, so the console's order is A's prompt, then B's.
      const callA = c.callTool({ name: 'v1__ask', arguments: { n: 'a' } }) as Promise<{ isError?: boolean }>;
      await waitUntil(() => console.waiting.length === 1, { ms: 20_000 });
      const callB = c.callTool({ name: 'v1__ask', arguments: { n: 'b' } }) as Promise<{ isError?: boolean }>;
      await waitUntil(() => console.waiting.length === 2, { ms: 20_000 });
      const [a, b] = await Promise.all([callA, callB]);
      assert.ok(a.isError && b.isError, 'both were held');
      assert.equal(console.waiting.length, 2);
      // The prompts came in call order; answer the second one first.
      const [forA, forB] = console.waiting.splice(0, 2);
      forB.answer({ action: 'accept', content: { name: 'bee' } });
      forA.answer({ action: 'accept', content: { name: 'ay' } });
      assert.equal(text((await c.callTool({ name: 'v1__ask', arguments: { n: 'b' } })) as never), 'hello bee');
      assert.equal(text((await c.callTool({ name: 'v1__ask', arguments: { n: 'a' } })) as never), 'hello ay');
    } finally {
      await t.terminateSession().catch(() => undefined);
      await c.close();
    }
  });
});
