// Issue 12 item 1: every answer reaches its own call. Two overlapping calls of one tool from ONE client
// (same session, same user), each answered differently, with crossed timings (the call asked first is
// answered last, and in order), through every ctx path (config, elicit, confirm, elicitUrl, sample), on 2025 push
// and 2026-07-28 MRTR, over stdio and HTTP (serve()), with real SDK v2 clients.
// Before the fix, 2026-07-28 `ctx.config` calls read the shared session cache in each round, so the call
// answered last ran with the other call's answer (stdio and authenticated HTTP).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/client';
import { createShared, serve } from '../src/server/index.js';
import { demoServer, text, v2Client } from './fixtures/toolkit/peers.js';
import { bounded, waitUntil } from './helpers/wait.js';

type Kind = 'config' | 'elicit' | 'confirm' | 'url' | 'sample';
const KINDS: Kind[] = ['config', 'elicit', 'confirm', 'url', 'sample'];
const CAPS = { elicitation: { form: {}, url: {} }, roots: { listChanged: true }, sampling: {} };
const poem = (text: string) => ({ role: 'assistant', model: 'test-model', content: { type: 'text', text } });
const TAGS = ['alpha', 'beta'] as const;
type Tag = (typeof TAGS)[number];

/** What each tag answers, and what its call must return. */
const ANSWER: Record<Kind, Record<Tag, unknown>> = {
  config: { alpha: { action: 'accept', content: { host: 'alpha-db' } }, beta: { action: 'accept', content: { host: 'beta-db' } } },
  elicit: { alpha: { action: 'accept', content: { name: 'alpha-name' } }, beta: { action: 'accept', content: { name: 'beta-name' } } },
  confirm: { alpha: { action: 'accept', content: {} }, beta: { action: 'decline' } },
  url: { alpha: { action: 'accept' }, beta: { action: 'decline' } },
  sample: { alpha: poem('alpha-poem'), beta: poem('beta-poem') },
};
const EXPECT: Record<Kind, Record<Tag, string>> = {
  config: { alpha: 'alpha:alpha-db', beta: 'beta:beta-db' },
  elicit: { alpha: 'alpha:alpha-name', beta: 'beta:beta-name' },
  confirm: { alpha: 'alpha:true', beta: 'beta:false' },
  url: { alpha: 'alpha:accept', beta: 'beta:decline' },
  sample: { alpha: 'alpha:alpha-poem', beta: 'beta:beta-poem' },
};

/** A client answerer that holds each prompt until the test releases it (by the tag its message names). */
function gate() {
  const held = new Map<Tag, (v: unknown) => void>();
  const prompts: string[] = [];
  let kind: Kind = 'config';
  return {
    held,
    prompts,
    setKind: (k: Kind) => void (kind = k),
    answer: (r: { params: { message: string } }) =>
      new Promise((resolve) => {
        prompts.push(r.params.message);
        const tag = /\b(alpha|beta)\b/.exec(r.params.message)?.[1] as Tag | undefined;
        if (!tag) return resolve({ action: 'cancel' });
        held.set(tag, () => resolve(ANSWER[kind][tag]));
      }),
    release(tag: Tag) {
      const r = this.held.get(tag);
      assert.ok(r, `a prompt for ${tag} is waiting`);
      this.held.delete(tag);
      r(undefined);
    },
  };
}

/** A client whose elicitation and sampling requests both go through the gate. */
function gatedClient(g: ReturnType<typeof gate>, mode: 'auto' | undefined): Client {
  const c = v2Client(g.answer as never, { mode, caps: CAPS });
  c.setRequestHandler('sampling/createMessage', (async (r: { params: { messages: Array<{ content: { text?: string } }> } }) =>
    g.answer({ params: { message: r.params.messages[0]?.content.text ?? '' } })) as never);
  return c;
}

/** Runs both orders of crossed timings for every kind on one connected client. */
async function crossedPairs(c: Client, g: ReturnType<typeof gate>, label: string) {
  for (const kind of KINDS) {
    for (const first of TAGS) {
      g.setKind(kind);
      if (kind === 'config') await c.callTool({ name: 'forget', arguments: {} }); // a fresh session configuration
      const second: Tag = first === 'alpha' ? 'beta' : 'alpha';
      const call = (tag: Tag) => c.callTool({ name: 'tagged', arguments: { tag, kind } });
      // alpha asks first; `first` is answered first and its call finishes before the other is answered.
      const a = call('alpha');
      assert.ok(await waitUntil(() => g.held.has('alpha')), `${label} ${kind}: alpha was asked`);
      const b = call('beta');
      assert.ok(await waitUntil(() => g.held.has('beta')), `${label} ${kind}: beta was asked`);
      const results = { alpha: a, beta: b };
      g.release(first);
      const r1 = await bounded(results[first], 15_000, `${label} ${kind}: ${first}'s call`);
      g.release(second);
      const r2 = await bounded(results[second], 15_000, `${label} ${kind}: ${second}'s call`);
      assert.equal(text(r1), EXPECT[kind][first], `${label} ${kind} (${first} answered first): ${first}'s call runs with its own answer`);
      assert.equal(text(r2), EXPECT[kind][second], `${label} ${kind} (${first} answered first): ${second}'s call runs with its own answer`);
      assert.equal(g.held.size, 0, `${label} ${kind}: no prompt left over (nothing re-asked)`);
    }
  }
}

const FIXTURE = ['--import', 'tsx', 'test/fixtures/toolkit/server.ts'];

for (const mode of [undefined, 'auto'] as const) {
  const era = mode ? '2026-07-28' : '2025-11-25';
  test(`concurrent calls, ${era} over stdio: each call runs with its own answer (config, elicit, confirm, elicitUrl, sample; both orders)`, async () => {
    const g = gate();
    const c = gatedClient(g, mode);
    await c.connect(new StdioClientTransport({ command: process.execPath, args: FIXTURE, stderr: 'ignore' }));
    try {
      assert.equal(c.getProtocolEra(), mode ? 'modern' : 'legacy');
      await crossedPairs(c, g, `${era} stdio`);
    } finally {
      await c.close();
    }
  });

  test(`concurrent calls, ${era} over HTTP (serve(), one authenticated user): each call runs with its own answer`, async () => {
    const shared = createShared();
    const h = await serve(() => demoServer(shared), {
      http: { authenticate: () => ({ token: 't', clientId: 'c', scopes: [], extra: { sub: 'ada' } }) },
    });
    const g = gate();
    const c = gatedClient(g, mode);
    await c.connect(new StreamableHTTPClientTransport(new URL(h.url)));
    try {
      assert.equal(c.getProtocolEra(), mode ? 'modern' : 'legacy');
      await crossedPairs(c, g, `${era} HTTP`);
    } finally {
      await c.close();
      await h.close();
    }
  });
}

test('2026-07-28: the keys of a call stay stable when another call resets or completes the configuration between its rounds (issue 12 #2)', async () => {
  const shared = createShared();
  const h = await serve(() => demoServer(shared), {
    http: { authenticate: () => ({ token: 't', clientId: 'c', scopes: [], extra: { sub: 'ada' } }) },
  });
  const c = v2Client((() => ({ action: 'accept', content: { host: 'first-db' } })) as never, { mode: 'auto', manual: true });
  await c.connect(new StreamableHTTPClientTransport(new URL(h.url)));
  const raw = (params: Record<string, unknown>) => c.callTool(params as never, { allowInputRequired: true } as never) as Promise<any>;
  try {
    // The configuration is complete (answered in an earlier call), so round 1 asks only the table.
    const q1 = await raw({ name: 'query', arguments: { q: 'x' } });
    await raw({
      name: 'query',
      arguments: { q: 'x' },
      inputResponses: { [Object.keys(q1.inputRequests)[0]]: { action: 'accept', content: { host: 'first-db' } } },
      requestState: q1.requestState,
    });
    const r1 = await raw({ name: 'cfgask', arguments: {} });
    const [key] = Object.keys(r1.inputRequests);
    assert.match(r1.inputRequests[key].params.message, /^Table\?/);
    // Another call of the same user forgets the configuration before this call's next round.
    await c.callTool({ name: 'forget', arguments: {} });
    const r2 = await raw({
      name: 'cfgask',
      arguments: {},
      inputResponses: { [key]: { action: 'accept', content: { table: 'orders' } } },
      requestState: r1.requestState,
    });
    assert.notEqual(r2.resultType, 'input_required', `the answered key was not re-purposed: ${JSON.stringify(r2.inputRequests)}`);
    assert.equal(text(r2), 'first-db:orders');
  } finally {
    await c.close();
    await h.close();
  }
});
