// The console as people meet it (issue 15), in real Chromium: a new request is noticed wherever the
// person is on the page; tool results are shown for people (images, long results collapsed).
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { CHROMIUM, launch, open, settledWithin, within, type Session } from './fixtures/console/browser.js';
import { formPrompt } from './fixtures/console/prompts.js';

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed`;
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

/** True when the element's box overlaps the viewport. */
const inViewport = (s: Session, selector: string) =>
  s.page
    .locator(selector)
    .first()
    .evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.bottom > 0 && r.top < window.innerHeight && r.width > 0;
    });

test('a request that arrives while the person is down the page shows a fixed notice that jumps to it; the title counts', {
  skip,
}, async () => {
  const s = session;
  await s.page.setViewportSize({ width: 1100, height: 400 });
  try {
    const tool = s.page.locator('details.tool[data-tool="everything/echo"]');
    await tool.locator('summary').click();
    await tool.getByRole('button', { name: 'Call echo' }).scrollIntoViewIfNeeded();
    await s.page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    const prompt = formPrompt();
    const answer = s.presenter.present(prompt, new AbortController().signal);
    const card = `article.prompt[data-id="${prompt.id}"]`;
    await s.page.locator(card).waitFor({ state: 'attached' });
    assert.equal(await inViewport(s, card), false, 'the card is out of view (the notice is needed)');
    const notice = s.page.locator('#new-request');
    await notice.waitFor();
    assert.equal(await inViewport(s, '#new-request'), true, 'the notice is in view wherever the page is scrolled');
    assert.match(await notice.innerText(), /everything is asking/);
    assert.match(await s.page.title(), /^\(1\) parley console$/);
    await s.shot('new-request-notice');
    await notice.getByRole('button', { name: 'Go to the request' }).click();
    assert.equal(await inViewport(s, card), true, 'the card is in view after the jump');
    assert.equal(await s.page.evaluate((sel) => document.activeElement === document.querySelector(sel), card), true);
    await notice.waitFor({ state: 'hidden' });
    await s.page.locator(card).getByRole('button', { name: 'Cancel' }).click();
    assert.deepEqual(await within(answer, 'answer'), { action: 'cancel' });
    await s.page.locator(card).waitFor({ state: 'detached' });
    assert.equal(await s.page.title(), 'parley console');
  } finally {
    await s.page.setViewportSize({ width: 1100, height: 900 });
  }
});

const tool = (s: Session, name: string) => s.page.locator(`details.tool[data-tool="everything/${name}"]`);
async function call(s: Session, name: string): Promise<void> {
  const t = tool(s, name);
  if (!(await t.evaluate((d) => (d as HTMLDetailsElement).open))) await t.locator('summary').click();
  await t.getByRole('button', { name: `Call ${name}` }).click();
  await t.locator('.result h4').first().waitFor();
}

test('tool results: a chart is shown as an image, its SVG copy is offered (never printed); an SVG resource alone is an image', {
  skip,
}, async () => {
  const s = session;
  await call(s, 'chart');
  const r = tool(s, 'chart').locator('.result');
  assert.equal(await r.locator('img').count(), 1, 'the PNG once; the SVG copy is not shown twice');
  assert.equal(await r.locator('img').evaluate((i) => (i as HTMLImageElement).naturalWidth), 1);
  assert.doesNotMatch(await r.innerText(), /<svg|<rect/, 'the SVG source is not printed');
  assert.match(await r.locator('.resource-link').innerText(), /chart:\/\/svg\/0123456789abcdef/);
  await call(s, 'svg-only');
  const img = tool(s, 'svg-only').locator('.result img');
  await img.waitFor();
  assert.equal(await img.evaluate((i) => (i as HTMLImageElement).naturalWidth), 40, 'the SVG resource is drawn');
  assert.doesNotMatch(await tool(s, 'svg-only').locator('.result').innerText(), /<svg/);
});

test('tool results: a large result is collapsed with a count and "Show all"; the page stays short', { skip }, async () => {
  const s = session;
  await call(s, 'orders');
  const r = tool(s, 'orders').locator('.result');
  const notes = r.locator('.collapsed-note');
  assert.equal(await notes.count(), 2, 'the text and the structured content are both collapsed');
  assert.match(await notes.first().innerText(), /Showing 30 of 500 lines/);
  assert.ok((await s.page.evaluate(() => document.body.scrollHeight)) < 6000, 'the page is not tens of thousands of pixels tall');
  await notes.first().getByRole('button', { name: 'Show all 500 lines' }).click();
  assert.equal((await r.locator('pre.text').innerText()).split('\n').length, 500);
  assert.equal(await notes.count(), 1);
  await tool(s, 'orders').locator('summary').click(); // close it again for the tests that follow
});

test('restarting one server (its tools re-listed) keeps the results already shown', { skip }, async () => {
  const s = session;
  const echo = tool(s, 'echo');
  if (!(await echo.evaluate((d) => (d as HTMLDetailsElement).open))) await echo.locator('summary').click();
  await echo.getByLabel(/message/).fill('still here');
  await echo.getByRole('button', { name: 'Call echo' }).click();
  await echo.locator('.result pre.text').filter({ hasText: 'Echo: still here' }).waitFor();
  await call(s, 'chart');
  // What the host adapter sends when a restarted server is running again (src/ui/web/hostAdapter.ts).
  const restarted = s.page.waitForResponse((res) => res.url().endsWith('/api/tools'));
  s.host.emit({ type: 'tools', server: 'everything' });
  await restarted;
  await s.page.waitForTimeout(100);
  assert.equal(await echo.locator('.result pre.text').innerText(), 'Echo: still here');
  assert.equal(await tool(s, 'chart').locator('.result img').count(), 1);
  assert.equal(await echo.evaluate((d) => (d as HTMLDetailsElement).open), true);
});

test('-32042 retry-or-cancel (a host decision) is a card with Retry and Cancel the call; the host can withdraw it', { skip }, async () => {
  const s = session;
  const decision = (id: string) => ({
    id,
    kind: 'url-retry' as const,
    server: 'everything',
    tool: 'trigger-url-elicitation',
    round: 1,
    urls: ['https://modelcontextprotocol.io'],
    message: 'everything needs the browser step at https://modelcontextprotocol.io before trigger-url-elicitation can run.',
  });
  const retry = s.presenter.decide(decision('d-1'), new AbortController().signal);
  const c = s.page.locator('article.prompt[data-id="d-1"]');
  await c.waitFor();
  assert.equal(await c.locator('h3').innerText(), 'everything needs a browser step');
  assert.match(await c.locator('.decision-urls').innerText(), /https:\/\/modelcontextprotocol\.io/);
  assert.deepEqual(await c.locator('.buttons button').allInnerTexts(), ['Retry trigger-url-elicitation', 'Cancel the call']);
  await s.shot('url-retry-decision');
  await c.getByRole('button', { name: 'Retry trigger-url-elicitation' }).click();
  assert.equal(await within(retry, 'retry'), 'retry');
  const cancel = s.presenter.decide(decision('d-2'), new AbortController().signal);
  await s.page.locator('article.prompt[data-id="d-2"]').getByRole('button', { name: 'Cancel the call' }).click();
  assert.equal(await within(cancel, 'cancel'), 'cancel');
  const ac = new AbortController(); // the completion arrived: the host withdraws the question
  const withdrawn = s.presenter.decide(decision('d-3'), ac.signal);
  await s.page.locator('article.prompt[data-id="d-3"]').waitFor();
  ac.abort();
  assert.equal(await within(withdrawn, 'withdrawn'), 'cancel');
  await s.page.locator('article.prompt[data-id="d-3"]').waitFor({ state: 'detached' });
});

test('the audit table fits its card, long details included', { skip }, async () => {
  const s = session;
  const { SCOPE } = await import('./fixtures/console/host.js');
  s.host.store.appendAudit({
    ts: Date.now(),
    scope: SCOPE,
    server: 'everything',
    kind: 'policy',
    action: 'decline',
    requestId: 'r-'.padEnd(60, 'x'),
    detail: { reason: 'sensitive-field', message: 'y'.repeat(400), url: 'https://example.com/' + 'z'.repeat(200) },
  });
  s.host.emit({ type: 'audit' });
  await s.page.locator('#audit table td').filter({ hasText: 'r-xxxx' }).waitFor();
  const fit = await s.page.locator('#audit-section').evaluate((sec) => ({
    section: sec.clientWidth,
    table: sec.querySelector('table')!.scrollWidth,
    page: document.documentElement.scrollWidth,
    view: window.innerWidth,
  }));
  assert.ok(fit.table <= fit.section, `table ${fit.table} px in a ${fit.section} px card`);
  assert.ok(fit.page <= fit.view, `page ${fit.page} px wide in a ${fit.view} px window`);
});

test('the roots table fits its card at 800 px, Remove buttons included', { skip }, async () => {
  const s = session;
  const { mkdtempSync, mkdirSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { pathToFileURL } = await import('node:url');
  const base = mkdtempSync(join(tmpdir(), 'parley-roots-fit-'));
  // Long names with no break opportunity (no hyphen or space), as generated result folders have.
  const dir = join(base, 'queryresults'.repeat(5), 'Sales2026Q4QuarterlyReportByRegion'.repeat(2));
  mkdirSync(dir, { recursive: true });
  await s.page.setViewportSize({ width: 800, height: 900 });
  try {
    await s.page.getByLabel('Root URI').fill(pathToFileURL(dir).href);
    await s.page.getByLabel('Name', { exact: true }).fill('quarterly-report-results');
    await s.page.getByRole('button', { name: 'Add root' }).click();
    const row = s.page.locator('#roots tr', { hasText: 'quarterly-report-results' });
    await row.waitFor();
    const fit = await s.page.locator('#roots-section').evaluate((sec) => {
      const card = sec.getBoundingClientRect();
      const pad = Number.parseFloat(getComputedStyle(sec).paddingRight) || 0;
      const buttons = Array.from(sec.querySelectorAll('table button')).map((b) => b.getBoundingClientRect().right);
      return {
        inner: card.right - pad,
        table: sec.querySelector('table')!.getBoundingClientRect().right,
        scroll: sec.querySelector('table')!.scrollWidth,
        width: sec.querySelector('table')!.clientWidth,
        button: Math.max(...buttons),
        oneLine: Array.from(sec.querySelectorAll('table button')).every(
          (b) => b.scrollWidth <= b.clientWidth && b.getBoundingClientRect().height < 48,
        ),
        page: document.documentElement.scrollWidth,
        view: window.innerWidth,
      };
    });
    assert.ok(fit.table <= fit.inner + 0.5, `table right edge ${fit.table} px, card content edge ${fit.inner} px`);
    assert.ok(fit.scroll <= fit.width, `table ${fit.scroll} px of content in ${fit.width} px`);
    assert.ok(fit.button <= fit.inner + 0.5, `Remove button right edge ${fit.button} px, card content edge ${fit.inner} px`);
    assert.ok(fit.oneLine, 'the Remove label stays on one line');
    assert.ok(fit.page <= fit.view, `page ${fit.page} px wide in a ${fit.view} px window`);
    await row.getByRole('button', { name: 'Remove root quarterly-report-results' }).click();
    await row.waitFor({ state: 'detached' });
  } finally {
    await s.page.setViewportSize({ width: 1100, height: 900 });
    rmSync(base, { recursive: true, force: true });
  }
});

test('URL warnings are shown in words, never as raw codes (url:punycode, credentials-in-url)', { skip }, async () => {
  const s = session;
  const { urlPrompt } = await import('./fixtures/console/prompts.js');
  const base = urlPrompt('https://user@xn--e1afmkfd.example/login');
  const prompt = {
    ...base,
    warnings: ['url:punycode', 'url:credentials-in-url'],
    url: { ...base.url!, warnings: ['punycode', 'credentials-in-url'] },
  };
  const answer = s.presenter.present(prompt, new AbortController().signal);
  const c = s.page.locator(`article.prompt[data-id="${prompt.id}"]`);
  await c.waitFor();
  const text = await c.innerText();
  assert.doesNotMatch(text, /url:|credentials-in-url|\bpunycode\b/, text);
  assert.match(text, /user name or password/);
  await c.getByRole('button', { name: 'Cancel' }).click();
  assert.deepEqual(await within(answer, 'answer'), { action: 'cancel' });
});

test('date fields show and accept one format: text boxes with the YYYY-MM-DD placeholder, other spellings refused naming the format, the value sent as typed', {
  skip,
}, async () => {
  const s = session;
  const prompt = formPrompt({
    rawSchema: {
      type: 'object',
      properties: {
        day: { type: 'string', format: 'date', title: 'Day' },
        at: { type: 'string', format: 'date-time', title: 'At' },
      },
      required: ['day'],
    },
  });
  const answer = s.presenter.present(prompt, new AbortController().signal);
  const card = s.page.locator(`article.prompt[data-id="${prompt.id}"]`);
  const day = card.locator('[data-field="day"]');
  const at = card.locator('[data-field="at"]');
  await card.waitFor();
  assert.equal(await day.locator('.hint').innerText(), 'YYYY-MM-DD (ISO 8601), e.g. 2025-01-31');
  assert.equal(
    await at.locator('.hint').innerText(),
    'YYYY-MM-DDTHH:MM:SSZ or with an offset such as +08:00 (ISO 8601), e.g. 2025-01-31T09:00:00Z',
  );
  // One format on screen: a text box (no native picker showing the locale's mm/dd/yyyy) with the hinted placeholder.
  const dayInput = day.locator('input');
  assert.deepEqual(await dayInput.evaluate((el: HTMLInputElement) => [el.type, el.placeholder, el.inputMode, el.pattern]), [
    'text',
    'YYYY-MM-DD',
    'numeric',
    '\\d{4}-\\d{2}-\\d{2}',
  ]);
  assert.equal(await at.locator('input').getAttribute('type'), 'text');
  assert.equal(await at.locator('input').getAttribute('placeholder'), 'YYYY-MM-DDTHH:MM:SSZ');
  // The hint is the control's description (screen readers read it with the label).
  const described = await dayInput.getAttribute('aria-describedby');
  assert.ok(described?.split(' ').includes((await day.locator('.hint').getAttribute('id')) ?? '-'), 'the hint describes the input');
  // Typed digits are what the box holds: 10012025 is not turned into a date, and is refused naming the format.
  await dayInput.click();
  await s.page.keyboard.type('10012025');
  assert.equal(await dayInput.inputValue(), '10012025');
  await card.getByRole('button', { name: 'Accept and send' }).click();
  await day.locator('.error', { hasText: 'YYYY-MM-DD (ISO 8601), e.g. 2025-01-31' }).waitFor();
  assert.equal(await dayInput.getAttribute('aria-invalid'), 'true');
  assert.equal(await settledWithin(answer), 'pending', 'nothing was sent');
  // A date-time without seconds or zone is refused the same way.
  await dayInput.fill('2025-01-31');
  await at.locator('input').fill('2025-01-31T09:30');
  await card.getByRole('button', { name: 'Accept and send' }).click();
  await at.locator('.error', { hasText: 'YYYY-MM-DDTHH:MM:SSZ' }).waitFor();
  // Written as the hint says, both are sent exactly as typed.
  await at.locator('input').fill('2025-01-31T09:30:00Z');
  await card.getByRole('button', { name: 'Accept and send' }).click();
  const got = (await within(answer, 'dates')) as { action: string; content: Record<string, string> };
  assert.equal(got.action, 'accept');
  assert.equal(got.content.day, '2025-01-31');
  assert.equal(got.content.at, '2025-01-31T09:30:00Z');
  // Any other spelling sent to the console is refused with a message naming the format (the API the page uses).
  const again = formPrompt({ rawSchema: { type: 'object', properties: { day: { type: 'string', format: 'date' } }, required: ['day'] } });
  void s.presenter.present(again, new AbortController().signal);
  for (const wrong of ['31/01/2025', '2025-1-31', '2025-02-30', '2025-01-31T00:00:00Z']) {
    const r = s.presenter.answer(again.id, { action: 'accept', content: { day: wrong } });
    assert.equal(r.status, 422, wrong);
    assert.match(
      (r as { issues: Array<{ message: string }> }).issues[0].message,
      /must be a real calendar date written YYYY-MM-DD \(ISO 8601\), e\.g\. 2025-01-31/,
      wrong,
    );
  }
});

test('a sub-address typed or reloaded (/tools, /index.html) shows the page at its section, not a 404; no favicon 404', {
  skip,
}, async () => {
  const s = session;
  const statuses: string[] = [];
  const seen = (r: import('playwright-core').Response) =>
    void (r.status() >= 400 && !r.url().includes('/api/') && statuses.push(`${r.status()} ${r.url()}`));
  s.page.on('response', seen);
  try {
    await s.page.goto(`${s.con.origin}/tools`);
    await s.page.locator('body[data-ready="true"]').waitFor();
    assert.equal(new URL(s.page.url()).pathname + new URL(s.page.url()).hash, '/#tools-section');
    await s.page.reload();
    await s.page.locator('body[data-ready="true"]').waitFor();
    assert.equal(await s.page.locator('#tools-h').innerText(), 'Tools');
    await s.page.goto(`${s.con.origin}/index.html`);
    await s.page.locator('body[data-ready="true"]').waitFor();
    assert.equal(new URL(s.page.url()).pathname, '/');
    assert.deepEqual(statuses, [], 'no page address answered 400 or more on the way (the favicon included)');
  } finally {
    s.page.off('response', seen);
    await s.page.goto(`${s.con.origin}/`);
    await s.page.locator('body[data-ready="true"]').waitFor();
  }
});

test('counts read as English: a server with one stderr line says "Recent stderr (1 line)"', { skip }, async () => {
  const summaries = await session.page.locator('#servers details > summary').allInnerTexts();
  const stderr = summaries.filter((t) => t.startsWith('Recent stderr'));
  assert.ok(stderr.length > 0, JSON.stringify(summaries));
  assert.ok(stderr.includes('Recent stderr (1 line)'), JSON.stringify(stderr));
  assert.deepEqual(
    stderr.filter((t) => /\(1 lines\)/.test(t)),
    [],
  );
});
