// URL mode: scheme allowlist, loopback-only http, Punycode / mixed-script warnings, consent, the
// 2025-11-25 elicitationId registry and the -32042 consent path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ElicitationBroker, MAX_URL_ELICITATIONS, UrlElicitationRegistry, checkUrl } from '../src/host/broker/index.js';
import type { BrokerEvent } from '../src/host/broker/index.js';
import { ScriptedPresenter } from '../src/host/presenter.js';
import { MemoryStore } from './fixtures/broker/memoryStore.js';
import { ctx } from './fixtures/broker/ctx.js';
import { connectLegacy } from './fixtures/broker/peers.js';
import { Client, UrlElicitationRequiredError } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer, UrlElicitationRequiredError as ServerUrlError } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { loadHostConfig } from '../src/host/config/index.js';
import { sandbox } from './fixtures/config/tmp.js';
import { verifies } from './helpers/verifies.js';

const POLICY = { urlSchemes: ['https'] };

test('refused schemes: javascript:, file:, data:, http to a non-loopback host', async () => {
  verifies('ELIC-1125-URL-SAFE-HANDLING');
  for (const url of [
    'javascript:alert(1)',
    'file:///etc/passwd',
    'data:text/html,<b>x</b>',
    'http://evil.com/login',
    'ftp://example.com/x',
    'not a url',
  ]) {
    const presenter = new ScriptedPresenter([{ action: 'accept' }]);
    const store = new MemoryStore();
    const broker = new ElicitationBroker({ presenter, store });
    const r = await broker.elicit({ mode: 'url', message: 'go', url, elicitationId: 'e1' }, ctx());
    assert.deepEqual(r, { action: 'decline' }, url);
    assert.equal(presenter.prompts.length, 0, `${url} never shown`);
    assert.match(String(store.audit.find((a) => a.kind === 'policy')?.detail?.reason), /^url-(scheme|invalid)$/);
    assert.equal(presenter.notices[0].kind, 'refused');
  }
});

test('allowed: https to other hosts; loopback hosts only with policy allowLoopbackUrls, then over http too', () => {
  assert.equal(checkUrl('https://example.com/a?b=c', POLICY).ok, true);
  const ALLOW = { ...POLICY, allowLoopbackUrls: true };
  for (const url of [
    'http://localhost:3000/cb',
    'http://127.0.0.1/x',
    'http://[::1]:8080/',
    'http://127.0.0.2/',
    'https://127.0.0.1:8443/',
  ])
    assert.equal(checkUrl(url, ALLOW).ok, true, url);
  assert.equal(checkUrl('http://localhost.evil.com/', ALLOW).ok, false);
});

test('refused by default: URLs to this machine (they would receive the console session cookie), with the setting named', async () => {
  const loopback = [
    'http://localhost:3000/cb',
    'http://127.0.0.1/x',
    'http://127.1.2.3:9/',
    'http://127.1/',
    'http://2130706433/',
    'http://0.0.0.0:8080/',
    'http://[::1]:8080/',
    'http://[::ffff:127.0.0.1]/',
    'http://app.localhost/',
    'http://LOCALHOST./',
    'https://127.0.0.1:8443/',
    'https://localhost/',
  ];
  for (const url of loopback) {
    const c = checkUrl(url, POLICY);
    assert.equal(c.ok, false, url);
    if (!c.ok) assert.match(c.message, /this computer.*"allowLoopbackUrls": true/, url);
  }
  // Through the broker: declined before the person sees it, the reason audited and shown as a notice.
  const presenter = new ScriptedPresenter([{ action: 'accept' }]);
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter, store });
  const r = await broker.elicit({ mode: 'url', message: 'log in', url: 'http://127.0.0.1:4123/steal', elicitationId: 'e1' }, ctx());
  assert.deepEqual(r, { action: 'decline' });
  assert.equal(presenter.prompts.length, 0);
  assert.match(presenter.notices[0].message, /allowLoopbackUrls/);
  // The setting, read from parley.json, lets it through; a wrong type is an issue naming the field.
  const s = sandbox();
  let policy;
  try {
    s.write('parley.json', JSON.stringify({ mcpServers: {}, policy: { allowLoopbackUrls: true } }));
    policy = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} }).config.policy;
    s.write('parley.json', JSON.stringify({ mcpServers: {}, policy: { allowLoopbackUrls: 'yes' } }));
    const bad = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.ok(JSON.stringify(bad.issues).includes('/policy/allowLoopbackUrls'), JSON.stringify(bad.issues));
  } finally {
    s.cleanup();
  }
  assert.equal(policy.allowLoopbackUrls, true);
  const allowed = new ElicitationBroker({ presenter: new ScriptedPresenter([{ action: 'accept' }]), store, policy });
  assert.deepEqual(await allowed.elicit({ mode: 'url', message: 'log in', url: 'http://127.0.0.1:4123/cb', elicitationId: 'e2' }, ctx()), {
    action: 'accept',
  });
});

test('Punycode and mixed-script hosts are shown with warnings and the Unicode host', () => {
  verifies('ELIC-1125-URL-WARN-PUNYCODE');
  const puny = checkUrl('https://xn--80ak6aa92e.com/login', POLICY);
  assert.ok(puny.ok && puny.view.warnings.includes('punycode'));
  const mixed = checkUrl('https://pаypal.com/login', POLICY); // Cyrillic "а" among Latin letters
  assert.ok(mixed.ok);
  if (mixed.ok) {
    assert.deepEqual(mixed.view.warnings.sort(), ['mixed-script', 'punycode']);
    assert.equal(mixed.view.host, 'pаypal.com');
    assert.match(mixed.view.asciiHost, /^xn--/);
  }
  const plain = checkUrl('https://example.com/', POLICY);
  assert.ok(plain.ok && plain.view.warnings.length === 0);
  const japanese = checkUrl('https://日本語ドメイン.jp/', POLICY);
  assert.ok(japanese.ok && !japanese.view.warnings.includes('mixed-script'));
});

test('consent: the presenter sees the full URL, host and warnings; accept has no content', async () => {
  verifies(['ELIC-1125-URL-CONSENT', 'ELIC-1125-URL-NO-PREFETCH']);
  const url = 'https://xn--80ak6aa92e.com/connect?flow=abc#frag';
  const presenter = new ScriptedPresenter([{ action: 'accept', content: { sneaky: 1 } }]);
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter, store });
  // Never a prefetch: any fetch during the elicitation is recorded and fails the test.
  const fetched: unknown[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = ((input: unknown) => (fetched.push(input), Promise.reject(new Error('prefetch')))) as typeof fetch;
  let r;
  try {
    r = await broker.elicit({ mode: 'url', message: 'Sign in', url, elicitationId: 'e-1' }, ctx());
  } finally {
    globalThis.fetch = realFetch;
  }
  assert.deepEqual(fetched, []);
  assert.deepEqual(r, { action: 'accept' });
  const v = presenter.prompts[0].url!;
  assert.equal(v.full, url);
  assert.ok(v.warnings.includes('punycode'));
  assert.equal(store.audit.find((a) => a.kind === 'policy')?.action, 'warn');
  assert.equal(broker.urls.state('srv', 'e-1'), 'consented');
});

test('elicitationId registry: pending → consented → completed; unknown and repeated completions ignored and audited', async () => {
  verifies('ELIC-1125-URL-COMPLETE');
  const presenter = new ScriptedPresenter([{ action: 'accept' }, { action: 'decline' }]);
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter, store });
  const events: BrokerEvent[] = [];
  broker.on((e) => e.type === 'url-completed' && events.push(e));
  await broker.elicit({ mode: 'url', message: 'a', url: 'https://example.com/a', elicitationId: 'same' }, ctx('s1'));
  // The same id from another server is another elicitation (ids are unique per server only).
  await broker.elicit({ mode: 'url', message: 'b', url: 'https://example.com/b', elicitationId: 'same' }, ctx('s2'));
  assert.equal(broker.urls.state('s1', 'same'), 'consented');
  assert.equal(broker.urls.state('s2', 'same'), 'declined');
  broker.elicitationComplete('s1', 'nope');
  broker.elicitationComplete('s1', 'same');
  broker.elicitationComplete('s1', 'same');
  assert.equal(broker.urls.state('s1', 'same'), 'completed');
  assert.equal(events.length, 1);
  const recs = store.audit.filter((a) => a.kind === 'complete').map((a) => a.detail?.result);
  assert.deepEqual(recs, ['ignored-unknown', 'completed', 'ignored-duplicate']);
});

test('waitForCompletion resolves on the notification, and false at its bound', async () => {
  const reg = new UrlElicitationRegistry();
  reg.add('s', 'x');
  const w = reg.waitForCompletion('s', 'x', 5_000);
  reg.complete('s', 'x');
  assert.equal(await w, true);
  reg.add('s', 'y');
  assert.equal(await reg.waitForCompletion('s', 'y', 20), false);
  assert.equal(await reg.waitForCompletion('s', 'unknown', 20), false);
  const ac = new AbortController();
  const w2 = reg.waitForCompletion('s', 'y', 5_000, ac.signal);
  ac.abort();
  assert.equal(await w2, false);
});

test(`the registry keeps at most ${MAX_URL_ELICITATIONS} ids: finished ones are forgotten first, then the oldest`, () => {
  // A server may register a fresh id per URL elicitation for the process's life (30 a minute under the
  // default rate limit): without a bound the registry only grew.
  assert.equal(MAX_URL_ELICITATIONS, 1_000);
  const reg = new UrlElicitationRegistry();
  reg.add('s', 'waiting');
  for (let i = 0; i < MAX_URL_ELICITATIONS - 1; i++) {
    reg.add('s', `done-${i}`);
    reg.decide('s', `done-${i}`, true);
    if (i % 2 === 0) reg.complete('s', `done-${i}`);
    else reg.decide('s', `done-${i}`, false);
  }
  assert.equal(reg.size, MAX_URL_ELICITATIONS);
  for (let i = 0; i < 5_000; i++) reg.add('s', `more-${i}`);
  assert.equal(reg.size, MAX_URL_ELICITATIONS);
  assert.equal(reg.state('s', 'more-4999'), 'pending', 'the newest is kept');
  assert.equal(reg.state('s', 'done-0'), undefined, 'finished ones went first');
  assert.equal(reg.state('s', 'waiting'), undefined, 'then the oldest pending one');
  assert.equal(reg.complete('s', 'waiting'), 'ignored-unknown');
});

test('-32042 path: consent to each listed URL elicitation, then wait for completion before retrying', async () => {
  const presenter = new ScriptedPresenter([{ action: 'accept' }, { action: 'accept' }]);
  const broker = new ElicitationBroker({ presenter });
  const list = [
    { mode: 'url' as const, message: 'Connect A', url: 'https://a.example.com/c', elicitationId: 'a' },
    { mode: 'url' as const, message: 'Connect B', url: 'https://b.example.com/c', elicitationId: 'b' },
  ];
  const out = await broker.consentToUrlElicitations(list, ctx('third'));
  assert.deepEqual(out, [
    { elicitationId: 'a', answer: { action: 'accept' } },
    { elicitationId: 'b', answer: { action: 'accept' } },
  ]);
  const waits = Promise.all([
    broker.waitForUrlCompletion('third', 'a', { timeoutMs: 2_000 }),
    broker.waitForUrlCompletion('third', 'b', { timeoutMs: 2_000 }),
  ]);
  broker.elicitationComplete('third', 'a');
  broker.elicitationComplete('third', 'b');
  assert.deepEqual(await waits, [true, true]);
  // A refusal stops the list.
  const broker2 = new ElicitationBroker({ presenter: new ScriptedPresenter([{ action: 'decline' }]) });
  assert.deepEqual(await broker2.consentToUrlElicitations(list, ctx('third')), [{ elicitationId: 'a', answer: { action: 'decline' } }]);
});

test('legacy SDK peer: a pushed URL request with javascript: is declined; https is consented without content', async () => {
  const presenter = new ScriptedPresenter([{ action: 'accept' }]);
  const broker = new ElicitationBroker({ presenter });
  const peer = await connectLegacy(broker, 'urls');
  try {
    const bad = await peer.ask({ mode: 'url', message: 'x', url: 'javascript:alert(1)', elicitationId: 'j' });
    assert.deepEqual(bad.result, { action: 'decline' });
    const ok = await peer.ask({ mode: 'url', message: 'Sign in', url: 'https://example.com/login', elicitationId: 'k' });
    assert.deepEqual(ok.result, { action: 'accept' });
    assert.equal(broker.urls.state('urls', 'k'), 'consented');
  } finally {
    await peer.close();
  }
});

test('2025-11-25 -32042 with real SDK peers: consent through the broker, completion notification, retry succeeds', async () => {
  verifies(['ELIC-1125-URL-REQUIRED-ERROR', 'ELIC-1125-URL-COMPLETE']);
  const presenter = new ScriptedPresenter([{ action: 'accept' }]);
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter, store });
  let connected = false;
  const server = new McpServer({ name: 'pay', version: '0.0.1' });
  server.registerTool('pay', { inputSchema: z.object({}) }, async () => {
    if (!connected)
      throw new ServerUrlError([
        { mode: 'url', message: 'Connect your payment account', url: 'https://pay.example.com/connect', elicitationId: 'pay-1' },
      ]);
    return { content: [{ type: 'text', text: 'paid' }] };
  });
  const client = new Client({ name: 'parley-test', version: '0.0.1' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setNotificationHandler('notifications/elicitation/complete', (n) => broker.elicitationComplete('pay', n.params.elicitationId));
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  await client.connect(ct);
  try {
    const err = await client.callTool({ name: 'pay', arguments: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof UrlElicitationRequiredError, `expected -32042, got ${String(err)}`);
    const consent = await broker.consentToUrlElicitations(err.elicitations, ctx('pay'));
    assert.deepEqual(consent, [{ elicitationId: 'pay-1', answer: { action: 'accept' } }]);
    assert.equal(presenter.prompts[0].url?.full, 'https://pay.example.com/connect');
    const waited = broker.waitForUrlCompletion('pay', 'pay-1', { timeoutMs: 2_000 });
    connected = true; // the out-of-band step finished on the server side
    await server.server.createElicitationCompletionNotifier('pay-1')();
    assert.equal(await waited, true);
    const retry = await client.callTool({ name: 'pay', arguments: {} });
    assert.equal((retry.content as Array<{ text: string }>)[0].text, 'paid');
    // A second completion for the same id, and one for an id never seen, are ignored.
    await server.server.createElicitationCompletionNotifier('pay-1')();
    await server.server.createElicitationCompletionNotifier('never-asked')();
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(
      store.audit.filter((a) => a.kind === 'complete').map((a) => a.detail?.result),
      ['completed', 'ignored-duplicate', 'ignored-unknown'],
    );
  } finally {
    await client.close();
    await server.close();
  }
});
