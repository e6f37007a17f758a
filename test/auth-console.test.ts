// Sign-in through the web console in real Chromium: the host meets a 401 from a protected server (real
// OpenID Provider in process, test/helpers/oidc-stack.ts), the console shows "<server> wants you to sign
// in at <issuer>" with the site and the full URL, the person clicks Open, Chromium goes through the
// provider's login and consent and comes back to parley's loopback callback, and the tool call completes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createHost } from '../src/host/index.js';
import { openSqliteStore } from '../src/host/store/index.js';
import { hostApiFor, startConsole, WebPresenter } from '../src/ui/web/index.js';
import { CHROMIUM, launch, within } from './fixtures/console/browser.js';
import { startOidcStack } from './helpers/oidc-stack.js';
import { protectedServerConfig } from './helpers/oauth-host.js';

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed`;
const text = (r: any) =>
  (r.content ?? [])
    .filter((c: any) => c.type === 'text')
    .map((c: any) => c.text)
    .join('\n');

test('console sign-in: the card names server and issuer, shows site and full URL; Open completes it in Chromium', { skip }, async () => {
  const stack = await startOidcStack();
  const store = openSqliteStore(':memory:');
  const web = new WebPresenter();
  const config = protectedServerConfig('mcp', stack.mcpUrl);
  const host = createHost(config, { presenter: web, store, signInTimeoutMs: 60_000 });
  const con = await startConsole({ host: hostApiFor(host, store), presenter: web });
  const browser = await launch();
  try {
    const context = await browser.newContext();
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await page.goto(con.url);
    await page.locator('body[data-ready="true"]').waitFor();

    const call = host.callTool('mcp', 'whoami', {});
    call.catch(() => {});
    const card = page.locator('article.prompt');
    await card.waitFor();
    assert.equal(await card.locator('h3').innerText(), `mcp wants you to sign in at ${stack.issuer}`);
    assert.equal(await card.locator('.url-site').innerText(), '127.0.0.1');
    const full = await card.locator('.url-full').innerText();
    assert.ok(full.startsWith(`${stack.issuer}/auth?`), full);
    assert.match(full, /code_challenge_method=S256/);
    assert.match(full, /resource=/);
    assert.equal(stack.authorizations.length, 0, 'nothing is opened before consent');

    const popup = context.waitForEvent('page');
    await card.locator('button[data-action="accept"]').click();
    const tab = await popup;
    // The provider's interactions finish by themselves; the last hop is parley's loopback callback.
    await tab.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback\?/, { timeout: 30_000 });
    assert.match(await tab.locator('h1').innerText(), /Signed in/);
    assert.match(text(await within(call, 'the tool call after sign-in', 30_000)), /hello client/);
    await card.waitFor({ state: 'detached' });
    assert.deepEqual(stack.tokenGrants, ['authorization_code']);
    await context.close();
  } finally {
    await browser.close();
    await con.close();
    await host.close();
    store.close();
    await stack.close();
  }
});
