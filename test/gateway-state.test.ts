// Sealed requestState (issue 13 item 4, first step): the gateway's 2026-07-28 requestState is minted with
// the SDK's createRequestStateCodec under the shared secret, bound to the caller's identity and naming the
// replica that parks the call. Real SDK v2 clients in manual mode over HTTP against three gateways: two
// replicas sharing one secret, and one with another secret.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway, hashToken } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
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
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS[user]}` } } }));
  const call = (params: Record<string, unknown>) => c.callTool({ name: 'v1__ask', arguments: {}, ...params } as never, { allowInputRequired: true } as never) as Promise<Record<string, unknown>>;
  return { c, call };
}

const invalid = (re: RegExp) => (e: Error & { code?: number }) => e.code === -32602 && re.test(e.message);

describe('gateway: sealed requestState', () => {
  const r1 = gateway(SECRET, 'r1');
  const r2 = gateway(SECRET, 'r2');
  const other = gateway('another secret, also thirty-two bytes long', 'r3');

  it('a sealed state resumes the call; tampered, another user\'s or another secret\'s state is -32602', async () => {
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
      assert.equal(text(await alice.call({ inputResponses: answers, requestState: state }) as never), 'hello sealed');
    } finally {
      await Promise.all([alice.c.close(), bob.c.close(), stranger.c.close()]);
    }
  });

  it('another replica with the same secret accepts the seal and says which replica parks the call', async () => {
    const alice = await manual(r1.url, 'alice');
    const elsewhere = await manual(r2.url, 'alice');
    try {
      const first = await alice.call({});
      const key = Object.keys(first.inputRequests as object)[0];
      const answers = { [key]: { action: 'accept', content: { name: 'home' } } };
      await assert.rejects(elsewhere.call({ inputResponses: answers, requestState: first.requestState }), invalid(/parked on replica r1, not this one \(r2\)/));
      assert.equal(text(await alice.call({ inputResponses: answers, requestState: first.requestState }) as never), 'hello home');
    } finally {
      await Promise.all([alice.c.close(), elsewhere.c.close()]);
    }
  });
});
