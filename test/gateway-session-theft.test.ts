// A gateway client that knows another user's 2025-era session id (leaked, or guessed) cannot use it in any
// way: not to resume its SSE stream (GET with Last-Event-ID), not to cancel its calls (a POSTed
// notifications/cancelled), not to end it (DELETE). Each gets the same 404 as an unknown session, and
// the owner's call, waiting on its prompt meanwhile, goes on and is answered. Cancelling the owner's
// request ids on one's own session touches nothing of the owner's either (ids are per session).
// Real SDK v2 client for the owner (2025-11-25, resumable), raw HTTP for the thief (an SDK client cannot
// send another session's id); downstream an SDK v1 server that pushes an elicitation (v1-push.mjs).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway, hashToken } from '../src/gateway/index.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { bounded } from './helpers/wait.js';

const TOKENS = { alice: 'pt_alice-theft-token', bob: 'pt_bob-theft-token' };
const H = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

describe("gateway: another user's session id is worth nothing", () => {
  let url: string;
  let stop: () => Promise<void>;
  before(async () => {
    const config = gatewayConfig({ v1: fixture('v1', 'v1-push.mjs') });
    config.gateway = { users: { alice: { tokenSha256: hashToken(TOKENS.alice) }, bob: { tokenSha256: hashToken(TOKENS.bob) } } };
    ({ url, stop } = await serveGateway(createGateway(config)));
  });
  after(() => stop());

  it("bob's GET (Last-Event-ID), cancel and DELETE on alice's session get 404; alice's waiting call is answered", {
    timeout: 60_000,
  }, async () => {
    let prompted!: () => void;
    const asked = new Promise<void>((r) => (prompted = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const alice = v2Client(async () => {
      prompted();
      await released;
      return { action: 'accept', content: { name: 'alice' } };
    });
    const t = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS.alice}` } } });
    await alice.connect(t);
    const sid = t.sessionId!;
    assert.ok(sid);
    try {
      const call = alice.callTool({ name: 'v1__ask', arguments: {} });
      await bounded(asked, 30_000, 'alice is prompted');
      const asBob = { ...H, authorization: `Bearer ${TOKENS.bob}`, 'mcp-session-id': sid };
      const get = await fetch(url, { method: 'GET', headers: { ...asBob, 'last-event-id': `1.${sid}` } });
      assert.equal(get.status, 404, 'GET resume');
      assert.doesNotMatch(await get.text(), /Your name|elicitation/);
      const cancels = [0, 1, 2, 3, 4].map((requestId) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }));
      for (const body of cancels) {
        const r = await fetch(url, { method: 'POST', headers: asBob, body: JSON.stringify(body) });
        assert.equal(r.status, 404, 'cancel on her session');
        await r.text();
      }
      const del = await fetch(url, { method: 'DELETE', headers: asBob });
      assert.equal(del.status, 404, 'DELETE');
      await del.text();

      // Bob's own session: cancelling the same request ids reaches nothing of alice's.
      const init = await fetch(url, {
        method: 'POST',
        headers: { ...H, authorization: `Bearer ${TOKENS.bob}` },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bob', version: '1' } },
        }),
      });
      const bobSid = init.headers.get('mcp-session-id')!;
      await init.text();
      const own = { ...H, authorization: `Bearer ${TOKENS.bob}`, 'mcp-session-id': bobSid };
      for (const body of cancels) await (await fetch(url, { method: 'POST', headers: own, body: JSON.stringify(body) })).text();

      release();
      assert.equal(text(await bounded(call, 20_000, "alice's call")), 'hello alice');
      assert.equal(text(await alice.callTool({ name: 'v1__echo', arguments: {} })), 'echo', 'her session still works');
    } finally {
      await alice.close();
    }
  });
});
