// A field parley does not flag as a secret can still be one: the person masks it in the console
// (real Chromium). The real broker then keeps the value out of the audit and never remembers or
// prefills it; the proof reads the SQLite file's bytes (database, WAL and shared memory).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { ElicitationBroker } from '../src/host/broker/index.js';
import { openSqliteStore } from '../src/host/store/index.js';
import { CHROMIUM, launch, open, within, type Session } from './fixtures/console/browser.js';
import { SCOPE } from './fixtures/console/host.js';

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed`;
let browser: Browser;
let s: Session;
let dir: string;
before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'parley-mask-'));
  browser = await launch();
  s = await open(browser);
});
after(async () => {
  await s?.stop();
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const SECRET = 'Zq7-masked-by-the-person-4411';
const form = {
  mode: 'form' as const,
  message: 'Link your account',
  requestedSchema: {
    type: 'object',
    properties: {
      account: { type: 'string', title: 'Account' },
      case_reference: { type: 'string', title: 'Case reference' },
    },
    required: ['account', 'case_reference'],
  },
};

test('a field the person masks is hidden, sent to the server, and never stored or prefilled (remember "always")', {
  skip,
  timeout: 120_000,
}, async () => {
  const file = join(dir, 'parley.db');
  const store = openSqliteStore(file);
  const broker = new ElicitationBroker({ presenter: s.presenter, store, scope: SCOPE, policy: { sensitiveFields: 'ask' } });
  const ctx = () => ({
    server: 'vault',
    era: 'legacy' as const,
    revision: '2025-11-25',
    signal: new AbortController().signal,
    requestId: 1,
  });
  try {
    const first = broker.elicit(form, ctx());
    const c = s.page.locator('article.prompt');
    await c.waitFor();
    const ref = c.locator('[data-field="case_reference"]');
    assert.equal(await ref.locator('input[type="text"]').count(), 1, 'not flagged by parley: a plain text input');
    await ref.getByRole('button', { name: 'Mask (secret)' }).click();
    assert.equal(await ref.getByRole('button', { name: 'Mask (secret)' }).getAttribute('aria-pressed'), 'true');
    assert.equal(await ref.locator('input[type="password"]').count(), 1, 'masked: the input hides what is typed');
    await ref.locator('input[type="password"]').fill(SECRET);
    await c.locator('[data-field="account"] input').fill('ada');
    await c.getByLabel('Always: prefill only (for this server and form)').check();
    await s.shot('mask-field');
    await c.getByRole('button', { name: 'Accept and send' }).click();
    assert.deepEqual(await within(first, 'first answer'), { action: 'accept', content: { account: 'ada', case_reference: SECRET } });
    await c.waitFor({ state: 'detached' });

    // Next time: the account is prefilled, the masked field is empty.
    const second = broker.elicit(form, ctx());
    await c.waitFor();
    assert.equal(await c.locator('[data-field="account"] input').inputValue(), 'ada');
    assert.equal(await c.locator('[data-field="case_reference"] input').inputValue(), '');
    await c.getByRole('button', { name: 'Cancel' }).click();
    assert.deepEqual(await within(second, 'second answer'), { action: 'cancel' });
    broker.close();
  } finally {
    await store.close();
  }
  const bytes = ['', '-wal', '-shm', '-journal']
    .map((x) => file + x)
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f));
  assert.ok(bytes.length > 0);
  for (const b of bytes) assert.equal(b.indexOf(SECRET), -1, 'the masked value is nowhere in the store files');
  assert.ok(
    bytes.some((b) => b.indexOf('ada') >= 0),
    'the remembered account is there (the check reads real bytes)',
  );
});
