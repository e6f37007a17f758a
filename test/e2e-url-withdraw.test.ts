// Regression (found by this test): a URL elicitation that came from a -32042 error (2025-11-25) must
// be withdrawn when its server goes away, and `parley up` must still exit on SIGTERM within its bound.
// The -32042 consent path now waits on the call's signal and the connection's lifetime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, EVERYTHING, openTool, up, type Up } from './fixtures/e2e/up.js';

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed`;

test('a -32042 URL consent card is withdrawn when its server restarts, and parley up still exits on SIGTERM', {
  skip,
  timeout: 180_000,
}, async () => {
  let u: Up | undefined;
  try {
    u = await up(['--config', 'everything.json'], {
      expectReady: 1,
      prepare: (dir) =>
        writeFileSync(
          join(dir, 'everything.json'),
          JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }),
        ),
    });
    const { page, child } = u;
    const tool = await openTool(page, 'everything', 'trigger-url-elicitation');
    await tool.locator('.field', { hasText: /^url/ }).locator('input').fill('https://example.com/pay');
    await tool.locator('.field', { hasText: 'errorPath' }).locator('input[type=checkbox]').check();
    await tool.getByRole('button', { name: 'Call trigger-url-elicitation' }).click();
    const card = page.locator('article.prompt[data-server="everything"]');
    await card.waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Restart everything' }).click();
    const withdrawn = await card.waitFor({ state: 'detached', timeout: 15_000 }).then(
      () => true,
      () => false,
    );
    const exited = new Promise<boolean>((r) => child.once('exit', () => r(true)));
    child.kill('SIGTERM');
    const exitedInTime = await Promise.race([exited, new Promise<boolean>((r) => setTimeout(() => r(false), 15_000))]);
    assert.deepEqual({ withdrawn, exitedInTime }, { withdrawn: true, exitedInTime: true });
  } finally {
    await u?.stop();
  }
});
