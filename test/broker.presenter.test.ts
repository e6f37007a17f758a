// The presenter seam's shipped implementations: ScriptedPresenter (lists and --answers files) and
// HeadlessPresenter (fails fast), as driven by the broker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ElicitationBroker } from '../src/host/broker/index.js';
import { HeadlessPresenter, ScriptedPresenter, UserInteractionRequiredError, answerFromFile } from '../src/host/presenter.js';
import type { InputRequestView } from '../src/host/presenter.js';
import { ctx } from './fixtures/broker/ctx.js';
import { bounded } from './helpers/wait.js';

const FORM = {
  message: 'Who?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'] },
};
const view = (over: Partial<InputRequestView>): InputRequestView => ({
  id: 'in-1',
  server: 'srv',
  message: 'm',
  mode: 'form',
  prefill: {},
  prefillSources: {},
  repairs: [],
  lint: [],
  warnings: [],
  sensitiveFields: [],
  round: 1,
  schema: FORM.requestedSchema as InputRequestView['schema'],
  ...over,
});

test('answers file: field values for every server, or per server; server keys win', () => {
  assert.deepEqual(answerFromFile({ name: 'Ada', other: 1 }, view({})), { action: 'accept', content: { name: 'Ada' } });
  assert.deepEqual(answerFromFile({ srv: { name: 'Bob' }, name: 'Ada' }, view({})), { action: 'accept', content: { name: 'Bob' } });
  assert.deepEqual(answerFromFile({ srv: '$decline', name: 'Ada' }, view({})), { action: 'decline' });
  assert.deepEqual(answerFromFile({ srv: '$cancel' }, view({})), { action: 'cancel' });
  assert.deepEqual(answerFromFile('$decline', view({})), { action: 'decline' });
  // Prefill fills what the file does not give.
  assert.deepEqual(answerFromFile({ age: 3 }, view({ prefill: { name: 'Pre' } })), { action: 'accept', content: { name: 'Pre', age: 3 } });
});

test('answers file: URL consent only with "$consent": true', () => {
  const url = view({ mode: 'url', schema: undefined, url: { full: 'https://e.com', host: 'e.com', asciiHost: 'e.com', warnings: [] } });
  assert.deepEqual(answerFromFile({ name: 'x' }, url), { action: 'decline' });
  assert.deepEqual(answerFromFile({ srv: { $consent: true } }, url), { action: 'accept' });
});

test('a ScriptedPresenter from an answers file drives the broker; per-server answers stay per server', async () => {
  const presenter = new ScriptedPresenter({ a: { name: 'Ann' }, b: '$cancel', name: 'Any' });
  const broker = new ElicitationBroker({ presenter });
  assert.deepEqual(await broker.elicit(FORM, ctx('a')), { action: 'accept', content: { name: 'Ann' } });
  assert.deepEqual(await broker.elicit(FORM, ctx('b')), { action: 'cancel' });
  assert.deepEqual(await broker.elicit(FORM, ctx('c')), { action: 'accept', content: { name: 'Any' } });
});

test('an exhausted script and the HeadlessPresenter reject with UserInteractionRequiredError at once', async () => {
  const p = new ScriptedPresenter([]);
  await assert.rejects(p.present(view({}), new AbortController().signal), UserInteractionRequiredError);
  const h = new HeadlessPresenter();
  // Rejects at once: a presenter that waited for the 30-minute answer bound would overrun the race.
  await assert.rejects(
    bounded(
      h.present(
        view({ mode: 'url', schema: undefined, url: { full: 'https://e.com/x', host: 'e.com', asciiHost: 'e.com', warnings: [] } }),
      ),
      15_000,
      'HeadlessPresenter',
    ),
    /consent to open https:\/\/e\.com\/x/,
  );
  h.notify({ kind: 'refused', server: 's', message: 'm' });
  assert.equal(h.notices.length, 1);
});
