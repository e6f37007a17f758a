// Answer sources as prefill: remembered answers (once / session / always, per person), presets and
// profile, in the documented precedence, then schema defaults. Never auto-submitted unless a
// non-interactive presenter opts in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ElicitationBroker } from '../src/host/broker/index.js';
import { ScriptedPresenter } from '../src/host/presenter.js';
import type { PresenterAnswer, InputRequestView } from '../src/host/presenter.js';
import { MemoryStore } from './fixtures/broker/memoryStore.js';
import { openSqliteStore } from '../src/host/store/index.js';
import type { Store } from '../src/host/store/index.js';
import { schemaHash } from '../src/schema/index.js';
import { ctx, scope } from './fixtures/broker/ctx.js';
import { verifies } from './helpers/verifies.js';

const FORM = {
  message: 'Deploy where?',
  requestedSchema: {
    type: 'object',
    properties: {
      region: { type: 'string', enum: ['eu', 'us'] },
      email: { type: 'string', format: 'email' },
      replicas: { type: 'integer', minimum: 1, default: 2 },
      confirm: { type: 'boolean' },
    },
    required: ['region'],
  },
};
const echo =
  (extra: Partial<PresenterAnswer & { action: 'accept' }> = {}) =>
  (p: InputRequestView): PresenterAnswer => ({
    action: 'accept',
    content: { ...p.prefill, region: (p.prefill.region as string) ?? 'eu' },
    ...extra,
  });

const STORES: Array<[string, () => Store]> = [
  ['memory', () => new MemoryStore()],
  ['sqlite', () => openSqliteStore(':memory:')],
];

for (const [kind, open] of STORES)
  test(`remembered answers (${kind} store): "always" survives sessions, "session" only its session, "once" is not stored`, async () => {
    const store = open();
    const presenter = new ScriptedPresenter([
      () => ({ action: 'accept', content: { region: 'us' }, remember: 'session' }),
      echo(),
      echo(),
      () => ({ action: 'accept', content: { region: 'eu', confirm: true }, remember: 'always' }),
      echo(),
      () => ({ action: 'accept', content: { region: 'us', confirm: false }, remember: 'once' }),
      echo(),
    ]);
    const broker = new ElicitationBroker({ presenter, store });
    const ada1 = scope('ada', 's1');
    const ada2 = scope('ada', 's2');
    await broker.elicit(FORM, ctx('deploy', { scope: ada1 }));
    await broker.elicit(FORM, ctx('deploy', { scope: ada1 }));
    assert.equal(presenter.prompts[1].prefill.region, 'us');
    assert.equal(presenter.prompts[1].prefillSources.region, 'remembered');
    await broker.elicit(FORM, ctx('deploy', { scope: ada2 }));
    assert.equal(presenter.prompts[2].prefill.region, undefined, 'session answer does not leak into another session');
    await broker.elicit(FORM, ctx('deploy', { scope: ada2 }));
    await broker.elicit(FORM, ctx('deploy', { scope: scope('ada', 's3') }));
    assert.deepEqual([presenter.prompts[4].prefill.region, presenter.prompts[4].prefill.confirm], ['eu', true]);
    await broker.elicit(FORM, ctx('deploy', { scope: scope('ada', 's3') }));
    await broker.elicit(FORM, ctx('deploy', { scope: scope('ada', 's3') }));
    assert.deepEqual(
      [presenter.prompts[6].prefill.region, presenter.prompts[6].prefill.confirm],
      ['eu', true],
      '"once" did not overwrite the remembered answer',
    );
    assert.equal((await store.recall(scope('ada', 's9'), 'deploy', schemaHash(presenter.prompts[0].schema!)))?.remember, 'always');
    assert.equal((await store.queryAudit({ kind: 'answer' })).length, 7);
    store.close();
  });

for (const [kind, open] of STORES)
  test(`two users never see each other's remembered answers (${kind} store); another server or schema does not match`, async () => {
    const store = open();
    const presenter = new ScriptedPresenter([
      () => ({ action: 'accept', content: { region: 'us', email: 'ada@example.com' }, remember: 'always' }),
      echo(),
      echo(),
      { action: 'decline' },
    ]);
    const broker = new ElicitationBroker({ presenter, store });
    await broker.elicit(FORM, ctx('deploy', { scope: scope('ada') }));
    await broker.elicit(FORM, ctx('deploy', { scope: scope('bob') }));
    assert.deepEqual(presenter.prompts[1].prefill, { replicas: 2 }, 'bob sees only the schema default');
    await broker.elicit(FORM, ctx('other-server', { scope: scope('ada') }));
    assert.equal(presenter.prompts[2].prefill.email, undefined);
    const changed = { ...FORM, requestedSchema: { ...FORM.requestedSchema, required: ['region', 'email'] } };
    await broker.elicit(changed, ctx('deploy', { scope: scope('ada') }));
    assert.equal(presenter.prompts[3].prefill.email, undefined, 'a different schema hash is a different question');
    store.close();
  });

test('precedence: remembered > preset > profile > schema default; invalid or unasked values are dropped', async () => {
  const store = new MemoryStore();
  const presenter = new ScriptedPresenter([
    echo(),
    () => ({ action: 'accept', content: { region: 'us', replicas: 3 }, remember: 'always' }),
    echo(),
  ]);
  const sources = {
    profile: { email: 'ada@example.com', region: 'eu', replicas: 'many', unrelated: 'x' },
    presetAnswers: { deploy: { region: 'us', replicas: 5 } },
  };
  const broker = new ElicitationBroker({ presenter, store, sources, scope: scope('ada') });
  await broker.elicit(FORM, ctx('deploy'));
  const p0 = presenter.prompts[0];
  verifies('ELIC-1125-DEFAULTS');
  assert.deepEqual(p0.prefill, { email: 'ada@example.com', region: 'us', replicas: 5 });
  assert.deepEqual(p0.prefillSources, { email: 'profile', region: 'preset', replicas: 'preset' });
  await broker.elicit(FORM, ctx('deploy'));
  await broker.elicit(FORM, ctx('deploy'));
  assert.deepEqual(presenter.prompts[2].prefillSources, { email: 'profile', region: 'remembered', replicas: 'remembered' });
  assert.equal(presenter.prompts[2].prefill.replicas, 3);
  // With no sources, only defaults (applyDefaults) fill the proposal.
  const bare = new ScriptedPresenter([echo()]);
  await new ElicitationBroker({ presenter: bare }).elicit(FORM, ctx('deploy'));
  assert.deepEqual(bare.prompts[0].prefillSources, { replicas: 'default' });
});

test('prefill is never auto-submitted, except by a non-interactive presenter that opts in', async () => {
  const sources = { presetAnswers: { deploy: { region: 'eu' } } };
  const asks = new ScriptedPresenter([{ action: 'decline' }]);
  assert.deepEqual(await new ElicitationBroker({ presenter: asks, sources }).elicit(FORM, ctx('deploy')), { action: 'decline' });
  assert.equal(asks.prompts.length, 1);
  const auto = new ScriptedPresenter([], { autoSubmitPrefill: true });
  const store = new MemoryStore();
  const r = await new ElicitationBroker({ presenter: auto, sources, store }).elicit(FORM, ctx('deploy'));
  assert.deepEqual(r, { action: 'accept', content: { region: 'eu', replicas: 2 } });
  assert.equal(auto.prompts.length, 0);
  assert.equal(store.audit.find((a) => a.kind === 'answer')?.detail?.source, 'auto-submit');
  // An incomplete prefill (required region missing) still goes to the presenter, which has no steps → typed error.
  await assert.rejects(new ElicitationBroker({ presenter: auto }).elicit(FORM, ctx('deploy')), { code: 'USER_INTERACTION_REQUIRED' });
});

test('the audit records which kind of remembering the person chose: auto (answer automatically) vs prefill only', async () => {
  const store = new MemoryStore();
  const presenter = new ScriptedPresenter([
    () => ({ action: 'accept', content: { region: 'eu' }, remember: 'always', auto: true }),
    () => ({ action: 'accept', content: { region: 'us' }, remember: 'always' }),
    () => ({ action: 'accept', content: { region: 'us' }, remember: 'session', auto: false }),
    () => ({ action: 'accept', content: { region: 'us' }, remember: 'once' }),
  ]);
  const broker = new ElicitationBroker({ presenter, store });
  for (const who of ['a1', 'a2', 'a3', 'a4']) await broker.elicit(FORM, ctx('deploy', { scope: scope(who, 's1') }));
  const rows = (await store.queryAudit({ kind: 'answer' })).sort((x, y) => x.ts - y.ts || 0);
  const got = rows.map((r) => [(r.detail as Record<string, unknown>).remember, (r.detail as Record<string, unknown>).auto]);
  assert.deepEqual(got.sort(), [
    ['always', false],
    ['always', true],
    ['once', undefined],
    ['session', false],
  ]);
});

test('the same tool call asking the same form again (the server refused the answer) is prefilled with what the person gave', async () => {
  // The person typed an answer the server refused (e.g. a zod .refine()): it asks the same form again
  // in the same call. Their answer comes back for correcting, not an empty form; sensitive and masked
  // fields stay out; another call, or another form, starts from the usual sources.
  const form = {
    message: 'Which range?',
    requestedSchema: {
      type: 'object',
      properties: {
        from: { type: 'string', format: 'date' },
        to: { type: 'string', format: 'date' },
        note: { type: 'string' },
        password: { type: 'string' },
      },
      required: ['from', 'to'],
    },
  } as const;
  const presenter = new ScriptedPresenter([
    () => ({ action: 'accept', content: { from: '2025-03-01', to: '2025-01-01', note: 'mine', password: 'pw' }, masked: ['note'] }),
    (p) => ({ action: 'accept', content: { ...p.prefill, from: '2025-01-01', to: '2025-03-01', password: 'pw' } }),
    (p) => ({ action: 'accept', content: { from: '2025-01-01', to: '2025-01-02', password: 'pw', ...p.prefill } }),
  ]);
  const broker = new ElicitationBroker({ presenter, policy: { sensitiveFields: 'ask' } });
  const call = { tool: 'query', callId: 'c-1' };
  await broker.elicit(form, ctx('sales', { call }));
  await broker.elicit({ ...form, message: 'Please correct: to is before from' }, ctx('sales', { call }));
  assert.deepEqual(presenter.prompts[1].prefill, { from: '2025-03-01', to: '2025-01-01' });
  assert.deepEqual(presenter.prompts[1].prefillSources, { from: 'previous answer', to: 'previous answer' });
  // Another tool call of the same form: nothing carried over.
  await broker.elicit(form, ctx('sales', { call: { tool: 'query', callId: 'c-2' } }));
  assert.deepEqual(presenter.prompts[2].prefill, {});
});

test('a request that cannot be told apart from other calls in flight (callId "") is never prefilled with an earlier answer', async () => {
  // attributeCall() gives callId '' when several calls with one tag are in flight: "one of" them, not
  // one call. Such answers must not be kept as "the same call's": the next ambiguous request may be
  // another call, minutes later.
  const form = {
    message: 'Which range?',
    requestedSchema: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' } } },
  } as const;
  const presenter = new ScriptedPresenter([
    () => ({ action: 'accept', content: { from: 'a', to: 'b' } }),
    (p) => ({ action: 'accept', content: { from: 'c', to: 'd', ...p.prefill } }),
  ]);
  const broker = new ElicitationBroker({ presenter });
  const ambiguous = { tool: 'one of: query, report', callId: '', tag: 't' };
  await broker.elicit(form, ctx('sales', { call: ambiguous }));
  await broker.elicit(form, ctx('sales', { call: ambiguous }));
  assert.deepEqual(presenter.prompts[1].prefill, {});
});
