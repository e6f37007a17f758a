// The broker's pipeline called directly (as the runtime does): repairs, refusals, validation rounds,
// redaction, rate limit, pending cap and the answer-timeout bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ElicitationBroker, InvalidElicitationError, REFUSAL_AUDIT_BURST, REFUSAL_AUDIT_REFILL_MS } from '../src/host/broker/index.js';
import { ScriptedPresenter, UserInteractionRequiredError } from '../src/host/presenter.js';
import type { PresenterAnswer, InputRequestView } from '../src/host/presenter.js';
import { REDACTED } from '../src/host/store/types.js';
import { MemoryStore } from './fixtures/broker/memoryStore.js';
import { openSqliteStore } from '../src/host/store/index.js';
import type { Store } from '../src/host/store/index.js';
import { schemaHash } from '../src/schema/index.js';
import { clock, ctx, scope } from './fixtures/broker/ctx.js';
import { vector } from './helpers/vectors.js';
import { verifies } from './helpers/verifies.js';
import { tempDir } from './fixtures/store/tmp.js';
import { join } from 'node:path';

const vec = (id: string) => vector('schemas', id).input;

for (const id of ['S2-root-title', 'S3-titled-enum-missing-type', 'S4-multiselect-without-item-type', 'S5-unknown-format']) {
  test(`${id}: repaired, the repair audited and shown to the presenter`, async () => {
    const presenter = new ScriptedPresenter([(p) => ({ action: 'decline' })]);
    const store = new MemoryStore();
    const broker = new ElicitationBroker({ presenter, store });
    const r = await broker.elicit({ message: 'x', requestedSchema: vec(id) }, ctx());
    assert.deepEqual(r, { action: 'decline' });
    const rep = store.audit.find((a) => a.kind === 'repair');
    assert.ok(rep, 'repair audited');
    assert.ok((rep!.detail!.repairs as unknown[]).length > 0);
    assert.deepEqual(presenter.prompts[0].repairs, rep!.detail!.repairs);
  });
}

test('S4 on 2025-06-18: lint notes the missing items.type and that arrays are not in that revision; minItems is validated', async () => {
  const presenter = new ScriptedPresenter([
    { action: 'accept', content: { fruits: [] } },
    { action: 'accept', content: { fruits: ['apple'] } },
  ]);
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter, store });
  const r = await broker.elicit(
    { message: 'f', requestedSchema: vec('S4-multiselect-without-item-type') },
    ctx('srv', { revision: '2025-06-18' }),
  );
  assert.deepEqual(r, { action: 'accept', content: { fruits: ['apple'] } });
  const codes = presenter.prompts[0].lint!.map((i) => i.code);
  assert.ok(codes.includes('revision') && codes.includes('missing-items-type'), codes.join());
  assert.deepEqual(
    (store.audit.find((a) => a.kind === 'repair')!.detail!.lint as Array<{ code: string }>).map((i) => i.code),
    codes,
  );
  assert.ok(presenter.prompts[1].issues!.some((i) => i.path.includes('fruits')));
});

test('S3 renders as a titled single-select (type string); S5 validates as integer, unknown format ignored', async () => {
  const presenter = new ScriptedPresenter([
    { action: 'accept', content: { priority: 'high' } },
    { action: 'accept', content: { number: 7 } },
  ]);
  const broker = new ElicitationBroker({ presenter });
  assert.deepEqual(await broker.elicit({ message: 'p', requestedSchema: vec('S3-titled-enum-missing-type') }, ctx()), {
    action: 'accept',
    content: { priority: 'high' },
  });
  assert.equal((presenter.prompts[0].schema!.properties.priority as { type: string }).type, 'string');
  assert.deepEqual(await broker.elicit({ message: 'n', requestedSchema: vec('S5-unknown-format') }, ctx()), {
    action: 'accept',
    content: { number: 7 },
  });
});

test('S6 legacy enumNames is shown unchanged and the answer is the enum value', async () => {
  const presenter = new ScriptedPresenter([{ action: 'accept', content: { theme: 'dark' } }]);
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter, store });
  const r = await broker.elicit({ message: 't', requestedSchema: vec('S6-legacy-enum-names') }, ctx());
  assert.deepEqual(r, { action: 'accept', content: { theme: 'dark' } });
  assert.deepEqual((presenter.prompts[0].schema!.properties.theme as { enumNames?: string[] }).enumNames, ['Light', 'Dark']);
});

test('S7 a request without mode is form mode on every revision', async () => {
  verifies('ELIC-1125-MODE-DEFAULT-FORM');
  for (const revision of ['2025-06-18', '2025-11-25', '2026-07-28']) {
    const presenter = new ScriptedPresenter([{ action: 'accept', content: { name: 'Ada' } }]);
    const broker = new ElicitationBroker({ presenter });
    const r = await broker.elicit(vec('S7-no-mode').params, ctx('srv', { revision, era: revision === '2026-07-28' ? 'modern' : 'legacy' }));
    assert.deepEqual(r, { action: 'accept', content: { name: 'Ada' } });
    assert.equal(presenter.prompts[0].mode, 'form');
  }
});

test('a schema that cannot be a flat form is answered with -32602 naming the problem (never shown)', async () => {
  verifies('ELIC-0618-SUBSET-FLAT');
  const presenter = new ScriptedPresenter([]);
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter, store });
  const nested = { type: 'object', properties: { address: { type: 'object', properties: { city: { type: 'string' } } } } };
  await assert.rejects(broker.elicit({ message: 'addr', requestedSchema: nested }, ctx()), (e: unknown) => {
    assert.ok(e instanceof InvalidElicitationError);
    assert.equal(e.code, -32602);
    assert.match(e.message, /requestedSchema\/properties\/address: .*nested object/);
    return true;
  });
  assert.equal(presenter.prompts.length, 0);
  assert.equal(store.audit.find((a) => a.kind === 'error')?.detail?.code, -32602);
  // URL mode does not exist on 2025-06-18; a bad mode is invalid params too.
  await assert.rejects(
    broker.elicit({ mode: 'url', message: 'u', url: 'https://example.com' }, ctx('srv', { revision: '2025-06-18' })),
    InvalidElicitationError,
  );
  await assert.rejects(broker.elicit({ mode: 'sms', message: 'u' } as never, ctx()), /mode must be "form" or "url"/);
});

for (const [id, schema, bad] of [
  ['R3-accept-missing-required', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, {}],
  ['R6-string-boolean', { type: 'object', properties: { agree: { type: 'boolean' } } }, { agree: 'true' }],
  ['R7-extra-field', { type: 'object', properties: { name: { type: 'string' } } }, { name: 'Ada', admin: true }],
] as const) {
  test(`${id}: an invalid answer is re-presented with its issues and never sent`, async () => {
    verifies('ELIC-VALIDATE-BOTH-SIDES');
    const presenter = new ScriptedPresenter([
      { action: 'accept', content: bad },
      { action: 'accept', content: bad },
      { action: 'accept', content: bad },
    ]);
    const store = new MemoryStore();
    const broker = new ElicitationBroker({ presenter, store, maxRounds: 3 });
    const r = await broker.elicit({ message: 'x', requestedSchema: schema }, ctx());
    assert.deepEqual(r, { action: 'cancel' }, 'after maxRounds invalid answers the broker answers cancel, never the invalid content');
    assert.equal(presenter.prompts.length, 3);
    assert.equal(presenter.prompts[1].round, 2);
    assert.ok(presenter.prompts[1].issues!.length > 0);
    assert.equal(store.audit.filter((a) => a.kind === 'answer').length, 0);
    assert.equal(store.audit.find((a) => a.kind === 'error')?.detail?.reason, 'invalid');
  });
}

test('a corrected second answer is sent', async () => {
  const presenter = new ScriptedPresenter([
    { action: 'accept', content: { agree: 'true' } },
    { action: 'accept', content: { agree: true } },
  ]);
  const broker = new ElicitationBroker({ presenter });
  assert.deepEqual(
    await broker.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: { agree: { type: 'boolean' } } } }, ctx()),
    { action: 'accept', content: { agree: true } },
  );
  assert.match(presenter.prompts[1].issues![0].path, /agree/);
});

for (const [kind, open] of [
  ['memory', () => new MemoryStore()],
  ['sqlite', () => openSqliteStore(':memory:')],
] as const)
  test(`policy "ask" (${kind} store): sensitive fields are shown with a warning, redacted in the audit and never remembered`, async () => {
    const presenter = new ScriptedPresenter([{ action: 'accept', content: { user: 'ada', password: 'hunter2' }, remember: 'always' }]);
    const store: Store = open();
    const broker = new ElicitationBroker({
      presenter,
      store,
      policy: { sensitiveFields: 'ask' },
      scope: { tenant: 't', user: 'ada', session: 's' },
    });
    const schema = { type: 'object', properties: { user: { type: 'string' }, password: { type: 'string', title: 'Password' } } };
    const r = await broker.elicit({ message: 'login', requestedSchema: schema }, ctx());
    assert.deepEqual(r, { action: 'accept', content: { user: 'ada', password: 'hunter2' } });
    assert.deepEqual(presenter.prompts[0].sensitiveFields, ['password']);
    assert.ok(presenter.prompts[0].warnings.includes('sensitive:password'));
    const ans = (await store.queryAudit({ kind: 'answer' }))[0];
    assert.equal((ans.detail!.content as Record<string, unknown>).password, REDACTED);
    assert.deepEqual(ans.redactKeys, ['password']);
    assert.ok(!JSON.stringify(await store.queryAudit()).includes('hunter2'));
    assert.deepEqual(
      (await store.recall({ tenant: 't', user: 'ada', session: 'other-session' }, 'srv', schemaHash(presenter.prompts[0].schema!)))
        ?.content,
      { user: 'ada' },
    );
    store.close();
  });

// With a SQLite file store the bucket is the broker's own too (takeRateToken is PostgreSQL's: a take on
// SQLite would be a WAL commit of its own on every elicitation; src/host/store/rate-limits.ts).
for (const kind of ['memory', 'sqlite file'] as const)
  test(`a flood of 50 requests (${kind} store): beyond the token bucket they are declined with a recorded reason`, async (t) => {
    verifies('ELIC-1125-CLIENT-RATE-LIMIT');
    const c = clock();
    const presenter = new ScriptedPresenter(Array.from({ length: 50 }, () => ({ action: 'accept', content: {} }) as PresenterAnswer));
    const store: Store = kind === 'memory' ? new MemoryStore() : openSqliteStore(join(tempDir(t), 'flood.db'));
    t.after(() => store.close());
    if (kind === 'sqlite file') assert.equal(store.takeRateToken, undefined, 'SQLite keeps no shared bucket');
    const broker = new ElicitationBroker({
      presenter,
      store,
      now: c.now,
      policy: { ratePerMinute: 30, burst: 10, maxPendingPerServer: 100 },
    });
    const confirm = { message: 'ok?', requestedSchema: { type: 'object', properties: {} } };
    const results = await Promise.all(Array.from({ length: 50 }, () => broker.elicit(confirm, ctx('flood'))));
    assert.equal(results.filter((r) => r.action === 'accept').length, 10);
    assert.equal(results.filter((r) => r.action === 'decline').length, 40);
    // Audited (and told) up to the refusal budget; the rest counted (broker.refusal-flood.test.ts).
    const limited = async () =>
      (await store.queryAudit({ kind: 'policy', limit: 1000 })).filter((a) => a.detail?.reason === 'rate-limited');
    assert.equal((await limited()).length, REFUSAL_AUDIT_BURST);
    // Another server has its own bucket; after 2 s one token (30/min) is back for the flooder.
    assert.equal((await broker.elicit(confirm, ctx('calm'))).action, 'accept');
    assert.equal((await broker.elicit(confirm, ctx('flood'))).action, 'decline');
    c.advance(2_000);
    assert.equal((await broker.elicit(confirm, ctx('flood'))).action, 'accept');
    // A refusal once the audit budget has one more place is audited, with the count of those that were not.
    c.advance(REFUSAL_AUDIT_REFILL_MS);
    while ((await broker.elicit(confirm, ctx('flood'))).action === 'accept');
    const rows = await limited();
    assert.equal(rows.length, REFUSAL_AUDIT_BURST + 1);
    assert.equal(rows.find((r) => r.detail?.skipped !== undefined)?.detail?.skipped, 40 + 1 - REFUSAL_AUDIT_BURST);
  });

test('the refusal audit budget is per (tenant, user, server): malformed messages and sampling draw on it', async () => {
  const store = new MemoryStore();
  const presenter = new ScriptedPresenter([{ action: 'accept', content: {} }]);
  const broker = new ElicitationBroker({ presenter, store, now: clock().now, scope: scope('alice') });
  const bad = { requestedSchema: { type: 'object' } } as never; // no message: -32602
  const refused = (user: string) => store.audit.filter((a) => a.scope.user === user && (a.kind === 'error' || a.kind === 'policy')).length;
  for (let i = 0; i < REFUSAL_AUDIT_BURST; i++) broker.malformedMessage('s1', 'a line that is not JSON');
  await assert.rejects(broker.elicit(bad, ctx('s1')), InvalidElicitationError, 'still -32602');
  await assert.rejects(broker.sample({ messages: 'no' }, ctx('s1')), InvalidElicitationError);
  assert.equal(refused('alice'), REFUSAL_AUDIT_BURST, 'over the budget: neither audited');
  assert.equal(store.audit.filter((a) => a.kind === 'request').length, 0, 'nor their request rows');
  // bob's refusals, and alice's with another server, have budgets of their own.
  await assert.rejects(broker.elicit(bad, ctx('s1', { scope: scope('bob') })), InvalidElicitationError);
  await assert.rejects(broker.elicit(bad, ctx('s2')), InvalidElicitationError);
  assert.equal(refused('bob'), 1);
  assert.equal(refused('alice'), REFUSAL_AUDIT_BURST + 1);
  // A request of alice's to s1 that is admitted is audited as always.
  const ok = await broker.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: {} } }, ctx('s1'));
  assert.equal(ok.action, 'accept');
  assert.deepEqual(
    store.audit
      .filter((a) => a.server === 's1' && a.scope.user === 'alice' && (a.kind === 'request' || a.kind === 'answer'))
      .map((a) => a.kind),
    ['request', 'answer'],
  );
});

// A store that counts rate-limit tokens itself (PostgreSQL: Store.takeRateToken) makes the broker wait
// between a request's arrival and its admission; the rows it holds until then keep their own time.
class CountingStore extends MemoryStore {
  constructor(private readonly take: () => Promise<boolean>) {
    super();
  }
  takeRateToken(): Promise<boolean> {
    return this.take();
  }
}

test("a request's held rows keep the time of their step, not of its admission (the store's rate-limit take took 750 ms)", async () => {
  const c = clock();
  const t0 = c.now();
  const store = new CountingStore(async () => (c.advance(750), true));
  const broker = new ElicitationBroker({ presenter: new ScriptedPresenter([{ action: 'decline' }]), store, now: c.now });
  assert.deepEqual(await broker.elicit({ message: 'x', requestedSchema: vec('S2-root-title') }, ctx()), { action: 'decline' });
  const row = (kind: string) => store.audit.find((a) => a.kind === kind)!;
  assert.deepEqual([row('request').ts, row('request').durationMs], [t0, 0], 'received at t0');
  assert.deepEqual([row('repair').ts, row('repair').durationMs], [t0, 0], 'repaired before the take');
  assert.deepEqual(
    store.audit.map((a) => a.kind),
    ['request', 'repair', 'answer'],
  );
  assert.equal(row('answer').ts, t0 + 750);
});

test('a request whose admission fails (the rate-limit take of its store throws) keeps its rows, with the failure', async () => {
  const store = new CountingStore(async () => {
    throw new Error('take a rate-limit token: connection terminated');
  });
  const presenter = new ScriptedPresenter([]);
  const broker = new ElicitationBroker({ presenter, store, now: clock().now });
  await assert.rejects(
    broker.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} } }, ctx()),
    /connection terminated/,
  );
  assert.deepEqual(
    store.audit.map((a) => [a.kind, a.detail?.reason]),
    [
      ['request', undefined],
      ['repair', undefined], // no root title
      ['error', 'failed'],
    ],
  );
  assert.match(String(store.audit[2].detail?.error), /connection terminated/);
  assert.equal(presenter.prompts.length, 0);
  assert.equal(broker.pending().length, 0);
});

test('pending cap per server: the sixth concurrent request is declined, other servers unaffected', async () => {
  const release: Array<() => void> = [];
  const hold = () => new Promise<PresenterAnswer>((res) => release.push(() => res({ action: 'cancel' })));
  const presenter = new ScriptedPresenter(Array.from({ length: 12 }, () => hold));
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter, store, policy: { maxPendingPerServer: 5 } });
  const confirm = { message: 'ok?', requestedSchema: { type: 'object', properties: {} } };
  const held = Array.from({ length: 5 }, () => broker.elicit(confirm, ctx('busy')));
  await new Promise((r) => setImmediate(r));
  assert.equal(broker.pending('busy').length, 5);
  assert.deepEqual(await broker.elicit(confirm, ctx('busy')), { action: 'decline' });
  assert.equal(store.audit.find((a) => a.detail?.reason === 'pending-cap')?.action, 'decline');
  const other = broker.elicit(confirm, ctx('other'));
  await new Promise((r) => setImmediate(r));
  assert.equal(broker.pending('other').length, 1);
  release.forEach((f) => f());
  assert.deepEqual(await Promise.all(held), Array(5).fill({ action: 'cancel' }));
  assert.deepEqual(await other, { action: 'cancel' });
  assert.equal(broker.pending().length, 0, 'nothing waits once all are answered');
  // The per-server count went back to zero: a full set of 5 is admitted again, the 6th is not.
  const again = Array.from({ length: 5 }, () => broker.elicit(confirm, ctx('busy')));
  await new Promise((r) => setImmediate(r));
  assert.equal(broker.pending('busy').length, 5);
  assert.deepEqual(await broker.elicit(confirm, ctx('busy')), { action: 'decline' });
  release.forEach((f) => f());
  await Promise.all(again);
});

test('a request whose presenter throws synchronously is rejected and no longer waits; the pending cap is not used up', async () => {
  const presenter = new ScriptedPresenter([
    () => {
      throw new Error('hook broke');
    },
    { action: 'decline' },
  ]);
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter, store, policy: { maxPendingPerServer: 1 } });
  const events: string[] = [];
  broker.on((e) => events.push(e.type === 'pending-removed' ? `${e.type}:${e.outcome}` : e.type));
  const confirm = { message: 'ok?', requestedSchema: { type: 'object', properties: {} } };
  const broken = ctx('srv');
  await assert.rejects(broker.elicit(confirm, broken), /hook broke/);
  assert.deepEqual(broker.pending(), [], 'the failed request does not wait');
  assert.deepEqual(events, ['pending-added', 'pending-removed:error']);
  assert.ok(
    store.audit.some((a) => a.kind === 'error' && a.detail?.reason === 'presenter'),
    'the failure is audited like a presenter failure',
  );
  assert.deepEqual(
    await broker.elicit(confirm, ctx('srv')),
    { action: 'decline' },
    'the next request is asked, not refused by the pending cap',
  );
  assert.equal(presenter.prompts.length, 2);
});

test('the presenter answer wait is bounded: on timeout the broker answers cancel and closes the prompt', async () => {
  let aborted = false;
  const presenter = new ScriptedPresenter([
    (_p: InputRequestView, s: AbortSignal) => new Promise<PresenterAnswer>(() => s.addEventListener('abort', () => (aborted = true))),
  ]);
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter, store, timeouts: { answerMs: 50 } });
  assert.deepEqual(await broker.elicit({ message: 'slow', requestedSchema: { type: 'object', properties: {} } }, ctx()), {
    action: 'cancel',
  });
  assert.equal(aborted, true);
  assert.equal(store.audit.find((a) => a.kind === 'error')?.detail?.reason, 'timeout');
  assert.equal(presenter.notices[0].kind, 'timeout');
  assert.equal(broker.timeouts.urlCompletionMs, 600_000);
  assert.equal(new ElicitationBroker({ presenter }).timeouts.answerMs, 1_800_000);
});

test("the presenter gets one signal: the answer deadline aborts it (not the request's signal) and answers cancel; a server cancel stays a cancel by the server", async () => {
  const own = new AbortController();
  let seen: AbortSignal | undefined;
  const slow = (_p: InputRequestView, s: AbortSignal) => ((seen = s), new Promise<PresenterAnswer>(() => {}));
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter: new ScriptedPresenter([slow]), store, timeouts: { answerMs: 50 } });
  const form = { message: 'slow', requestedSchema: { type: 'object', properties: {} } };
  assert.deepEqual(await broker.elicit(form, ctx('srv', { signal: own.signal })), { action: 'cancel' });
  assert.equal(seen?.aborted, true, "the deadline aborted the presenter's signal");
  assert.equal((seen?.reason as Error | undefined)?.name, 'TimeoutError');
  assert.equal(own.signal.aborted, false, "the request's own signal is untouched: the cancel answer is still sent");
  assert.equal(store.audit.find((a) => a.kind === 'error')?.detail?.reason, 'timeout');

  const req = new AbortController();
  const b2 = new ElicitationBroker({ presenter: new ScriptedPresenter([slow]), timeouts: { answerMs: 60_000 } });
  const pending = b2.elicit(form, ctx('srv', { signal: req.signal }));
  await new Promise((r) => setImmediate(r));
  const reason = new Error('cancelled by the server');
  req.abort(reason);
  await assert.rejects(pending, { code: 'CANCELLED_BY_SERVER' });
  assert.equal(seen?.reason, reason, "the presenter's signal carries the server's reason");
});

test('close() answers every waiting request cancel (audited as shutdown), and later ones at once', async () => {
  const never = (_p: InputRequestView) => new Promise<PresenterAnswer>(() => {});
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter: new ScriptedPresenter([never, never]), store });
  const form = { message: 'wait', requestedSchema: { type: 'object', properties: {} } };
  const waiting = broker.elicit(form, ctx('srv'));
  await new Promise((r) => setImmediate(r));
  broker.close();
  assert.deepEqual(await waiting, { action: 'cancel' });
  assert.deepEqual(await broker.elicit(form, ctx('srv')), { action: 'cancel' });
  assert.deepEqual(
    store.audit.filter((a) => a.kind === 'error').map((a) => a.detail?.reason),
    ['shutdown', 'shutdown'],
  );
  assert.deepEqual(broker.pending(), []);
});

test('answer deadlines beyond the longest timer are clamped to 2^31-1 ms: no early fire, no overflow warning', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.name);
  process.on('warning', onWarning);
  try {
    const slow = () => new Promise<PresenterAnswer>((r) => setTimeout(() => r({ action: 'decline' }), 30));
    const broker = new ElicitationBroker({
      presenter: new ScriptedPresenter([slow]),
      timeouts: { answerMs: 2 ** 31 + 5_000, urlCompletionMs: 2 ** 40 },
    });
    assert.deepEqual(broker.timeouts, { answerMs: 2 ** 31 - 1, urlCompletionMs: 2 ** 31 - 1 });
    const form = { message: 'x', requestedSchema: { type: 'object', properties: {} } };
    assert.deepEqual(await broker.elicit(form, ctx('srv')), { action: 'decline' });
    await new Promise((res) => setImmediate(res));
    assert.deepEqual(
      warnings.filter((w) => w === 'TimeoutOverflowWarning'),
      [],
      'no timer was given a delay beyond 2^31-1 ms',
    );
  } finally {
    process.off('warning', onWarning);
  }
});

test('answer deadlines are per request: a later request still times out after an earlier one is answered, in start order', async () => {
  const store = new MemoryStore();
  let release!: (a: PresenterAnswer) => void;
  const first = (_p: InputRequestView) => new Promise<PresenterAnswer>((r) => (release = r));
  const never = (_p: InputRequestView) => new Promise<PresenterAnswer>(() => {});
  // a must be answered before its own deadline: the two 40 ms pauses before release() may take several
  // times as long on a loaded machine, so the deadline is far beyond them (c still starts after b).
  const broker = new ElicitationBroker({ presenter: new ScriptedPresenter([first, never, never]), store, timeouts: { answerMs: 1_500 } });
  const form = (m: string) => ({ message: m, requestedSchema: { type: 'object', properties: {} } });
  const t0 = Date.now();
  const a = broker.elicit(form('a'), ctx('s1'));
  await new Promise((r) => setTimeout(r, 40));
  const b = broker.elicit(form('b'), ctx('s2'));
  await new Promise((r) => setTimeout(r, 40));
  const c = broker.elicit(form('c'), ctx('s3'));
  const releasedAfter = Date.now() - t0;
  release({ action: 'decline' }); // the first request ends: b's and c's deadlines still run
  assert.deepEqual(await a, { action: 'decline' }, `released ${releasedAfter} ms after a was asked`);
  assert.deepEqual(await b, { action: 'cancel' }, 'b timed out');
  assert.equal(broker.pending('s3').length, 1, 'c (started 40 ms after b) is still waiting when b times out');
  assert.deepEqual(await c, { action: 'cancel' }, 'c timed out too');
  assert.equal(store.audit.filter((r) => r.detail?.reason === 'timeout').length, 2);
});

test('a waiting answer deadline does not keep a process alive once every request is answered', async () => {
  const { spawnSync } = await import('node:child_process');
  // A 30-minute answer timeout and an immediate answer: the process must exit on its own.
  const script = `
    import { ElicitationBroker } from './src/host/broker/index.ts';
    import { ScriptedPresenter } from './src/host/presenter.ts';
    const b = new ElicitationBroker({ presenter: new ScriptedPresenter([{ action: 'accept', content: {} }]) });
    const r = await b.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} } }, { server: 's', era: 'legacy', revision: '2025-11-25', signal: new AbortController().signal });
    console.log(r.action);`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.error, undefined, `the process did not exit within 60 s (answerMs is 30 min): ${r.error?.message}`);
  assert.equal(r.stdout.trim(), 'accept', r.stderr);
});

test('a request already cancelled on arrival never reaches the presenter', async () => {
  const presenter = new ScriptedPresenter([{ action: 'accept', content: {} }]);
  const ac = new AbortController();
  ac.abort();
  const broker = new ElicitationBroker({ presenter });
  await assert.rejects(
    broker.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} } }, ctx('srv', { signal: ac.signal })),
    { code: 'CANCELLED_BY_SERVER' },
  );
});

test('HeadlessPresenter rejects at once with UserInteractionRequiredError naming server and fields', async () => {
  const { HeadlessPresenter } = await import('../src/host/presenter.js');
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter: new HeadlessPresenter(), store });
  await assert.rejects(
    broker.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }, ctx('ci')),
    (e: unknown) => {
      assert.ok(e instanceof UserInteractionRequiredError);
      assert.match(e.message, /"ci".*fields name.*no person can answer here\.$/);
      assert.doesNotMatch(e.message, /--/, 'the host puts no CLI flags into errors');
      return true;
    },
  );
  assert.equal(store.audit.find((a) => a.kind === 'error')?.detail?.code, 'USER_INTERACTION_REQUIRED');
  assert.equal(broker.pending().length, 0);
});

test('a failing store never breaks an elicitation', async () => {
  const store = new MemoryStore();
  store.close();
  const broker = new ElicitationBroker({ presenter: new ScriptedPresenter([{ action: 'decline' }]), store });
  assert.deepEqual(await broker.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} } }, ctx()), {
    action: 'decline',
  });
});

test('each request keeps its own server, call and person through to the prompt, events and audit', async () => {
  const presenter = new ScriptedPresenter([{ action: 'accept', content: {} }, { action: 'decline' }]);
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter, store });
  const events: string[] = [];
  broker.on((e) => events.push(`${e.type}:${'id' in e ? e.id : ''}`));
  const confirm = { message: 'ok?', requestedSchema: { type: 'object', properties: {} } };
  const ada = { tenant: 't', user: 'ada', session: 'x' };
  const bob = { tenant: 't', user: 'bob', session: 'y' };
  await broker.elicit(confirm, ctx('s', { scope: ada, call: { tool: 'deploy', callId: 'c1' }, requestId: 7 }));
  await broker.elicit(confirm, ctx('s', { scope: bob, call: { tool: 'deploy', callId: 'c2' } }));
  assert.deepEqual(
    presenter.prompts.map((p) => p.call?.callId),
    ['c1', 'c2'],
  );
  assert.deepEqual(
    store.audit.filter((a) => a.kind === 'answer').map((a) => [a.scope.user, a.action, a.requestId]),
    [
      ['ada', 'accept', 'in-1'],
      ['bob', 'decline', 'in-2'],
    ],
  );
  assert.deepEqual(events, [
    'pending-added:',
    'answered:in-1',
    'pending-removed:in-1',
    'pending-added:',
    'answered:in-2',
    'pending-removed:in-2',
  ]);
});

test('Q1 slow human: an answer after 90 s is delivered (default answer bound 30 min, no 60 s default)', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const presenter = new ScriptedPresenter([
    () => new Promise<PresenterAnswer>((res) => setTimeout(() => res({ action: 'accept', content: { name: 'Ada' } }), 90_000)),
  ]);
  const broker = new ElicitationBroker({ presenter });
  const p = broker.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }, ctx());
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  t.mock.timers.tick(60_000);
  t.mock.timers.tick(30_000);
  assert.deepEqual(await p, { action: 'accept', content: { name: 'Ada' } });
});

test('a presenter bug (unknown action) is audited and surfaces as an error, never as an answer', async () => {
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter: new ScriptedPresenter([{ action: 'reject' } as never]), store });
  await assert.rejects(broker.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} } }, ctx()), /expected \{action/);
  assert.equal(store.audit.filter((a) => a.kind === 'answer').length, 0);
  assert.equal(store.audit.find((a) => a.kind === 'error')?.detail?.reason, 'presenter');
  assert.equal(broker.pending().length, 0);
});

test('${input:…} prompts go through the pipeline: audited (a password redacted), prefilled from their default, bounded by answerMs', async () => {
  const store = new MemoryStore();
  const seen: InputRequestView[] = [];
  const never = (_p: InputRequestView) => new Promise<PresenterAnswer>(() => {});
  const presenter = new ScriptedPresenter([(p) => (seen.push(p), { action: 'accept', content: { 'api-key': 'sk-secret-42' } }), never]);
  const broker = new ElicitationBroker({ presenter, store, timeouts: { answerMs: 60 } });
  const key = { id: 'api-key', type: 'promptString' as const, description: 'Service API key', password: true, default: 'sk-' };
  assert.equal(await broker.askInput('svc', key), 'sk-secret-42');
  assert.deepEqual(seen[0].sensitiveFields, ['api-key'], 'a password input is masked (and not refused as a sensitive field)');
  assert.deepEqual(seen[0].prefill, { 'api-key': 'sk-' });
  const rows = store.audit.filter((a) => a.requestId === seen[0].id);
  assert.deepEqual(
    rows.map((a) => a.kind),
    ['request', 'policy', 'answer'],
  );
  assert.equal(rows[0].detail?.source, 'config-input');
  assert.deepEqual(rows[2].detail?.content, { 'api-key': REDACTED });
  assert.ok(!JSON.stringify(store.audit).includes('sk-secret-42'), 'the secret is in no audit row');

  // Nobody answers: the deadline ends the prompt, and the input counts as not provided.
  const t0 = Date.now();
  assert.equal(await broker.askInput('svc', { id: 'region', type: 'promptString' }), undefined);
  assert.ok(Date.now() - t0 < 5_000, 'bounded by answerMs');
  assert.equal(store.audit.at(-1)?.detail?.reason, 'timeout');
});
