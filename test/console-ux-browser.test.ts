// The console as people meet it (issue 15), in real Chromium: a new request is noticed wherever the
// person is on the page; tool results are shown for people (images, long results collapsed).
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { CHROMIUM, launch, open, within, type Session } from './fixtures/console/browser.js';
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
  s.page.locator(selector).first().evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight && r.width > 0;
  });

test('a request that arrives while the person is down the page shows a fixed notice that jumps to it; the title counts', { skip }, async () => {
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
    assert.equal(await s.page.title(), 'parley console');
  } finally {
    await s.page.setViewportSize({ width: 1100, height: 900 });
  }
});
