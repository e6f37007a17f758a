// Sealed requestState (issue 13 item 4, first step): the gateway's 2026-07-28 requestState is minted with
// the SDK's createRequestStateCodec under the shared secret, bound to the caller's identity and naming the
// replica that parks the call, whose retries other replicas forward to it. Real SDK v2 clients in manual mode over HTTP against three gateways: two
// replicas sharing one secret, and one with another secret.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway, hashToken } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { checkForwardProof, forwardProof, isLoopbackUrl } from '../src/gateway/forward.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';

const TOKENS = { alice: 'pt_alice-state', bob: 'pt_bob-state' };
const SECRET = 'a shared secret of at least thirty-two bytes';

function gateway(secret: string, replicaId: string) {
  const self = { gw: undefined as unknown as Gateway, url: '', stop: async () => {} };
  before(async () => {
    const config = gatewayConfig({ v1: fixture('v1', 'v1-push.mjs') });
    config.gateway = { users: { alice: { tokenSha256: hashToken(TOKENS.alice) }, bob: { tokenSha256: hashToken(TOKENS.bob) } } };
    self.gw = createGateway(config, { secret, replicaId, park: { ttlMs: 60_000, batchMs: 5 } });
    ({ url: self.url, stop: self.stop } = await serveGateway(self.gw));
  });
  after(() => self.stop());
  return self;
}

async function manual(url: string, user: keyof typeof TOKENS) {
  const c = v2Client((async () => ({ action: 'cancel' })) as never, { mode: 'auto', manual: true });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS[user]}` } } }),
  );
  const call = (params: Record<string, unknown>) =>
    c.callTool({ name: 'v1__ask', arguments: {}, ...params } as never, { allowInputRequired: true } as never) as Promise<
      Record<string, unknown>
    >;
  return { c, call };
}

const invalid = (re: RegExp) => (e: Error & { code?: number }) => e.code === -32602 && re.test(e.message);

describe('gateway: sealed requestState', () => {
  const r1 = gateway(SECRET, 'r1');
  const r2 = gateway(SECRET, 'r2');
  const other = gateway('another secret, also thirty-two bytes long', 'r3');

  it("a sealed state resumes the call; tampered, another user's or another secret's state is -32602", async () => {
    const alice = await manual(r1.url, 'alice');
    const bob = await manual(r1.url, 'bob');
    const stranger = await manual(other.url, 'alice');
    try {
      const first = await alice.call({});
      assert.equal(first.resultType, 'input_required');
      const state = first.requestState as string;
      const key = Object.keys(first.inputRequests as object)[0];
      const answers = { [key]: { action: 'accept', content: { name: 'sealed' } } };
      // One character of the signature changed.
      const i = state.length - 3;
      const tampered = state.slice(0, i) + (state[i] === 'A' ? 'B' : 'A') + state.slice(i + 1);
      await assert.rejects(alice.call({ inputResponses: answers, requestState: tampered }), invalid(/Invalid or expired requestState/));
      // Bound to alice: bob holding her state is refused before anything runs.
      await assert.rejects(bob.call({ inputResponses: answers, requestState: state }), invalid(/Invalid or expired requestState/));
      // A gateway with another secret does not accept it either.
      await assert.rejects(stranger.call({ inputResponses: answers, requestState: state }), invalid(/Invalid or expired requestState/));
      // The call is still parked and completes with alice's own retry.
      assert.equal(r1.gw.stats().parked, 1);
      assert.equal(text((await alice.call({ inputResponses: answers, requestState: state })) as never), 'hello sealed');
    } finally {
      await Promise.all([alice.c.close(), bob.c.close(), stranger.c.close()]);
    }
  });

  it("a replayed retry of an answered round is -32602 and does not answer the next round's prompts", async () => {
    const alice = await manual(r1.url, 'alice');
    try {
      const first = await alice.call({});
      const k1 = Object.keys(first.inputRequests as object)[0];
      // An answer the schema refuses: the broker asks again, in a second round.
      const bad = { inputResponses: { [k1]: { action: 'accept', content: { name: 5 } } }, requestState: first.requestState };
      const second = await alice.call(bad);
      assert.equal(second.resultType, 'input_required');
      const k2 = Object.keys(second.inputRequests as object)[0];
      assert.notEqual(k2, k1);
      // The first round's retry again (a client retrying after a lost response, or a replay): refused,
      // the call stays parked, and its own keys are tried too.
      await assert.rejects(alice.call(bad), invalid(/belongs to round 1 of this call, which was already answered/));
      const replayed = { inputResponses: { [k2]: { action: 'decline' } }, requestState: first.requestState };
      await assert.rejects(alice.call(replayed), invalid(/already answered/));
      assert.equal(r1.gw.stats().parked, 1, 'the call is still parked');
      const done = await alice.call({
        inputResponses: { [k2]: { action: 'accept', content: { name: 'round two' } } },
        requestState: second.requestState,
      });
      assert.equal(text(done as never), 'hello round two');
    } finally {
      await alice.c.close();
    }
  });

  it('a retry that lands on another replica with the same secret is forwarded to the owner and completes there', async () => {
    const alice = await manual(r1.url, 'alice');
    const elsewhere = await manual(r2.url, 'alice');
    const bob = await manual(r2.url, 'bob');
    try {
      const first = await alice.call({ arguments: { city: 'Oslo' } });
      const key = Object.keys(first.inputRequests as object)[0];
      const answers = { [key]: { action: 'accept', content: { name: 'forwarded' } } };
      // Bound to alice on every replica: bob cannot use it through r2 either.
      await assert.rejects(
        bob.call({ arguments: { city: 'Oslo' }, inputResponses: answers, requestState: first.requestState }),
        invalid(/Invalid or expired requestState/),
      );
      // Bound to the arguments on every replica: r2 refuses changed ones before forwarding.
      await assert.rejects(
        elsewhere.call({ arguments: { city: 'Bergen' }, inputResponses: answers, requestState: first.requestState }),
        invalid(/bound to the tool name and arguments.*retry with the arguments of the original call/),
      );
      assert.equal(r1.gw.stats().parked, 1, 'the call is still parked on r1');
      assert.equal(r2.gw.stats().parked, 0, 'nothing is parked on r2');
      assert.equal(
        text((await elsewhere.call({ arguments: { city: 'Oslo' }, inputResponses: answers, requestState: first.requestState })) as never),
        'hello forwarded',
      );
      assert.equal(r1.gw.stats().parked, 0, 'the owner finished the call');
    } finally {
      await Promise.all([alice.c.close(), elsewhere.c.close(), bob.c.close()]);
    }
  });

  it('when the owner replica is gone the forwarded retry fails at once with an error naming it', async () => {
    const config = gatewayConfig({ v1: fixture('v1', 'v1-push.mjs') });
    config.gateway = { users: { alice: { tokenSha256: hashToken(TOKENS.alice) } } };
    const doomed = createGateway(config, { secret: SECRET, replicaId: 'r9', park: { ttlMs: 60_000, batchMs: 5 } });
    const served = await serveGateway(doomed);
    const alice = await manual(served.url, 'alice');
    const elsewhere = await manual(r2.url, 'alice');
    try {
      const first = await alice.call({});
      const key = Object.keys(first.inputRequests as object)[0];
      await alice.c.close();
      await served.stop();
      const t0 = Date.now();
      const r = await elsewhere.call({
        inputResponses: { [key]: { action: 'accept', content: { name: 'x' } } },
        requestState: first.requestState,
      });
      assert.equal(r.isError, true);
      assert.match(text(r as never), /replica r9 \(http:\/\/127\.0\.0\.1:\d+\/mcp\), where this call is parked, cannot be reached/);
      assert.ok(Date.now() - t0 < 10_000, `answered in ${Date.now() - t0} ms`);
      // Restarted on the same port under a new replica id: it is a member again, and the old state is
      // refused with a clear -32602 (forwarded from r2, and directly), never forwarded to itself in a loop.
      const reborn = createGateway(config, { secret: SECRET, replicaId: 'r9b', park: { ttlMs: 60_000, batchMs: 5 } });
      const again = await serveGateway(reborn, { port: Number(new URL(served.url).port) });
      const direct = await manual(again.url, 'alice');
      try {
        const retry = { inputResponses: {}, requestState: first.requestState };
        await assert.rejects(elsewhere.call(retry), invalid(/parked on replica r9, which has since restarted at this address as r9b/));
        await assert.rejects(direct.call(retry), invalid(/parked on replica r9, which has since restarted/));
        const fresh = await elsewhere.call({});
        assert.equal(fresh.resultType, 'input_required', 'r2 serves new calls');
        const round = await direct.call({});
        const k = Object.keys(round.inputRequests as object)[0];
        // A round the reborn replica parks resumes through r2.
        assert.equal(
          text(
            (await elsewhere.call({
              inputResponses: { [k]: { action: 'accept', content: { name: 'back' } } },
              requestState: round.requestState,
            })) as never,
          ),
          'hello back',
        );
      } finally {
        await direct.c.close();
        await again.stop();
      }
    } finally {
      await elsewhere.c.close();
    }
  });
});

describe('forwarding proofs and targets', () => {
  it('a proof names its identity (key, user, tenant) for 30 s to the replica it was made for, under the secret that made it, and nothing else', () => {
    const now = Date.now();
    const alice = { key: 'acme/alice', user: 'alice', tenant: 'acme' };
    const to = 'http://127.0.0.1:8702/mcp';
    const p = forwardProof(SECRET, alice, to, now);
    assert.deepEqual(checkForwardProof(SECRET, p, to, now), alice);
    assert.equal(checkForwardProof(SECRET, p, to, now + 31_000), undefined, 'expired');
    assert.equal(checkForwardProof(SECRET, p, 'http://127.0.0.1:8703/mcp', now), undefined, 'another replica');
    assert.equal(checkForwardProof('another secret, also thirty-two bytes long', p, to, now), undefined, 'other secret');
    const [id, exp, mac] = p.split('.');
    const bob = Buffer.from(JSON.stringify({ k: 'acme/bob', u: 'bob', t: 'acme' })).toString('base64url');
    assert.equal(checkForwardProof(SECRET, `${bob}.${exp}.${mac}`, to, now), undefined, 'other identity');
    assert.equal(checkForwardProof(SECRET, `${id}.${Number(exp) + 100}.${mac}`, to, now), undefined, 'longer life');
    assert.equal(checkForwardProof(SECRET, undefined, to, now), undefined);
    assert.equal(checkForwardProof(SECRET, 'x'.repeat(100_000), to, now), undefined);
    // A well-signed proof whose identity is not {k,u,t} of non-empty strings names nobody.
    const odd = forwardProof(SECRET, { key: '', user: 'alice', tenant: 'acme' }, to, now);
    assert.equal(checkForwardProof(SECRET, odd, to, now), undefined, 'empty key');
  });

  it('only loopback http URLs are forwarding targets', () => {
    assert.ok(isLoopbackUrl('http://127.0.0.1:8765/mcp'));
    assert.ok(isLoopbackUrl('http://[::1]:8765/mcp'));
    for (const u of ['https://127.0.0.1/mcp', 'http://10.0.0.1/mcp', 'http://example.com/mcp', 'file:///etc/passwd', 'nonsense'])
      assert.equal(isLoopbackUrl(u), false, u);
  });
});
