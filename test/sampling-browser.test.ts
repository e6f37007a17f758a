// A sampling prompt in the web console in real Chromium (issue 14 item 9): the conversation is shown,
// the reply is typed into a multi-line box, "Send reply" sends it; there is no "remember".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { ElicitationBroker } from '../src/host/index.js';
import type { PresenterAnswer, InputRequestView } from '../src/host/index.js';
import { CHROMIUM, launch, open, type Session } from './fixtures/console/browser.js';

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

async function samplingView(): Promise<InputRequestView> {
  let seen: InputRequestView | undefined;
  const b = new ElicitationBroker({
    presenter: {
      interactive: true,
      sampling: true,
      present: async (p) => ((seen = p), { action: 'cancel' } as PresenterAnswer),
      notify: () => {},
    },
  });
  await b.sample(
    { messages: [{ role: 'user', content: { type: 'text', text: 'Name a colour.' } }], systemPrompt: 'One word.', maxTokens: 5 },
    { server: 'paint', era: 'modern', revision: '2026-07-28', signal: new AbortController().signal },
  );
  return seen!;
}

test('the console shows the conversation and sends a multi-line reply', { skip }, async () => {
  const prompt = await samplingView();
  const answer = session.presenter.present(prompt, new AbortController().signal);
  const c = session.page.locator(`article.prompt[data-id="${prompt.id}"]`);
  await c.waitFor();
  assert.equal(await c.locator('h3').innerText(), 'paint asks for a model reply (sampling)');
  assert.match(await c.locator('.message').innerText(), /\[system\] One word\.\n\[user\] Name a colour\./);
  assert.equal(await c.locator('fieldset.remember').count(), 0, 'no remember choice');
  const box = c.locator('[data-field="reply"] textarea');
  await box.fill('Blue\nor green');
  await c.getByRole('button', { name: 'Send reply' }).click();
  assert.deepEqual(await answer, { action: 'accept', content: { reply: 'Blue\nor green' }, remember: 'once' });
  await c.waitFor({ state: 'detached' });
});
