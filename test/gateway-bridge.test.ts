// The bridge finds a prompt's upstream call by the tag the prompt carries (issue 17 item 4: the tag is a
// field of the call, and the user's open calls are an OpenCalls the gateway opens and closes, not a Map
// two files mutate). A state machine of ours, so fake calls and a fake fallback presenter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgePresenter, OpenCalls, upstreamParams, type UpstreamCall } from '../src/gateway/index.js';
import type { PresenterAnswer, InputRequestView } from '../src/host/index.js';
import { HeadlessPresenter, UserInteractionRequiredError } from '../src/host/index.js';

const prompt = (tag?: string): InputRequestView => ({
  id: 'p1',
  server: 's',
  message: 'Your name?',
  mode: 'form',
  schema: { type: 'object', properties: { name: { type: 'string' } } } as InputRequestView['schema'],
  prefill: {},
  prefillSources: {},
  repairs: [],
  warnings: [],
  sensitiveFields: [],
  round: 1,
  ...(tag !== undefined ? { call: { tool: 't', callId: 'c', tag } } : {}),
});

function call(tag: string, name: string): UpstreamCall {
  return {
    tag,
    modes: { form: true, url: false },
    revision: '2025-11-25',
    failures: [],
    ask: async () => ({ action: 'accept', content: { name } }),
  };
}

test('a prompt goes to the open call its tag names; untagged, unknown or closed: the fallback', async () => {
  const calls = new OpenCalls();
  const fallback = { interactive: false, present: async (): Promise<PresenterAnswer> => ({ action: 'decline' }), notify() {} };
  const bridge = new BridgePresenter({ calls, fallback });
  const signal = new AbortController().signal;
  const a = call('session-a', 'ada');
  const b = call('session-b', 'bob');
  calls.open(a);
  calls.open(b);
  assert.equal(calls.size, 2);
  assert.deepEqual(await bridge.present(prompt('session-a'), signal), { action: 'accept', content: { name: 'ada' } });
  assert.deepEqual(await bridge.present(prompt('session-b'), signal), { action: 'accept', content: { name: 'bob' } });
  assert.deepEqual(await bridge.present(prompt('nobody'), signal), { action: 'decline' }, 'unknown tag: fallback');
  assert.deepEqual(await bridge.present(prompt(), signal), { action: 'decline' }, 'not attributed: fallback');
  calls.close(a);
  assert.deepEqual(await bridge.present(prompt('session-a'), signal), { action: 'decline' }, 'closed: fallback');
  // A stale close (an earlier call of a reused tag) leaves the call now open under that tag.
  const b2 = call('session-b', 'bea');
  calls.close(b);
  calls.open(b2);
  calls.close(b);
  assert.deepEqual(await bridge.present(prompt('session-b'), signal), { action: 'accept', content: { name: 'bea' } });
  assert.equal(calls.size, 1);
});

test('a prompt no client call in flight can answer, without a console: the error says so and what the server should do', async () => {
  const calls = new OpenCalls();
  const bridge = new BridgePresenter({ calls, fallback: new HeadlessPresenter() });
  const signal = new AbortController().signal;
  const a = call('session-a', 'ada');
  calls.open(a);
  calls.close(a); // the client gave up on the call: it is no longer in flight
  for (const [p, why] of [
    [
      prompt('session-a'),
      /could not be matched to a client call in flight: the call "t" it belongs to has ended \(the client may have given up on it/,
    ],
    [prompt(), /could not be matched to a client call in flight: it was not sent as part of one \(no related request\)/],
  ] as const)
    await assert.rejects(bridge.present(p, signal), (e: Error) => {
      assert.ok(e instanceof UserInteractionRequiredError);
      assert.match(e.message, /^Server "s" asks for fields name \("Your name\?"\), but no person can answer here: it could not be matched/);
      assert.match(e.message, why);
      assert.match(
        e.message,
        /The server should ask only while handling the client's call .* and stop asking once that call is cancelled\.$/,
      );
      return true;
    });
});

test('upstream params: prefill becomes defaults from 2025-11-25 on (never a secret, never of the wrong type); the read-only prompt is left as it was', () => {
  const freeze = <T>(v: T): T => {
    if (typeof v === 'object' && v !== null) for (const c of Object.values(Object.freeze(v))) freeze(c);
    return v;
  };
  const schema = freeze({
    type: 'object',
    properties: {
      name: { type: 'string' },
      age: { type: 'integer' },
      pin: { type: 'string' },
      subscribe: { type: 'boolean', default: false },
      plan: { type: 'string', enum: ['free', 'pro'] },
    },
  }) as unknown as InputRequestView['schema'];
  const before = JSON.stringify(schema);
  const p: InputRequestView = {
    ...prompt(),
    schema,
    prefill: { name: 'Ada', age: 'old', pin: '1234', subscribe: false, plan: 'gold' },
    sensitiveFields: ['pin'],
  };
  const up = upstreamParams(p, '2025-11-25') as { mode: string; message: string; requestedSchema: { properties: Record<string, unknown> } };
  assert.equal(up.message, '[s] Your name?');
  assert.deepEqual(up.requestedSchema.properties, {
    name: { type: 'string', default: 'Ada' },
    age: { type: 'integer' },
    pin: { type: 'string' },
    subscribe: { type: 'boolean', default: false },
    plan: { type: 'string', enum: ['free', 'pro'] },
  });
  assert.equal(JSON.stringify(schema), before, 'the prompt schema is unchanged');
  // 2025-06-18 has no defaults in forms: the schema goes as it is.
  assert.deepEqual((upstreamParams(p, '2025-06-18') as { requestedSchema: unknown }).requestedSchema, JSON.parse(before));
  // A prefill that is the form's own defaults: nothing to add.
  const own = upstreamParams({ ...p, prefill: { subscribe: false } }, '2025-11-25') as { requestedSchema: unknown };
  assert.deepEqual(own.requestedSchema, JSON.parse(before));
});
