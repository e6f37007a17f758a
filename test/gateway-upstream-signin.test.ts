// A team gateway (`parley serve --http` from dist/, users of tenant acme) in front of an OAuth-protected
// upstream server (a real oidc-provider, test/helpers/oidc-stack.ts), real SDK v2 clients over HTTP.
// 1. A user who has not signed in: the failed start waits until a sign-in is stored for that user (or
//    the back-off passes): N tools/list → one upstream attempt and one warning; `parley auth login`
//    makes the very next request work.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { followRedirects } from '../scripts/conformance/client.js';
import { startOidcStack, type OidcStack } from './helpers/oidc-stack.js';
import { signInClient, startSignInGateway, type SignInGateway } from './helpers/gateway-signin.js';
import { clusterSkipReason } from './helpers/replicas.js';

const text = (r: any) => (r.content ?? []).map((c: any) => c.text ?? '').join('\n');
const skip = clusterSkipReason?.startsWith('dist/') ? clusterSkipReason : undefined;

describe('a gateway user who has not signed in to a protected upstream server', { skip }, () => {
  let stack: OidcStack;
  let gw: SignInGateway;
  before(async () => {
    stack = await startOidcStack();
    gw = await startSignInGateway(stack.mcpUrl);
  });
  after(async () => {
    await gw?.stop();
    await stack?.close();
  });

  it('N tools/list → one upstream attempt and one warning; after `parley auth login` the next request works', async (t) => {
    const alice = await signInClient(gw.url, 'alice', '2026-07-28');
    const bob = await signInClient(gw.url, 'bob', '2025-11-25');
    t.after(() => Promise.allSettled([alice.client.close(), bob.client.close()]));
    const warnings = (who: string) =>
      gw.log
        .join('')
        .split('\n')
        .filter((l) => /^(parley: )?warn/.test(l) && l.includes('crm') && l.includes(`"${who}"`));

    const first = await alice.client.listTools();
    assert.ok(!first.tools.some((x) => x.name.startsWith('crm__')));
    assert.equal(stack.unauthorized, 1);
    // Sequential and overlapping lists and calls: no new attempt, no new warning.
    for (let i = 0; i < 3; i++) await alice.client.listTools();
    await Promise.all([1, 2, 3, 4].map(() => alice.client.listTools()));
    await assert.rejects(
      alice.client.callTool({ name: 'crm__whoami', arguments: {} }),
      /server "crm" is unavailable: could not start: sign-in required for crm .* for user "alice" of tenant "acme".*parley auth login crm --user alice --tenant acme/,
    );
    assert.equal(stack.unauthorized, 1, 'one upstream attempt for alice');
    assert.equal(warnings('alice').length, 1, gw.log.join(''));
    assert.match(warnings('alice')[0]!, /tried again once a sign-in is stored for this user, or in 30000 ms/);

    // Per user: bob's first list tries once for him, then waits as well.
    for (let i = 0; i < 3; i++) await bob.client.listTools();
    assert.equal(stack.unauthorized, 2, 'one upstream attempt for bob');
    assert.equal(warnings('bob').length, 1, gw.log.join(''));

    // alice signs in with the command the hint names; her very next request works (no restart, no back-off wait).
    const login = await gw.auth(
      ['login', 'crm', '--user', 'alice', '--tenant', 'acme'],
      (url) => void followRedirects(url).catch(() => {}),
    );
    assert.equal(login.code, 0, login.stderr);
    const after = await alice.client.listTools();
    assert.ok(
      after.tools.some((x) => x.name === 'crm__whoami'),
      JSON.stringify(after.tools.map((x) => x.name)) + gw.log.join(''),
    );
    assert.match(text(await alice.client.callTool({ name: 'crm__whoami', arguments: {} })), /hello client/);
    // bob still waits, with no new attempt.
    await bob.client.listTools();
    assert.equal(warnings('bob').length, 1);
    assert.equal(warnings('alice').length, 1);
  });
});
