// Sign-in through the client in real Chromium (playwright-core): a static-token user opens the connect
// URL, types the gateway token into the connect form, and the browser goes on to the upstream
// authorization server and back; the call completes (client/elicitation §Phishing, ./upstream-signin.ts).
// A browser posts that form with an Origin header; a test that plays the browser with fetch sends none.
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { CHROMIUM, launch } from './fixtures/console/browser.js';
import { startOidcStack, type OidcStack } from './helpers/oidc-stack.js';
import { SIGNIN_TOKENS, signInClient, startSignInGateway, type SignInGateway } from './helpers/gateway-signin.js';
import { clusterSkipReason } from './helpers/replicas.js';

const text = (r: any) => (r.content ?? []).map((c: any) => c.text ?? '').join('\n');
const skip = existsSync(CHROMIUM) ? (clusterSkipReason?.startsWith('dist/') ? clusterSkipReason : false) : `${CHROMIUM} is not installed`;

describe('sign-in through the client, the connect form in real Chromium', { skip }, () => {
  let stack: OidcStack;
  let gw: SignInGateway;
  let browser: Browser;
  before(async () => {
    stack = await startOidcStack();
    gw = await startSignInGateway(stack.mcpUrl, { publicUrl: true });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await stack?.close();
  });

  it('alice types her gateway token into the connect form: the browser reaches the authorization server, her call completes', async (t) => {
    let resolveUrl!: (u: string) => void;
    const shown = new Promise<string>((r) => (resolveUrl = r));
    const alice = await signInClient(gw.url, 'alice', '2026-07-28', async (p) => (resolveUrl(p.url), { action: 'accept' }));
    t.after(() => alice.client.close());
    const call = alice.client.callTool({ name: 'crm__whoami', arguments: {} }, { timeout: 60_000 } as never);
    const context = await browser.newContext();
    t.after(() => context.close());
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const origins: Array<string | undefined> = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().includes('/oauth/upstream/connect')) origins.push(r.headers().origin);
    });
    await page.goto(await shown);
    await page.fill('input[name="token"]', SIGNIN_TOKENS.alice!);
    const authorized = page.waitForRequest((r) => r.url().startsWith(stack.issuer)).catch((e: Error) => e);
    await page.click('button[type="submit"]');
    const reached = await authorized;
    assert.deepEqual(origins, [`http://127.0.0.1:${gw.port}`], 'the form is posted with the gateway origin, not "null"');
    assert.ok(!(reached instanceof Error), `the browser stayed at the gateway: ${await page.textContent('body').catch(() => '')}`);
    assert.match(text(await call), /hello client/);
    assert.match((await page.textContent('h1').catch(() => '')) ?? '', /Signed in/);
  });
});
