// Issue 15: the console's server list says what `parley servers` says about a lazy server. With
// `parley up` and a real configuration, a lazy server is "not started (lazy)" in the browser and
// `lazy: true` in GET /api/servers, until it starts (here: Restart), when it is ready.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, REPO, up } from './fixtures/e2e/up.js';

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed`;
const ASKER = join(REPO, 'test/fixtures/console/crash-asker.mjs');

test('a lazy server is listed as "not started (lazy)" with lazy: true, and ready once started', { skip, timeout: 180_000 }, async () => {
  const u = await up([], {
    expectReady: 1,
    prepare: (dir) =>
      writeFileSync(
        join(dir, 'parley.json'),
        JSON.stringify({
          mcpServers: {
            eager: { command: process.execPath, args: [ASKER] },
            later: { command: process.execPath, args: [ASKER], lazy: true },
          },
        }),
      ),
  });
  try {
    const token = new URL(u.url).searchParams.get('token');
    const servers = async () =>
      (await (await fetch(`${u.origin}/api/servers`, { headers: { authorization: `Bearer ${token}` } })).json()) as Array<{
        name: string;
        state: string;
        lazy?: boolean;
      }>;
    const before = await servers();
    assert.deepEqual(
      before.map(({ name, state, lazy }) => ({ name, state, lazy })),
      [
        { name: 'eager', state: 'ready', lazy: false },
        { name: 'later', state: 'stopped', lazy: true },
      ],
    );
    const later = u.page.locator('.server-card[data-server="later"]');
    assert.equal(await later.locator('h3 .state').innerText(), 'not started (lazy)');
    assert.match(await later.innerText(), /Lazy: starts on first use/);
    assert.equal(await u.page.locator('.server-card[data-server="eager"] h3 .state').innerText(), 'ready');
    await u.shot('server-lazy', later);
    await later.getByRole('button', { name: 'Restart later' }).click();
    await later.locator('h3 .state', { hasText: /^ready$/ }).waitFor({ timeout: 60_000 });
    assert.deepEqual(
      (await servers()).find((s) => s.name === 'later'),
      { ...(await servers()).find((s) => s.name === 'later'), state: 'ready', lazy: true },
    );
  } finally {
    await u.stop();
  }
});
