// Issue 15 item 3 in the browser, with `parley up`: a crash of the asking server says so, once. A real
// SDK v1 server child asks twice (two tool calls, two cards) and is killed (SIGKILL) while both wait;
// the console closes both cards and shows one "asker stopped while asking" notice, not a "withdrawn"
// notice per request, and not again after the page reconnects or the server is restarted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, REPO, up } from './fixtures/e2e/up.js';

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed`;
const ASKER = join(REPO, 'test/fixtures/console/crash-asker.mjs');

test('a server killed while two of its requests wait: both cards close, one notice says it stopped, once', {
  skip,
  timeout: 180_000,
}, async () => {
  let pidFile = '';
  const u = await up([], {
    expectReady: 1,
    prepare: (dir) => {
      pidFile = join(dir, 'asker.pid');
      writeFileSync(
        join(dir, 'parley.json'),
        JSON.stringify({ mcpServers: { asker: { command: process.execPath, args: [ASKER], env: { ASKER_PID_FILE: pidFile } } } }),
      );
    },
  });
  try {
    const token = new URL(u.url).searchParams.get('token');
    const call = (n: string) =>
      fetch(`${u.origin}/api/tools/call`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ server: 'asker', tool: 'ask', arguments: { n } }),
        signal: AbortSignal.timeout(60_000),
      }).then((r) => r.json());
    const a = call('a');
    await u.page.locator('article.prompt', { hasText: 'Which day (a)?' }).waitFor();
    const b = call('b');
    await u.page.locator('article.prompt', { hasText: 'Which day (b)?' }).waitFor();
    const first = Number(readFileSync(pidFile, 'utf8'));
    process.kill(first, 'SIGKILL');
    await u.page.locator('article.prompt').first().waitFor({ state: 'detached' });
    assert.equal(await u.page.locator('article.prompt').count(), 0, 'both cards closed');
    const notices = u.page.locator('#notices .notice');
    const stopped = u.page.locator('#notices .notice[data-kind="server-stopped"]');

    await stopped.waitFor();
    assert.match(
      await stopped.innerText(),
      /^Server stopped: asker — asker stopped while asking: "Which day \(a\)\?", "Which day \(b\)\?" \(2 requests closed unanswered; the tool calls that asked failed\)/,
    );
    // The tool calls fail on their own (each caller hears of it); the page says it once.
    assert.match(JSON.stringify(await a), /closed the connection/);
    assert.match(JSON.stringify(await b), /closed the connection/);
    await new Promise((r) => setTimeout(r, 500)); // any late per-request notice would be here by now
    assert.deepEqual(
      await notices.evaluateAll((els) => els.map((e) => e.getAttribute('data-kind'))),
      ['server-stopped'],
      'one notice, no "withdrawn"',
    );
    assert.equal(await u.page.title(), 'parley console', 'nothing counted as waiting');
    // The server comes back (restart with backoff): no second notice.
    await u.waitFor(
      (e) => e.event === 'server' && e.server === 'asker' && e.status === 'running' && Number(readFileSync(pidFile, 'utf8')) !== first,
    );
    // The page reconnects (a reload: a new event stream with the snapshot): still one notice.
    await u.page.reload();
    await u.page.locator('body[data-ready="true"]').waitFor();
    assert.deepEqual(await notices.evaluateAll((els) => els.map((e) => e.getAttribute('data-kind'))), ['server-stopped']);
    await u.shot('server-stopped', u.page.locator('#notices-section'));
  } finally {
    await u.stop();
  }
});
