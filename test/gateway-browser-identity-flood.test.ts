// The gateway's browser sign-in at its issuer (src/gateway/browser-identity.ts) reads the issuer's token
// answer up to MAX_TOKEN_ANSWER_BYTES (64 KiB, docs/gateway-auth.md §"Browser sign-in"): an issuer that
// sends more is refused as soon as it passes the cap, not read to its end (or for ISSUER_FETCH_MS) into
// memory. A real oidc-provider whose token endpoint streams spaces without end (test/helpers/oidc-stack.ts).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { startOidcStack, type OidcStack } from './helpers/oidc-stack.js';
import { browserSignIn, MAX_TOKEN_ANSWER_BYTES } from '../src/gateway/browser-identity.js';
import { BrowserSessions } from '../src/gateway/browser-session.js';
import type { GatewayOAuthDef } from '../src/host/index.js';

describe('browser sign-in: an oversized token answer from the issuer', () => {
  let stack: OidcStack;
  before(async () => {
    stack = await startOidcStack();
  });
  after(() => stack?.close());

  it('is refused once past 64 KiB, long before the issuer bound', async () => {
    const publicUrl = 'http://127.0.0.1:9';
    const oauth = {
      issuer: stack.issuer,
      userClaim: 'sub',
      clockSkewMs: 5000,
      scopes: [],
      browserClient: { clientId: 'gw-browser', scopes: ['openid'] },
    } as unknown as GatewayOAuthDef;
    const sessions = new BrowserSessions(publicUrl);
    const signIn = browserSignIn(oauth, `${publicUrl}/oauth/upstream/identify`, {});
    const started = await signIn.start('c'.repeat(43), sessions);
    const cookie = started.headers['set-cookie']!.split(';')[0]!;
    const state = new URL(started.headers.location!).searchParams.get('state')!;
    // 40 chunks of 64 KiB (2.5 MiB), then the answer never ends.
    stack.floodChunks = 20_000 - 40;
    stack.floodTokenBody = true;
    const req = { url: `/oauth/upstream/identify?code=x&state=${state}`, headers: { cookie } } as unknown as IncomingMessage;
    const t0 = Date.now();
    const err = await signIn.finish(req, sessions).then(
      () => undefined,
      (e: Error) => e,
    );
    assert.match(String(err?.message), new RegExp(`larger than ${MAX_TOKEN_ANSWER_BYTES} bytes`));
    assert.ok(Date.now() - t0 < 2_000, `refused after ${Date.now() - t0} ms`);
  });
});
