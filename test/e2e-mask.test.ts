// Through `parley up` in Chromium: the person masks a field parley does not flag (server-everything's
// `name`), answers with remember "always": the server gets the value, the store file (its bytes) never
// holds it, and the next form prefills the other answers but not the masked one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM, EVERYTHING, openTool, up, type Up } from './fixtures/e2e/up.js';

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed`;
const SECRET = 'Zq7-masked-in-parley-up-9031';

test('parley up: a masked field is sent, never stored (db bytes) and not prefilled; the other answers are remembered', {
  skip,
  timeout: 240_000,
}, async () => {
  const keep = mkdtempSync(join(tmpdir(), 'parley-e2e-mask-'));
  const db = join(keep, 'parley.db');
  const config = join(keep, 'everything.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }));
  let u: Up | undefined;
  try {
    u = await up(['--config', config, '--db', db], { expectReady: 1 });
    const { page } = u;
    const tool = await openTool(page, 'everything', 'trigger-elicitation-request');
    await tool.getByRole('button', { name: 'Call trigger-elicitation-request' }).click();
    const c = page.locator('article.prompt[data-server="everything"]');
    await c.waitFor({ timeout: 30_000 });
    const name = c.locator('[data-field="name"]');
    await name.getByRole('button', { name: 'Mask (secret)' }).click();
    await name.locator('input[type="password"]').fill(SECRET);
    await c.locator('[data-field="email"] input').fill('ada@example.com');
    await c.getByLabel('Always: prefill only (for this server and form)').check();
    await c.getByRole('button', { name: 'Accept and send' }).click();
    await c.waitFor({ state: 'detached' });
    const box = tool.locator('.result');
    await box.locator('h4').first().waitFor({ timeout: 60_000 });
    assert.match(await box.innerText(), new RegExp(`Name: ${SECRET}`), 'the server gets the masked value');

    await tool.getByRole('button', { name: 'Call trigger-elicitation-request' }).click();
    await c.waitFor({ timeout: 30_000 });
    assert.equal(await c.locator('[data-field="email"] input').inputValue(), 'ada@example.com', 'the rest is prefilled');
    assert.equal(await c.locator('[data-field="name"] input').inputValue(), '', 'the masked field is not');
    await c.getByRole('button', { name: 'Cancel' }).click();
    await c.waitFor({ state: 'detached' });
  } finally {
    await u?.stop();
  }
  try {
    const bytes = ['', '-wal', '-shm', '-journal']
      .map((x) => db + x)
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f));
    assert.ok(
      bytes.some((b) => b.indexOf('ada@example.com') >= 0),
      'the remembered email is in the file (real bytes read)',
    );
    for (const b of bytes) assert.equal(b.indexOf(SECRET), -1, 'the masked value is nowhere in the store files');
  } finally {
    rmSync(keep, { recursive: true, force: true });
  }
});
