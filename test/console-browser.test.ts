// The web console in real Chromium (Debian's /usr/bin/chromium via playwright-core): elicitation
// forms for every field kind, accept/decline/cancel/Esc, per-field validation, server abort, URL
// consent, confirm-only and concurrent prompts. Screenshots go to test-artifacts/console/.
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { CHROMIUM, launch, open, settledWithin, within, type Session } from './fixtures/console/browser.js';
import { formPrompt, urlPrompt } from './fixtures/console/prompts.js';
import { SCOPE } from './fixtures/console/host.js';
import { verifies } from './helpers/verifies.js';

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed`;
// One browser, one console and one page for the whole file (a new renderer costs seconds on a busy
// machine); every test leaves no prompt pending (afterEach cancels leftovers and waits for the page).
let browser: Browser;
let session: Session;
before(async () => {
  if (skip) return;
  browser = await launch();
  session = await open(browser);
});
after(async () => {
  await session?.stop();
  await browser?.close();
});
afterEach(async () => {
  if (skip) return;
  session.presenter.cancelAll();
  await session.page.locator('article.prompt').first().waitFor({ state: 'detached' });
});

/** Runs `fn` with the shared console session. */
async function withSession(fn: (s: Session) => Promise<void>): Promise<void> {
  await fn(session);
}

const card = (s: Session, id: string) => s.page.locator(`article.prompt[data-id="${id}"]`);
const field = (s: Session, id: string, name: string) => card(s, id).locator(`[data-field="${name}"]`);

test('13-field server-everything form: every field kind filled in the browser, accepted as typed content', { skip }, () =>
  withSession(async (s) => {
    const prompt = formPrompt();
    const answer = s.presenter.present(prompt, new AbortController().signal);
    const c = card(s, prompt.id);
    await c.waitFor();
    verifies('ELIC-1125-CLIENT-SHOW-SERVER');
    assert.equal(await c.locator('h3').innerText(), 'everything is asking');
    assert.match(await c.locator('.call').innerText(), /trigger-elicitation-request/);
    assert.equal(await c.locator('.message').innerText(), prompt.message);
    verifies('ELIC-1125-DEFAULTS');
    assert.equal(await field(s, prompt.id, 'firstLine').locator('input').inputValue(), 'It was a dark and stormy night.');
    assert.match(await field(s, prompt.id, 'firstLine').locator('.source').innerText(), /Prefilled from default/);
    assert.equal(await field(s, prompt.id, 'integer').locator('input').inputValue(), '42');
    // Every control has a label; the input types follow the formats.
    const unlabeled = await c
      .locator('input, select, textarea')
      .evaluateAll((els) => els.filter((e) => (e as HTMLInputElement).labels?.length === 0).length);
    assert.equal(unlabeled, 0);
    verifies('ELIC-1125-FORMATS');
    for (const [name, type] of [
      ['email', 'email'],
      ['homepage', 'url'],
      ['birthdate', 'text'],
      ['number', 'number'],
    ]) {
      assert.equal(await field(s, prompt.id, name).locator('input').getAttribute('type'), type, name);
    }
    // A date is a text box showing its one format (the native picker shows the locale's order instead).
    assert.equal(await field(s, prompt.id, 'birthdate').locator('input').getAttribute('placeholder'), 'YYYY-MM-DD');
    assert.equal(await field(s, prompt.id, 'integer').locator('input').getAttribute('type'), 'number');

    await field(s, prompt.id, 'name').locator('input').fill('Ada Lovelace');
    await field(s, prompt.id, 'check').locator('input').check();
    await field(s, prompt.id, 'email').locator('input').fill('ada@example.com');
    await field(s, prompt.id, 'homepage').locator('input').fill('https://ada.example.org');
    await field(s, prompt.id, 'birthdate').locator('input').fill('1815-12-10');
    await field(s, prompt.id, 'integer').locator('input').fill('7');
    await field(s, prompt.id, 'number').locator('input').fill('12.5');
    verifies('ELIC-1125-ENUM-SHAPES');
    await field(s, prompt.id, 'untitledSingleSelectEnum').locator('select').selectOption('Ross');
    await field(s, prompt.id, 'untitledMultipleSelectEnum').getByLabel('Guitar').uncheck();
    await field(s, prompt.id, 'untitledMultipleSelectEnum').getByLabel('Piano').check();
    await field(s, prompt.id, 'untitledMultipleSelectEnum').getByLabel('Drums').check();
    await field(s, prompt.id, 'titledSingleSelectEnum').locator('select').selectOption({ label: 'Green Lantern' });
    await field(s, prompt.id, 'titledMultipleSelectEnum').getByLabel('Salmon').check();
    await field(s, prompt.id, 'legacyTitledEnum').locator('select').selectOption({ label: 'Birds' });
    await c.getByLabel('For this session').check();
    await s.shot('form-13-fields-filled');
    await c.getByRole('button', { name: 'Accept and send' }).click();
    verifies('ELIC-VALIDATE-BOTH-SIDES');
    assert.deepEqual(await within(answer, 'answer'), {
      action: 'accept',
      content: {
        name: 'Ada Lovelace',
        check: true,
        firstLine: 'It was a dark and stormy night.',
        email: 'ada@example.com',
        homepage: 'https://ada.example.org',
        birthdate: '1815-12-10',
        integer: 7,
        number: 12.5,
        untitledSingleSelectEnum: 'Ross',
        untitledMultipleSelectEnum: ['Piano', 'Drums'],
        titledSingleSelectEnum: 'hero-2',
        titledMultipleSelectEnum: ['fish-1', 'fish-2'],
        legacyTitledEnum: 'pet-3',
      },
      remember: 'session',
    });
    await c.waitFor({ state: 'detached' });
    assert.equal(await s.page.locator('#no-prompts').isVisible(), true);
  }),
);

test('an invalid value shows a per-field message (live and on Accept) and does not resolve; Esc cancels', { skip }, () =>
  withSession(async (s) => {
    const prompt = formPrompt();
    const answer = s.presenter.present(prompt, new AbortController().signal);
    await card(s, prompt.id).waitFor();
    const integer = field(s, prompt.id, 'integer');
    await integer.locator('input').fill('500');
    await integer.locator('.error').filter({ hasText: /100/ }).waitFor(); // live check while typing
    assert.equal(await integer.locator('input').getAttribute('aria-invalid'), 'true');
    await field(s, prompt.id, 'email').locator('input').fill('nope');
    await card(s, prompt.id).getByRole('button', { name: 'Accept and send' }).click();
    await field(s, prompt.id, 'name')
      .locator('.error')
      .filter({ hasText: /required/ })
      .waitFor();
    await field(s, prompt.id, 'email').locator('.error').filter({ hasText: /email/ }).waitFor();
    assert.equal(await settledWithin(answer), 'pending');
    // Focus moved to the first invalid field.
    assert.equal(await s.page.evaluate(() => document.activeElement?.closest('.field')?.getAttribute('data-field')), 'name');
    await s.shot('form-invalid');
    await s.page.keyboard.press('Escape');
    verifies('ELIC-RESULT-ACTIONS');
    assert.deepEqual(await within(answer, 'esc'), { action: 'cancel' });
    await card(s, prompt.id).waitFor({ state: 'detached' });
  }),
);

test('Decline and Cancel buttons resolve distinctly', { skip }, () =>
  withSession(async (s) => {
    for (const [button, action] of [
      ['Decline', 'decline'],
      ['Cancel', 'cancel'],
    ] as const) {
      const prompt = formPrompt();
      const answer = s.presenter.present(prompt, new AbortController().signal);
      await card(s, prompt.id).getByRole('button', { name: button, exact: true }).click();
      assert.deepEqual(await within(answer, button), { action });
      await card(s, prompt.id).waitFor({ state: 'detached' });
    }
  }),
);

test('a server abort closes the prompt in the page and says so', { skip }, () =>
  withSession(async (s) => {
    const ac = new AbortController();
    const prompt = formPrompt({ message: 'Which branch should be deployed?' });
    const answer = s.presenter.present(prompt, ac.signal);
    await card(s, prompt.id).waitFor();
    ac.abort();
    await card(s, prompt.id).waitFor({ state: 'detached' });
    await s.page.locator('#notices .notice[data-kind="withdrawn"]', { hasText: 'Which branch should be deployed?' }).waitFor();
    assert.deepEqual(await answer, { action: 'cancel' });
    s.presenter.notify({
      kind: 'refused',
      server: 'everything',
      message: 'Declined: the form asked for "password", which looks like a secret.',
      reason: 'sensitive-field',
    });
    const notice = s.page.locator('#notices .notice[data-kind="refused"]');
    await notice.waitFor();
    assert.match(await notice.innerText(), /Refused by policy: everything — Declined: .*password.*\(sensitive-field\)/);
    await s.shot('notices');
  }),
);

test('URL consent: full URL and host shown, nothing fetched, opened with noopener only after Open', { skip }, () =>
  withSession(async (s) => {
    const full = 'https://xn--pple-43d.com/oauth/authorize?state=abc&next=%2Fpay';
    const prompt = urlPrompt(full, {
      url: { full, host: 'аpple.com', asciiHost: 'xn--pple-43d.com', warnings: ['punycode', 'mixed-script'] },
    });
    const answer = s.presenter.present(prompt, new AbortController().signal);
    const c = card(s, prompt.id);
    await c.waitFor();
    await s.page.evaluate(() => {
      const w = window as unknown as { opened: unknown[][]; open: (...a: unknown[]) => null };
      w.opened = [];
      w.open = (...a: unknown[]) => (w.opened.push(a), null);
    });
    verifies(['ELIC-1125-URL-SHOW-FULL', 'ELIC-1125-URL-WARN-PUNYCODE']);
    assert.equal(await c.locator('.url-full').innerText(), full);
    assert.equal(await c.locator('mark.url-host').innerText(), 'xn--pple-43d.com');
    assert.equal(await c.locator('.url-site').innerText(), 'аpple.com');
    assert.equal(await c.locator('.url-warnings li').count(), 2);
    assert.equal(await s.page.locator('a[href*="pple"]').count(), 0, 'the URL is never a link');
    await s.shot('url-consent');
    assert.equal(await settledWithin(answer), 'pending');
    verifies(['ELIC-1125-URL-CONSENT', 'ELIC-1125-URL-NO-PREFETCH']);
    assert.ok(!s.requests.some((u) => u.includes('pple')), 'nothing fetched before consent');
    assert.equal(
      await c.getByRole('button', { name: /^Open / }).innerText(),
      'Open xn--pple-43d.com',
      'a look-alike name is not repeated on the button',
    );
    await c.getByRole('button', { name: /^Open / }).click();
    assert.deepEqual(await within(answer, 'open'), { action: 'accept' });
    await s.page.waitForFunction(() => (window as unknown as { opened: unknown[] }).opened.length === 1);
    assert.deepEqual(await s.page.evaluate(() => (window as unknown as { opened: unknown[] }).opened[0]), [
      full,
      '_blank',
      'noopener,noreferrer',
    ]);

    const second = urlPrompt('https://example.com/pay');
    const declined = s.presenter.present(second, new AbortController().signal);
    await card(s, second.id).getByRole('button', { name: 'Decline' }).click();
    assert.deepEqual(await within(declined, 'decline'), { action: 'decline' });
    assert.equal(await s.page.evaluate(() => (window as unknown as { opened: unknown[] }).opened.length), 1);
    assert.ok(!s.requests.some((u) => u.includes('example.com')));
  }),
);

test('confirm-only prompt (empty properties) shows buttons only', { skip }, () =>
  withSession(async (s) => {
    const prompt = formPrompt({ rawSchema: { type: 'object', properties: {} }, message: 'Delete the scratch branch?' });
    const answer = s.presenter.present(prompt, new AbortController().signal);
    const c = card(s, prompt.id);
    await c.waitFor();
    assert.equal(await c.locator('input, select, textarea').count(), 0);
    assert.deepEqual(await c.locator('button').allInnerTexts(), ['Accept', 'Decline', 'Cancel']);
    await s.shot('confirm-only');
    await c.getByRole('button', { name: 'Accept' }).click();
    assert.deepEqual(await within(answer, 'confirm'), { action: 'accept', content: {}, remember: 'once' });
  }),
);

test('two concurrent prompts from two servers are labelled and answered independently', { skip }, () =>
  withSession(async (s) => {
    const schema = { type: 'object', properties: { branch: { type: 'string', title: 'Branch' } }, required: ['branch'] };
    const a = formPrompt({ server: 'alpha', rawSchema: schema, call: { tool: 'deploy', callId: 'c-a' } });
    const b = formPrompt({ server: 'beta', rawSchema: schema, call: { tool: 'merge', callId: 'c-b' } });
    const pa = s.presenter.present(a, new AbortController().signal);
    const pb = s.presenter.present(b, new AbortController().signal);
    await card(s, b.id).waitFor();
    assert.equal(await card(s, a.id).locator('h3').innerText(), 'alpha is asking');
    assert.equal(await card(s, b.id).locator('h3').innerText(), 'beta is asking');
    assert.match(await card(s, b.id).locator('.call').innerText(), /merge.*c-b/);
    assert.equal(await s.page.locator('#prompt-count').innerText(), '(2)');
    await s.shot('two-prompts');
    await field(s, b.id, 'branch').locator('input').fill('main');
    await card(s, b.id).getByRole('button', { name: 'Accept and send' }).click();
    assert.deepEqual(await within(pb, 'beta'), { action: 'accept', content: { branch: 'main' }, remember: 'once' });
    assert.equal(await settledWithin(pa), 'pending');
    assert.equal(await field(s, a.id, 'branch').locator('input').inputValue(), '');
    await card(s, a.id).getByRole('button', { name: 'Decline' }).click();
    assert.deepEqual(await within(pa, 'alpha'), { action: 'decline' });
  }),
);

test('keyboard: Tab reaches every field and the three buttons in order, with a visible focus ring', { skip }, () =>
  withSession(async (s) => {
    const prompt = formPrompt({
      rawSchema: { type: 'object', properties: { who: { type: 'string', title: 'Who' }, ok: { type: 'boolean', title: 'OK' } } },
    });
    const answer = s.presenter.present(prompt, new AbortController().signal);
    await field(s, prompt.id, 'who').locator('input').focus();
    const seen: string[] = [];
    for (let i = 0; i < 9; i++) {
      seen.push(
        await s.page.evaluate(() => {
          const e = document.activeElement as HTMLElement;
          return (
            e.getAttribute('data-action') ?? e.closest('.field')?.getAttribute('data-field') ?? (e as HTMLInputElement).value ?? e.tagName
          );
        }),
      );
      await s.page.keyboard.press('Tab');
    }
    // The second 'who' is the field's "Mask (secret)" button.
    assert.deepEqual(seen.slice(0, 7), ['who', 'who', 'ok', 'once', 'accept', 'decline', 'cancel']);
    await field(s, prompt.id, 'who').locator('input').focus();
    await s.page.keyboard.press('Shift+Tab');
    await s.page.keyboard.press('Tab');
    const outline = await s.page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    assert.notEqual(outline, 'none');
    await s.page.keyboard.type('me');
    await s.page.keyboard.press('Enter');
    assert.deepEqual(await within(answer, 'enter'), { action: 'accept', content: { who: 'me', ok: false }, remember: 'once' });
  }),
);

test('text colours meet WCAG AA (4.5:1) against their backgrounds', { skip }, () =>
  withSession(async (s) => {
    const prompt = formPrompt();
    void s.presenter.present(prompt, new AbortController().signal);
    await card(s, prompt.id).waitFor();
    await s.page.locator('details.tool summary').first().waitFor();
    s.presenter.notify({ kind: 'refused', server: 'everything', message: 'A notice, to check its colours.' });
    await s.page.locator('#notices .notice').first().waitFor();
    // A string, not a function: tsx's name-keeping helper (__name) does not exist in the page.
    const worst: Array<{ text: string; ratio: number }> = await s.page.evaluate(`(() => {
      const rgb = (c) => (c.match(/[0-9.]+/g) ?? []).map(Number);
      const lum = (c) => {
        const [r, g, b] = c.slice(0, 3).map((v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const bg = (e) => {
        for (; e; e = e.parentElement) {
          const c = rgb(getComputedStyle(e).backgroundColor);
          if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c;
        }
        return [255, 255, 255];
      };
      const out = [];
      for (const e of document.querySelectorAll('body *')) {
        const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
        if (!own || !e.offsetParent) continue;
        const [a, b] = [lum(rgb(getComputedStyle(e).color)), lum(bg(e))];
        out.push({ text: e.tagName + '.' + e.className + ': ' + e.textContent.trim().slice(0, 30), ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) });
      }
      return out.sort((x, y) => x.ratio - y.ratio).slice(0, 3);
    })()`);
    assert.ok(worst[0].ratio >= 4.5, JSON.stringify(worst));
    await s.shot('page-overview');
  }),
);

test('tools panel: argument form from inputSchema; text, image, structured and error results', { skip }, () =>
  withSession(async (s) => {
    const tool = (name: string) => s.page.locator(`details.tool[data-tool="everything/${name}"]`);
    await tool('echo').locator('summary').click();
    await tool('echo')
      .getByLabel(/message/)
      .fill('hello');
    await tool('echo').getByRole('button', { name: 'Call echo' }).click();
    await tool('echo').locator('.result pre.text').filter({ hasText: 'Echo: hello' }).waitFor();
    await tool('get-tiny-image').locator('summary').click();
    await tool('get-tiny-image').getByRole('button').click();
    const img = tool('get-tiny-image').locator('.result img');
    await img.waitFor();
    assert.equal(await img.evaluate((i) => (i as HTMLImageElement).naturalWidth), 1);
    await tool('structured').locator('summary').click();
    await tool('structured').getByLabel(/tags/).fill('["a","b"]');
    await tool('structured').getByLabel(/loud/).check();
    await tool('structured').getByRole('button').click();
    await tool('structured').locator('pre.structured').waitFor();
    assert.deepEqual(JSON.parse(await tool('structured').locator('pre.structured').innerText()), { tags: ['a', 'b'], loud: true });
    await tool('fail').locator('summary').click();
    await tool('fail').getByRole('button').click();
    await tool('fail').locator('.result.is-error').waitFor();
    assert.deepEqual(
      s.host.calls.map((c) => c.tool),
      ['echo', 'get-tiny-image', 'structured', 'fail'],
    );
    await s.shot('tools');
  }),
);

test('roots, presets and audit panels: add a root (health shown), save and export a preset, filter the audit log', { skip }, () =>
  withSession(async (s) => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-console-root-'));
    try {
      await s.page.getByLabel('Root URI').fill(pathToFileURL(dir).href);
      await s.page.getByLabel('Name', { exact: true }).fill('scratch');
      await s.page.getByLabel('Scope').selectOption('app');
      await s.page.getByRole('button', { name: 'Add root' }).click();
      const row = s.page.locator('#roots tr', { hasText: 'scratch' });
      await row.locator('.state.ok').waitFor();
      assert.match(await row.innerText(), /app/);
      await s.page.getByLabel('Root URI').fill('no scheme here');
      await s.page.getByRole('button', { name: 'Add root' }).click();
      await s.page.locator('#root-error').filter({ hasText: /\S/ }).waitFor();

      await s.page.getByLabel('Preset name').fill('work');
      await s.page.getByRole('button', { name: 'Save current roots and answers' }).click();
      await s.page.locator('#presets li[data-preset="work"]').waitFor();
      // Times are ISO 8601 UTC (as parley audit prints them), never the browser's locale format.
      assert.match(await s.page.locator('#presets li[data-preset="work"]').innerText(), /saved \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/);
      const [download] = await Promise.all([s.page.waitForEvent('download'), s.page.getByText('Export all presets').click()]);
      assert.equal(download.suggestedFilename(), 'parley-presets.json');
      const doc = JSON.parse(readFileSync((await download.path())!, 'utf8'));
      assert.equal(doc.presets[0].roots[0].name, 'scratch');

      await row.getByRole('button', { name: 'Remove root scratch' }).click();
      await row.waitFor({ state: 'detached' });

      await s.host.store.appendAudit({
        scope: SCOPE,
        server: 'alpha',
        kind: 'answer',
        action: 'decline',
        requestId: 'r-dec',
        ts: Date.UTC(2026, 11, 1, 19, 26, 3, 456),
      });
      await s.host.store.appendAudit({
        ts: Date.now(),
        scope: SCOPE,
        server: 'alpha',
        kind: 'answer',
        action: 'accept',
        requestId: 'r-acc',
      });
      await s.page.getByLabel('Server', { exact: true }).fill('alpha');
      await s.page.getByLabel('Action').selectOption('decline');
      await s.page.getByRole('button', { name: 'Filter' }).click();
      await s.page.locator('#audit tbody tr', { hasText: 'r-dec' }).waitFor();
      assert.equal(await s.page.locator('#audit tbody tr').count(), 1);
      assert.equal(await s.page.locator('#audit tbody tr td').first().innerText(), '2026-12-01 19:26:03Z');
      await s.shot('roots-presets-audit');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }),
);

test('a re-presented prompt (round 2) shows the previous issues per field, the repairs and lint notes', { skip }, () =>
  withSession(async (s) => {
    const prompt = formPrompt({
      round: 2,
      issues: [{ code: 'required', path: '/name', severity: 'error', message: 'String is required' }],
      repairs: [
        { code: 'keyword-dropped', path: '/properties/name/pattern', message: 'Dropped "pattern", which is not in the 2025-11-25 subset' },
      ],
      lint: [
        {
          code: 'pattern',
          path: '/properties/name/pattern',
          severity: 'warning',
          message: 'pattern is not part of the requestedSchema subset',
        },
      ],
    });
    await s.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const answer = s.presenter.present(prompt, new AbortController().signal);
    const c = card(s, prompt.id);
    await field(s, prompt.id, 'name').locator('.error').filter({ hasText: 'String is required' }).waitFor();
    assert.match(await c.locator('details.repairs summary').innerText(), /adjusted this form so it can be shown \(1\)/);
    assert.match(await c.locator('details.lint summary').innerText(), /\(1\)/);
    // The new prompt took focus (nothing else had it), so Esc answers it straight away.
    assert.equal(await s.page.evaluate(() => document.activeElement?.getAttribute('data-id')), prompt.id);
    await s.page.keyboard.press('Escape');
    assert.deepEqual(await within(answer, 'esc'), { action: 'cancel' });
  }),
);

test(
  'date-time fields are text boxes that take RFC 3339 as written and send it unchanged; typed numbers survive the round trip',
  { skip },
  () =>
    withSession(async (s) => {
      const prompt = formPrompt({
        rawSchema: {
          type: 'object',
          properties: { at: { type: 'string', format: 'date-time', title: 'When' }, n: { type: 'number', title: 'N', minimum: -5 } },
          required: ['at'],
        },
      });
      const answer = s.presenter.present(prompt, new AbortController().signal);
      const at = field(s, prompt.id, 'at').locator('input');
      assert.equal(await at.getAttribute('type'), 'text', 'no native picker: it would show the locale order, not the hinted one');
      assert.equal(await at.getAttribute('placeholder'), 'YYYY-MM-DDTHH:MM:SSZ');
      await at.fill('2025-01-31T09:30:00+08:00');
      await field(s, prompt.id, 'n').locator('input').fill('-2.5');
      await card(s, prompt.id).getByRole('button', { name: 'Accept and send' }).click();
      const got = await within(answer, 'date-time');
      assert.equal(got.action, 'accept');
      const content = (got as { content: Record<string, unknown> }).content;
      assert.equal(content.n, -2.5);
      assert.equal(content.at, '2025-01-31T09:30:00+08:00', 'sent exactly as typed (the offset kept)');
    }),
);

test('sensitive fields are masked; remember is offered only for the others and names the masked ones', { skip }, () =>
  withSession(async (s) => {
    const prompt = formPrompt({
      rawSchema: {
        type: 'object',
        properties: {
          apiKey: { type: 'string', title: 'API key' },
          pin: { type: 'integer', title: 'PIN' },
          user: { type: 'string', title: 'User' },
        },
      },
      warnings: ['sensitive:apiKey', 'sensitive:pin'],
    });
    assert.deepEqual(prompt.sensitiveFields, ['apiKey', 'pin']);
    const answer = s.presenter.present(prompt, new AbortController().signal);
    const c = card(s, prompt.id);
    assert.equal(await field(s, prompt.id, 'apiKey').locator('input').getAttribute('type'), 'password');
    assert.equal(await field(s, prompt.id, 'pin').locator('input').getAttribute('type'), 'password');
    assert.equal(await field(s, prompt.id, 'user').locator('input').getAttribute('type'), 'text');
    assert.match(await c.locator('.warn').innerText(), /"apiKey" looks like a secret/);
    assert.match(await c.locator('fieldset.remember').innerText(), /Never remembered: API key, PIN/);
    await field(s, prompt.id, 'pin').locator('input').fill('1234');
    await field(s, prompt.id, 'user').locator('input').fill('ada');
    await c.getByLabel('Always: prefill only (for this server and form)').check();
    await c.getByRole('button', { name: 'Accept and send' }).click();
    assert.deepEqual(await within(answer, 'sensitive'), { action: 'accept', content: { pin: 1234, user: 'ada' }, remember: 'always' });

    const onlySecret = formPrompt({ rawSchema: { type: 'object', properties: { password: { type: 'string', title: 'Password' } } } });
    const a2 = s.presenter.present(onlySecret, new AbortController().signal);
    await card(s, onlySecret.id).waitFor();
    assert.equal(await card(s, onlySecret.id).locator('fieldset.remember').count(), 0);
    await card(s, onlySecret.id).getByRole('button', { name: 'Decline' }).click();
    assert.deepEqual(await within(a2, 'decline'), { action: 'decline' });
  }),
);

test('the session cookie never holds the token; a valid token URL wins over stale and planted cookies', { skip }, async () => {
  const { con } = session;
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  try {
    const name = `parley_console_${con.port}`;
    // An earlier run's cookie, an old-style cookie holding a token, and one planted by another page on
    // 127.0.0.1 with a longer Path (sent first on every API request).
    await context.addCookies([
      { name, value: 'A'.repeat(43), domain: '127.0.0.1', path: '/' },
      { name: 'parley_console', value: '0'.repeat(32), domain: '127.0.0.1', path: '/' },
      { name, value: 'P'.repeat(43), domain: '127.0.0.1', path: '/api' },
    ]);
    const page = await context.newPage();
    await page.goto(con.url);
    await page.locator('body[data-ready="true"]').waitFor();
    assert.equal(page.url(), `${con.origin}/`, 'the token left the address bar');
    await page.locator('#servers').filter({ hasText: 'everything' }).waitFor();
    await page.locator('#conn').filter({ hasText: 'Live' }).waitFor();
    const mine = (await context.cookies(con.origin)).filter((c) => c.name === name && c.path === '/');
    assert.equal(mine.length, 1);
    assert.notEqual(mine[0].value, con.token);
    assert.ok(!JSON.stringify(await context.cookies()).includes(con.token), 'no cookie carries the token');
    assert.equal(mine[0].httpOnly, true);
    assert.equal(mine[0].sameSite, 'Strict');
    assert.ok(mine[0].expires > Date.now() / 1000 + 11 * 3600, 'a documented lifetime (12 h)');
    assert.ok(!(await page.evaluate(() => document.cookie)).includes(`${name}=`), 'the page script cannot read it');
  } finally {
    await context.close();
  }
});

test('opened without its token, the console page says why and what to do', { skip }, async () => {
  const { con } = session;
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  try {
    const page = await context.newPage();
    const r = await page.goto(`${con.origin}/`);
    assert.equal(r?.status(), 401);
    assert.match(await page.locator('#refusal').innerText(), /needs the address with its token.*printed when parley started/s);
    await context.addCookies([{ name: `parley_console_${con.port}`, value: 'A'.repeat(43), domain: '127.0.0.1', path: '/' }]);
    await page.goto(`${con.origin}/`);
    assert.match(await page.locator('#refusal').innerText(), /session has ended/);
    await page.goto(`${con.origin}/?token=${'f'.repeat(32)}`);
    assert.match(await page.locator('#refusal').innerText(), /not this console's.*earlier run/s);
    await page.goto(con.url);
    await page.locator('body[data-ready="true"]').waitFor();
  } finally {
    await context.close();
  }
});
