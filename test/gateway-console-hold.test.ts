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
import type { Presenter, PresenterAnswer, PromptView } from '../src/host/index.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { text } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { waitUntil } from './helpers/wait.js';

const CONSOLE = 'http://127.0.0.1:41999/';

/** Stands in for the console: prompts wait until the test answers them. */
class DeferredConsole implements Presenter {
  readonly interactive = true;
  readonly waiting: Array<{ prompt: PromptView; answer: (a: PresenterAnswer) => void }> = [];
  shown = 0;
  present(prompt: PromptView): Promise<PresenterAnswer> {
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

  it('calling again before the person answered waits for the same call, with progress for the prompt still open', {
    timeout: 60_000,
  }, async () => {
    const c = new Client({ name: 'no-elicit-again', version: '1' }, { capabilities: {} });
    const t = new StreamableHTTPClientTransport(new URL(url));
    await c.connect(t);
    const shownBefore = console.shown;
    try {
      const first = (await c.callTool({ name: 'v1__ask', arguments: { n: 'again' } })) as { isError?: boolean };
      assert.equal(first.isError, true, 'held past the bound');
      const notes: Array<{ message?: string }> = [];
      const second = c.callTool(
        { name: 'v1__ask', arguments: { n: 'again' } },
        { onprogress: (p) => void notes.push(p), timeout: 1_000, resetTimeoutOnProgress: true, maxTotalTimeout: 30_000 },
      );
      await waitUntil(() => notes.length >= 3, { ms: 20_000 });
      assert.match(notes[0].message ?? '', /v1 asks for fields name, which this client cannot show/);
      console.waiting.shift()!.answer({ action: 'accept', content: { name: 'again' } });
      assert.equal(text((await second) as never), 'hello again');
      assert.equal(console.shown - shownBefore, 1, 'one downstream call, one prompt');
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

// The same for 2026-07-28 (MRTR) clients that declare no elicitation: nothing is parked for them; the
// call waits for the console with progress, or answers "call again" after the bound.
describe('gateway: 2026-07-28 calls waiting for the console (HTTP)', () => {
  let gw: Gateway;
  let url: string;
  let stop: () => Promise<void>;
  const console = new DeferredConsole();
  before(async () => {
    gw = createGateway(gatewayConfig({ v1: fixture('v1', 'v1-push.mjs'), asker: fixture('asker', '../console/crash-asker.mjs') }), {
      fallback: () => console,
      consoleAddress: () => CONSOLE,
      hold: { progressEveryMs: 150, holdMs: 700, keepMs: 60_000 },
    });
    ({ url, stop } = await serveGateway(gw));
    await gw.space('default').host.start();
  });
  after(() => stop());

  /** An SDK v2 client on 2026-07-28 that declares no elicitation. */
  async function modern() {
    const c = new Client({ name: 'mrtr-no-elicit', version: '1' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } } as never);
    await c.connect(new StreamableHTTPClientTransport(new URL(url)));
    assert.equal(c.getNegotiatedProtocolVersion?.(), '2026-07-28');
    return c;
  }

  it('with a progressToken: progress names the console without its token and keeps a 1 s client timeout alive for 2.5 s', {
    timeout: 60_000,
  }, async () => {
    const c = await modern();
    try {
      const notes: Array<{ progress: number; message?: string }> = [];
      const result = c.callTool(
        { name: 'v1__ask', arguments: { n: 'p' } },
        { onprogress: (p) => void notes.push(p), timeout: 1_000, resetTimeoutOnProgress: true, maxTotalTimeout: 30_000 },
      );
      await waitUntil(() => console.waiting.length === 1, { ms: 20_000 });
      await new Promise((r) => setTimeout(r, 2_500));
      console.waiting.shift()!.answer({ action: 'accept', content: { name: 'modern' } });
      assert.equal(text((await result) as never), 'hello modern');
      assert.ok(notes.length >= 5, `${notes.length} progress notifications`);
      assert.ok(
        notes.every((n, i) => i === 0 || n.progress > notes[i - 1].progress),
        'progress increases',
      );
      assert.match(
        notes[0].message ?? '',
        /v1 asks for fields name, which this client cannot show\. Answer it in parley's console at http:\/\/127\.0\.0\.1:41999\//,
      );
      assert.doesNotMatch(notes.map((n) => n.message).join('\n'), /token=/);
      assert.equal(gw.stats().parked, 0, 'nothing parked for a client that cannot answer input_required');
    } finally {
      await c.close();
    }
  });

  it('without a progressToken: "answer in the console, call again"; calling again before the answer waits with progress and picks up the same call', {
    timeout: 60_000,
  }, async () => {
    const c = await modern();
    const shownBefore = console.shown;
    try {
      const first = (await c.callTool({ name: 'v1__ask', arguments: { n: 'q' } })) as { isError?: boolean };
      assert.equal(first.isError, true);
      assert.match(
        text(first as never),
        /Answer it in parley's console at http:\/\/127\.0\.0\.1:41999\/.*Then call v1__ask again with the same arguments/,
      );
      assert.equal(console.waiting.length, 1, 'the prompt still waits in the console');
      // Called again while the prompt is still open: the pickup gets progress for it.
      const notes: Array<{ message?: string }> = [];
      const second = c.callTool(
        { name: 'v1__ask', arguments: { n: 'q' } },
        { onprogress: (p) => void notes.push(p), timeout: 1_000, resetTimeoutOnProgress: true, maxTotalTimeout: 30_000 },
      );
      await waitUntil(() => notes.length >= 3, { ms: 20_000 });
      assert.match(notes[0].message ?? '', /Answer it in parley's console/);
      console.waiting.shift()!.answer({ action: 'accept', content: { name: 'later' } });
      assert.equal(text((await second) as never), 'hello later');
      assert.equal(console.shown - shownBefore, 1, 'one downstream call, one prompt');
    } finally {
      await c.close();
    }
  });

  it('two concurrent held calls answered in crossed order each get their own answer (waiting with progress, and picked up after the bound)', {
    timeout: 90_000,
  }, async () => {
    const c = await modern();
    const ask = (n: string, opts?: object) => c.callTool({ name: 'asker__ask', arguments: { n } }, opts) as Promise<{ isError?: boolean }>;
    /** The console prompt of the call with argument `n` (the server names it in its message). */
    const promptOf = (n: string) => {
      const i = console.waiting.findIndex((w) => w.prompt.message === `Which day (${n})?`);
      assert.ok(i >= 0, `a prompt for ${n}`);
      return console.waiting.splice(i, 1)[0];
    };
    try {
      const progress = { onprogress: () => undefined, timeout: 1_000, resetTimeoutOnProgress: true, maxTotalTimeout: 30_000 };
      const a = ask('a', progress);
      const b = ask('b', progress);
      await waitUntil(() => console.waiting.length === 2, { ms: 30_000 });
      const [forA, forB] = [promptOf('a'), promptOf('b')];
      forB.answer({ action: 'accept', content: { day: '2025-02-02' } });
      assert.equal(text((await b) as never), 'day 2025-02-02 for b');
      forA.answer({ action: 'accept', content: { day: '2025-01-01' } });
      assert.equal(text((await a) as never), 'day 2025-01-01 for a');
      // Held past the bound, answered crossed, picked up crossed.
      const [c1, d1] = await Promise.all([ask('c'), ask('d')]);
      assert.ok(c1.isError && d1.isError, 'both were held');
      const [forC, forD] = [promptOf('c'), promptOf('d')];
      forD.answer({ action: 'accept', content: { day: '2025-04-04' } });
      forC.answer({ action: 'accept', content: { day: '2025-03-03' } });
      assert.equal(text((await ask('d')) as never), 'day 2025-04-04 for d');
      assert.equal(text((await ask('c')) as never), 'day 2025-03-03 for c');
    } finally {
      await c.close();
    }
  });
});
