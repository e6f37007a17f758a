// `${input:…}` values of the configuration asked in the console (Chromium on `parley up`): the card says
// parley needs a value to start the server, its field is named with the input's id, and it offers no
// "Remember this answer" choice (these values are never remembered; before, the choice was offered and
// then dropped). Answering both inputs starts the lazy server (Restart) with them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { CHROMIUM, openTool, up } from './fixtures/e2e/up.js';
import { INPUT_KEY, writeInputsProject } from './fixtures/config/inputs-env.js';

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed`;

test('a configuration input card: parley needs the value, the field is the input id, no remember choice', {
  skip,
  timeout: 180_000,
}, async () => {
  const u = await up([], { prepare: (dir) => writeInputsProject(dir, true) });
  try {
    // A lazy server lists its tools once it runs: Restart starts it, which asks for its inputs.
    await u.page.getByRole('button', { name: 'Restart env' }).click();
    const card = u.page.locator('article.prompt').first();
    await card.waitFor();
    assert.equal(await card.locator('h3').innerText(), 'parley needs a value to start env');
    assert.match(await card.locator('.message').innerText(), /input "greeting" to start env: Key for env/);
    await u.shot('config-input', card);
    // The terminal of `parley up` says a form waits in the console (JSON log: event "prompt").
    await u.waitFor((e) => e.event === 'prompt' && e.server === 'env' && e.input === 'greeting', 10_000);
    assert.equal(await card.locator('fieldset.remember').count(), 0, 'no remember choice');
    await card.locator('input[name="greeting"]').fill(INPUT_KEY);
    await card.getByRole('button', { name: 'Accept and send' }).click();
    const region = u.page.locator('article.prompt', { hasText: 'input "region"' });
    await region.waitFor();
    assert.equal(await region.locator('fieldset.remember').count(), 0, 'no remember choice');
    await region.locator('select[name="region"]').selectOption('us');
    await region.getByRole('button', { name: 'Accept and send' }).click();
    const tool = await openTool(u.page, 'env', 'has_key');
    await tool.getByRole('button', { name: 'Call has_key' }).click();
    await tool.getByText('key ok').waitFor({ timeout: 60_000 });
  } finally {
    await u.stop();
  }
});
