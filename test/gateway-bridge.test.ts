// The bridge finds a prompt's upstream call by the tag the prompt carries (issue 17 item 4: the tag is a
// field of the call, and the user's open calls are an OpenCalls the gateway opens and closes, not a Map
// two files mutate). A state machine of ours, so fake calls and a fake fallback presenter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgePresenter, OpenCalls, type UpstreamCall } from '../src/gateway/index.js';
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
