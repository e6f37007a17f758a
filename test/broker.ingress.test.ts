// Issue 12 items 6 and 14 at the broker: size caps refuse with -32602 and tell the person; URL
// credentials are never stored in clear; bidi controls are escaped with a warning; warnings carry text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ElicitationBroker, InvalidElicitationError, checkUrl } from '../src/host/broker/index.js';
import type { BrokerEvent } from '../src/host/broker/index.js';
import { ScriptedPresenter } from '../src/host/presenter.js';
import { DEFAULT_LIMITS } from '../src/schema/index.js';
import { MemoryStore } from './fixtures/broker/memoryStore.js';
import { ctx } from './fixtures/broker/ctx.js';

const form = (props: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties: props, ...extra });
const many = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

const OVER: Array<[string, Record<string, unknown>, RegExp]> = [
  [
    'message',
    { message: 'm'.repeat(DEFAULT_LIMITS.messageChars + 1), requestedSchema: form({ a: { type: 'string' } }) },
    /the message has 8193 characters, over the cap of 8192 \(limits\.messageChars\)/,
  ],
  [
    'title',
    { message: 'x', requestedSchema: form({ a: { type: 'string', title: 'T'.repeat(100_000) } }) },
    /too-large at requestedSchema\/properties\/a\/title: a property title has 100000 characters/,
  ],
  [
    'description',
    { message: 'x', requestedSchema: form({ a: { type: 'string', description: 'd'.repeat(DEFAULT_LIMITS.descriptionChars + 1) } }) },
    /limits\.descriptionChars/,
  ],
  [
    'enum options',
    { message: 'x', requestedSchema: form({ a: { type: 'string', enum: many(DEFAULT_LIMITS.enumOptions + 1, (i) => `o${i}`) } }) },
    /an option list has 1001 options, over the cap of 1000/,
  ],
  [
    'properties',
    {
      message: 'x',
      requestedSchema: form(Object.fromEntries(many(DEFAULT_LIMITS.properties + 1, (i) => [`f${i}`, { type: 'string' }] as const))),
    },
    /the form has 101 properties, over the cap of 100/,
  ],
  [
    'property name',
    { message: 'x', requestedSchema: form({ ['n'.repeat(10_000)]: { type: 'string' } }) },
    /a property name has 10000 characters/,
  ],
  [
    'whole request',
    {
      message: 'x',
      requestedSchema: form(Object.fromEntries(many(90, (i) => [`f${i}`, { type: 'string', description: 'é'.repeat(1_600) }] as const))),
    },
    /requestedSchema has \d+ bytes, over the cap of 262144 \(limits\.requestBytes\)/,
  ],
];

for (const [what, params, re] of OVER) {
  test(`over the ${what} cap: -32602 with the part and the cap, a notice for the person, an audit row, nothing shown`, async () => {
    const presenter = new ScriptedPresenter([{ action: 'accept', content: {} }]);
    const store = new MemoryStore();
    const broker = new ElicitationBroker({ presenter, store });
    const events: BrokerEvent[] = [];
    broker.on((e) => events.push(e));
    await assert.rejects(broker.elicit(params as never, ctx('big')), (e: unknown) => {
      assert.ok(e instanceof InvalidElicitationError);
      assert.equal(e.code, -32602);
      assert.match(e.message, re);
      assert.ok(e.message.length < 2_000, `the error stays short (${e.message.length})`);
      assert.ok(e.issues.some((i) => i.code === 'too-large'));
      return true;
    });
    assert.equal(presenter.prompts.length, 0);
    assert.deepEqual(
      presenter.notices.map((n) => [n.kind, n.server, n.reason]),
      [['refused', 'big', 'invalid-request']],
    );
    assert.ok(events.some((e) => e.type === 'refused' && e.reason === 'invalid-request' && e.server === 'big'));
    const err = store.audit.find((a) => a.kind === 'error');
    assert.equal(err?.detail?.code, -32602);
    assert.ok(JSON.stringify(store.audit).length < 20_000, 'the audit keeps an excerpt, not the whole text');
  });
}

test('URL credentials are never stored in clear: audit, events, the prompt and notices show [redacted]', async () => {
  const presenter = new ScriptedPresenter([{ action: 'accept' }]);
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter, store });
  const events: BrokerEvent[] = [];
  broker.on((e) => events.push(e));
  const r = await broker.elicit(
    {
      mode: 'url',
      message: 'Sign in at https://bob:hunter2@example.com/login',
      url: 'https://alice:s3cret@example.com/pay?x=1',
      elicitationId: 'e1',
    },
    ctx(),
  );
  assert.deepEqual(r, { action: 'accept' });
  const everything = JSON.stringify([store.audit, events, presenter.prompts, presenter.notices]);
  assert.ok(!everything.includes('s3cret') && !everything.includes('alice'), 'no URL credential anywhere');
  assert.ok(!everything.includes('hunter2'), 'nor in the message');
  assert.equal(presenter.prompts[0].url?.full, 'https://[redacted]@example.com/pay?x=1');
  assert.ok(presenter.prompts[0].url?.warnings.includes('credentials-in-url'));
  // Refused URLs too.
  const refused = await broker.elicit({ mode: 'url', message: 'go', url: 'http://carol:pw123@evil.example/x', elicitationId: 'e2' }, ctx());
  assert.deepEqual(refused, { action: 'decline' });
  assert.ok(!JSON.stringify([store.audit, events, presenter.notices]).includes('pw123'));
});

test('answers: URL credentials typed into a field are redacted in the audit and in remembered answers', async () => {
  const presenter = new ScriptedPresenter([
    { action: 'accept', content: { repo: 'https://dave:tok3n@git.example/r.git' }, remember: 'always' },
  ]);
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter, store });
  await broker.elicit({ message: 'Repository?', requestedSchema: form({ repo: { type: 'string' } }) }, ctx());
  assert.ok(!JSON.stringify([store.audit, store.answers]).includes('tok3n'));
  assert.equal(store.answers[0].content.repo, 'https://[redacted]@git.example/r.git');
});

test('fields the person masks are redacted from the audit and never remembered', async () => {
  const presenter = new ScriptedPresenter([
    { action: 'accept', content: { city: 'Oslo', note: 'my-hidden-value' }, remember: 'always', masked: ['note'] },
  ]);
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter, store });
  await broker.elicit({ message: 'Where?', requestedSchema: form({ city: { type: 'string' }, note: { type: 'string' } }) }, ctx());
  assert.ok(!JSON.stringify(store.audit).includes('my-hidden-value'));
  assert.deepEqual(store.answers[0].content, { city: 'Oslo' });
});

test('a field the server marks as secret (writeOnly) but names innocently is redacted and never remembered', async () => {
  const presenter = new ScriptedPresenter([{ action: 'accept', content: { city: 'Oslo', word: 'open-sesame' }, remember: 'always' }]);
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter, store, policy: { sensitiveFields: 'ask' } });
  await broker.elicit(
    { message: 'Where?', requestedSchema: form({ city: { type: 'string' }, word: { type: 'string', writeOnly: true } }) },
    ctx(),
  );
  assert.deepEqual(presenter.prompts[0].sensitiveFields, ['word']);
  assert.ok(!JSON.stringify(store.audit).includes('open-sesame'));
  assert.deepEqual(store.answers[0].content, { city: 'Oslo' });
});

test('bidi controls in a URL are shown escaped with a warning; every warning has text for a person', () => {
  const u = checkUrl('https://example.com/\u202Egnp.exe', { urlSchemes: ['https'] });
  assert.ok(u.ok);
  assert.equal(u.view.full, 'https://example.com/%E2%80%AEgnp.exe');
  assert.ok(!u.view.full.includes('\u202E'));
  assert.deepEqual(u.view.warnings, ['bidi-control']);
  const z = checkUrl('https://exa\u200Bmple.com/a\u00ADb', { urlSchemes: ['https'] });
  assert.ok(z.ok && z.view.warnings.includes('invisible-characters') && !/[\u200B\u00AD]/.test(z.view.full), JSON.stringify(z));
  for (const url of ['https://a:b@xn--80ak6aa92e.com/', 'http://localhost:8080/', 'https://exаmple.com/\u2066x']) {
    // Loopback URLs are refused by default (the console's session cookie); allowed here to see their warning.
    const c = checkUrl(url, { urlSchemes: ['https'], allowLoopbackUrls: true });
    assert.ok(c.ok && c.view.warnings.length > 0, url);
    for (const [i, code] of c.view.warnings.entries()) {
      assert.equal(c.view.warningDetails[i].code, code);
      assert.ok(c.view.warningDetails[i].text.length > 30 && c.view.warningDetails[i].text !== code, `${code} has a sentence`);
    }
  }
});

test('the prompt carries warning text beside each code (sensitive fields, URL warnings)', async () => {
  const presenter = new ScriptedPresenter([{ action: 'cancel' }, { action: 'cancel' }]);
  const broker = new ElicitationBroker({ presenter, policy: { sensitiveFields: 'ask' } });
  await broker.elicit({ message: 'x', requestedSchema: form({ apiKey: { type: 'string' } }) }, ctx());
  await broker.elicit({ mode: 'url', message: 'x', url: 'https://xn--80ak6aa92e.com/', elicitationId: 'e9' }, ctx());
  const [a, b] = presenter.prompts;
  assert.deepEqual(
    a.warningDetails?.map((d) => d.code),
    ['sensitive:apiKey'],
  );
  assert.match(a.warningDetails![0].text, /"apiKey" looks like it asks for a secret/);
  assert.deepEqual(
    b.warningDetails?.map((d) => d.code),
    b.warnings,
  );
  assert.match(b.warningDetails![0].text, /Punycode/);
});
