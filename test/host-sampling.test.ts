// The host side of sampling (issue 14 item 9): a server's sampling/createMessage (an inputRequests entry on
// 2026-07-28 from an SDK v2 server, pushed on 2025 eras by an SDK v1 server and by server-everything's
// trigger-sampling-request) goes to the presenter, where a person writes the reply, or is declined by
// policy; it is bounded by the answer deadline and cancelled with its tool call; audited like elicitation;
// overlapping requests get their own replies.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost, ElicitationBroker, HeadlessPresenter, openSqliteStore, ScriptedPresenter, ServerManager } from '../src/host/index.js';
import type { Host, HostConfig, Presenter, PresenterAnswer, PromptView, Store } from '../src/host/index.js';
import { clientInfo, everything, fastStop, fixture, text } from './fixtures/servers-host/helpers.js';
import { gatewayConfig } from './helpers/gateway.js';
import { startEverythingHttp } from './helpers/peers.js';
import { createGateway } from '../src/gateway/index.js';
import { hostInternals } from '../src/host/internals.js';

type Step = (p: PromptView, signal: AbortSignal) => PresenterAnswer | Promise<PresenterAnswer>;

/** A presenter whose answer is set per test; records every prompt and whether its signal aborted. */
class TestPresenter implements Presenter {
  readonly interactive = true;
  readonly sampling = true;
  readonly prompts: Array<{ prompt: PromptView; signal: AbortSignal }> = [];
  step: Step = () => ({ action: 'cancel' });
  present(prompt: PromptView, signal: AbortSignal): Promise<PresenterAnswer> {
    this.prompts.push({ prompt, signal });
    return Promise.resolve(this.step(prompt, signal));
  }
  notify(): void {}
}

const servers = () => ({ v2: fixture('v2', 'v2-sample.mjs'), v1: fixture('v1', 'v1-sample.mjs'), everything: everything() });
const reply = (text: string): PresenterAnswer => ({ action: 'accept', content: { reply: text } });
/** Waits until `n` prompts arrived (bound 60 s). */
async function prompted(p: TestPresenter, n: number): Promise<void> {
  for (let i = 0; i < 600 && p.prompts.length < n; i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(p.prompts.length >= n, `expected ${n} prompts, got ${p.prompts.length}`);
}

describe('sampling: a person writes the reply (policy "ask")', () => {
  let host: Host;
  let store: Store;
  let dir: string;
  const presenter = new TestPresenter();
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-sampling-'));
    store = openSqliteStore(join(dir, 'h.db'));
    host = createHost(gatewayConfig(servers()), { presenter, store });
    await host.start();
  });
  after(async () => {
    await host.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('2026-07-28 (SDK v2, inputRequired.createMessage): the prompt shows the conversation; the reply reaches the server', async () => {
    presenter.step = (p) => {
      assert.equal(p.server, 'v2');
      assert.equal(p.sampling?.messages[0].text, 'What is 2+2?');
      assert.equal(p.sampling?.systemPrompt, 'Answer briefly.');
      assert.equal(p.sampling?.maxTokens, 50);
      assert.match(p.message, /v2 asks for a model reply[\s\S]*\[user\] What is 2\+2\?/);
      assert.deepEqual(Object.keys(p.schema?.properties ?? {}), ['reply']);
      assert.equal(p.call?.tool, 'sample');
      return reply('4');
    };
    const r = await host.callTool('v2', 'sample', {});
    assert.equal(hostInternals(host).servers.info('v2')?.negotiatedRevision, '2026-07-28');
    assert.equal(text(r), 'reply: 4 (model parley/person)');
    const rows = await store.queryAudit({ server: 'v2', limit: 20 });
    const req = rows.find((x) => x.kind === 'request');
    assert.equal((req?.detail as { method?: string })?.method, 'sampling/createMessage');
    const ans = rows.find((x) => x.kind === 'answer' && x.requestId === req?.requestId);
    assert.equal(ans?.action, 'accept');
  });

  it('2026-07-28: sampling and elicitation in one input_required round are both answered', async () => {
    presenter.step = (p) => (p.sampling ? reply('hi') : { action: 'accept', content: { name: 'ada' } });
    assert.equal(text(await host.callTool('v2', 'both', {})), 'reply: hi (model parley/person); name ada');
  });

  it('2026-07-28: a declined sampling request abandons the call with a clear error (no decline result exists)', async () => {
    presenter.step = () => ({ action: 'decline' });
    await assert.rejects(
      host.callTool('v2', 'sample', {}),
      /v2.*asked for a model reply \(sampling, inputRequests\.llm\).*the person declined.*abandoned/,
    );
  });

  it('2025-11-25 (SDK v1 push): the reply reaches the server; a decline is a JSON-RPC error -1', async () => {
    // req: SAMPLING-HUMAN-IN-LOOP
    presenter.step = (p) => {
      assert.equal(p.server, 'v1');
      assert.equal(p.call?.tool, 'sample');
      return reply('four');
    };
    assert.equal(text(await host.callTool('v1', 'sample', {})), 'reply: four (model parley/person)');
    assert.equal(hostInternals(host).servers.info('v1')?.era, 'legacy');
    presenter.step = () => ({ action: 'decline' });
    assert.match(text(await host.callTool('v1', 'sample', {})), /^error -1: .*User rejected sampling request/);
    presenter.step = () => ({ action: 'cancel' });
    assert.match(text(await host.callTool('v1', 'sample', {})), /^error -1: .*cancelled/);
  });

  it('server-everything trigger-sampling-request (registered because parley declares sampling)', async () => {
    presenter.step = (p) => {
      assert.match(p.sampling?.messages[0].text ?? '', /context: tell a joke/);
      assert.equal(p.sampling?.maxTokens, 30);
      return reply('a joke');
    };
    const r = await host.callTool('everything', 'trigger-sampling-request', { prompt: 'tell a joke', maxTokens: 30 });
    assert.match(text(r), /a joke/);
  });

  for (const [label, server] of [
    ['2026-07-28 (MRTR)', 'v2'],
    ['2025-11-25 (push)', 'v1'],
  ] as const) {
    it(`${label}: overlapping calls, answered in reverse order, each get their own reply`, async () => {
      const waiting: Array<{ q: string; answer: (a: PresenterAnswer) => void }> = [];
      presenter.prompts.length = 0;
      presenter.step = (p) => new Promise((res) => waiting.push({ q: p.sampling!.messages[0].text, answer: res }));
      const a = host.callTool(server, 'sample', { q: 'first' });
      const b = host.callTool(server, 'sample', { q: 'second' });
      await prompted(presenter, 2);
      for (const w of [...waiting].reverse()) w.answer(reply(`answer to ${w.q}`));
      assert.equal(text(await a), 'reply: answer to first (model parley/person)');
      assert.equal(text(await b), 'reply: answer to second (model parley/person)');
    });

    it(`${label}: cancelling the tool call withdraws the sampling prompt`, async () => {
      presenter.prompts.length = 0;
      presenter.step = (_p, signal) =>
        new Promise((res) => signal.addEventListener('abort', () => res({ action: 'cancel' }), { once: true }));
      const ctl = new AbortController();
      const call = host.callTool(server, 'sample', {}, { signal: ctl.signal });
      await prompted(presenter, 1);
      ctl.abort(new Error('the person stopped the call'));
      await assert.rejects(call);
      const sig = presenter.prompts[0].signal;
      for (let i = 0; i < 100 && !sig.aborted; i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(sig.aborted, 'the presenter was told to close the prompt');
      assert.equal(hostInternals(host).broker.pending().length, 0, 'nothing left pending');
    });
  }
});

describe('sampling: declined by policy', () => {
  it('policy sampling "decline": the presenter is never asked; push gets -1, MRTR abandons; audited', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-sampling-'));
    const store = openSqliteStore(join(dir, 'h.db'));
    const config: HostConfig = gatewayConfig(servers());
    config.policy.sampling = 'decline';
    const presenter = new TestPresenter();
    const host = createHost(config, { presenter, store });
    try {
      assert.match(
        text(await host.callTool('v1', 'sample', {})),
        /^error -1: .*User rejected sampling request: Declined: v1 asked for a model reply \(sampling\); policy sampling is "decline"/,
      );
      await assert.rejects(host.callTool('v2', 'sample', {}), /policy sampling is "decline"/);
      assert.equal(presenter.prompts.length, 0);
      const pol = await store.queryAudit({ kind: 'policy', limit: 10 });
      assert.ok(
        pol.length >= 2 && pol.every((r) => r.action === 'decline' && (r.detail as { reason?: string }).reason === 'sampling-policy'),
        JSON.stringify(pol),
      );
    } finally {
      await host.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('policy "ask" with a presenter that cannot show sampling (headless): declined at once', async () => {
    const host = createHost(gatewayConfig({ v1: fixture('v1', 'v1-sample.mjs') }), { presenter: new HeadlessPresenter() });
    try {
      assert.match(text(await host.callTool('v1', 'sample', {})), /^error -1: .*nobody here can write one/);
    } finally {
      await host.close();
    }
  });
});

describe('sampling: the broker never leaves a request hanging', () => {
  const params = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 };
  const ctx = (signal: AbortSignal) => ({ server: 's', era: 'modern' as const, revision: '2026-07-28', signal });

  it('answers cancel when the presenter does not answer within the answer deadline', async () => {
    const silent: Presenter = { interactive: true, sampling: true, present: () => new Promise(() => {}), notify: () => {} };
    const broker = new ElicitationBroker({ presenter: silent, timeouts: { answerMs: 150 } });
    const t0 = Date.now();
    const a = await broker.sample(params, ctx(new AbortController().signal));
    assert.equal(a.action, 'cancel');
    assert.ok(Date.now() - t0 < 5000);
    assert.equal(broker.pending().length, 0);
  });

  it('refuses malformed params with -32602 naming the field, and bounds what it shows', async () => {
    const broker = new ElicitationBroker({ presenter: new ScriptedPresenter([]) });
    await assert.rejects(
      broker.sample({ messages: 'no', maxTokens: 1 }, ctx(new AbortController().signal)),
      (e: Error & { code?: number }) => e.code === -32602 && /params\.messages must be an array/.test(e.message),
    );
    await assert.rejects(broker.sample({ messages: [] }, ctx(new AbortController().signal)), /maxTokens must be a number/);
    const long = {
      messages: Array.from({ length: 150 }, () => ({ role: 'user', content: { type: 'text', text: 'x'.repeat(1000) } })),
      maxTokens: 5,
    };
    let seen: PromptView | undefined;
    const b2 = new ElicitationBroker({ presenter: new ScriptedPresenter([(p) => ((seen = p), reply('ok'))]) });
    const a = await b2.sample(long, ctx(new AbortController().signal));
    assert.equal(a.action, 'accept');
    assert.equal(seen?.sampling?.messages.length, 100);
    assert.equal(seen?.sampling?.omittedMessages, 50);
    assert.ok((seen?.message.length ?? 0) < 21_000, `shown ${seen?.message.length} characters`);
  });
});

describe('sampling over Streamable HTTP (server-everything, 2025-11-25)', () => {
  it('overlapping sampling requests on one HTTP connection each reach their own call', async () => {
    const peer = await startEverythingHttp('streamableHttp');
    const presenter = new TestPresenter();
    const config = gatewayConfig({
      http: { name: 'http', type: 'http', url: peer.url, headers: {}, origin: { file: '<test>', pointer: '/servers/http' } } as never,
    });
    const host = createHost(config, { presenter });
    try {
      const waiting: Array<{ q: string; answer: (a: PresenterAnswer) => void }> = [];
      presenter.step = (p) => new Promise((res) => waiting.push({ q: p.sampling!.messages[0].text, answer: res }));
      const a = host.callTool('http', 'trigger-sampling-request', { prompt: 'one' });
      const b = host.callTool('http', 'trigger-sampling-request', { prompt: 'two' });
      await prompted(presenter, 2);
      assert.equal(hostInternals(host).servers.info('http')?.transport, 'streamable-http');
      for (const w of [...waiting].reverse()) w.answer(reply(`re ${w.q.slice(-3)}`));
      assert.match(text(await a), /re one/);
      assert.match(text(await b), /re two/);
    } finally {
      await host.close();
      await peer.stop();
    }
  });
});

describe('sampling from the SDK v2 server on a 2025 era (pushed by the SDK legacy shim)', () => {
  it('a legacy connection to the dual-era server gets inputRequired.createMessage as a pushed request; overlapping calls keep their replies', async () => {
    const presenter = new TestPresenter();
    const broker = new ElicitationBroker({ presenter });
    // A legacy verdict makes the runtime connect with plain initialize (no server/discover probe).
    const legacy = {
      getEraVerdict: async (defHash: string) => ({ defHash, era: 'legacy' as const, verifiedAt: Date.now() }),
      putEraVerdict: async () => {},
      deleteEraVerdict: async () => true,
    };
    const m = new ServerManager(
      { v2: fixture('v2', 'v2-sample.mjs') },
      {
        handlers: { elicit: broker.elicit, listRoots: async () => ({ roots: [] }), sample: (p, c) => broker.sample(p, c) },
        clientInfo,
        stop: fastStop,
        eraVerdicts: legacy,
      },
    );
    try {
      const waiting: Array<{ q: string; ctx: PromptView; answer: (a: PresenterAnswer) => void }> = [];
      presenter.step = (p) => new Promise((res) => waiting.push({ q: p.sampling!.messages[0].text, ctx: p, answer: res }));
      const a = m.callTool('v2', 'sample', { q: 'left' });
      const b = m.callTool('v2', 'sample', { q: 'right' });
      await prompted(presenter, 2);
      assert.equal(m.info('v2')?.era, 'legacy');
      for (const w of [...waiting].reverse()) w.answer(reply(`to ${w.q}`));
      assert.equal(text(await a), 'reply: to left (model parley/person)');
      assert.equal(text(await b), 'reply: to right (model parley/person)');
    } finally {
      await m.stopAll();
    }
  });
});

describe('sampling behind the gateway', () => {
  it('goes to the fallback console when it can show sampling (never upstream), and is declined headless', async () => {
    const consolePresenter = new TestPresenter();
    consolePresenter.step = () => reply('from the console');
    const gw = createGateway(gatewayConfig({ v1: fixture('v1', 'v1-sample.mjs') }), {
      fallback: (user) => (user === 'default' ? consolePresenter : new HeadlessPresenter()),
    });
    try {
      assert.equal(text(await gw.space('default').host.callTool('v1', 'sample', {})), 'reply: from the console (model parley/person)');
      assert.equal(consolePresenter.prompts.length, 1);
      assert.match(text(await gw.space('bob').host.callTool('v1', 'sample', {})), /^error -1: .*nobody here can write one/);
    } finally {
      await gw.close();
    }
  });
});
