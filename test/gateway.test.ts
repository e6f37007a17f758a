// The gateway (src/gateway): aggregation with namespacing, and elicitation bridged both ways between
// eras — 2025-era and 2026-07-28 upstream clients (SDK v2 legacy/auto, SDK v1) over HTTP on 127.0.0.1,
// in front of a 2025-era downstream (SDK v1 stdio) and a 2026-07-28 downstream (SDK v2 dual-era stdio).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { fixture, fastStop } from './fixtures/servers-host/helpers.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';
import { verifies } from './helpers/verifies.js';

type Answer = { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };

describe('gateway over HTTP: v1 (2025) and v2 (2026-07-28) downstream, every upstream era', () => {
  let gw: Gateway;
  let url: string;
  let close: () => Promise<void>;
  const seen: Array<{ message: string }> = [];
  let next: Answer = { action: 'accept', content: { name: 'ada' } };
  let queue: Answer[] = [];
  const answer = async (r: { params: { message: string } }) => (seen.push({ message: r.params.message }), queue.shift() ?? next);

  before(async () => {
    gw = createGateway(gatewayConfig({ v1: fixture('v1', 'v1-push.mjs'), v2: fixture('v2', 'v2-dual.mjs') }));
    for (const s of ['v1', 'v2']) Object.assign(gw.space('default').host.config.servers[s], { timeouts: { ...fastStop } });
    ({ url, stop: close } = await serveGateway(gw));
  });
  after(() => close());

  const clients = {
    'SDK v2 default (2025-11-25)': async () => {
      const c = v2Client(answer as never);
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
      assert.equal(c.getProtocolEra?.(), 'legacy');
      return { call: (name: string) => c.callTool({ name, arguments: {} }), list: () => c.listTools(), close: () => c.close() };
    },
    'SDK v2 auto (2026-07-28)': async () => {
      const c = v2Client(answer as never, { mode: 'auto' });
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
      assert.equal(c.getProtocolEra?.(), 'modern');
      return { call: (name: string) => c.callTool({ name, arguments: {} }), list: () => c.listTools(), close: () => c.close() };
    },
    'SDK v1 1.32.2': async () => {
      const c = new V1Client({ name: 'v1', version: '1' }, { capabilities: { elicitation: { form: {} } } });
      c.setRequestHandler(ElicitRequestSchema, (async (r: { params: { message: string } }) => answer(r)) as never);
      await c.connect(new V1Http(new URL(url)));
      return { call: (name: string) => c.callTool({ name, arguments: {} }), list: () => c.listTools(), close: () => c.close() };
    },
  };

  for (const [label, connect] of Object.entries(clients)) {
    it(`${label}: lists both servers' tools namespaced, and bridges accept, decline and cancel to both downstream eras`, async () => {
      const c = await connect();
      try {
        const names = (await c.list()).tools.map((t) => t.name).sort();
        assert.deepEqual(names, ['v1__ask', 'v1__echo', 'v2__ask', 'v2__roots']);
        for (const tool of ['v1__ask', 'v2__ask']) {
          verifies('ELIC-RESULT-ACTIONS');
          next = { action: 'accept', content: { name: 'ada' } };
          seen.length = 0;
          assert.equal(text(await c.call(tool)), 'hello ada', `${tool} accept`);
          assert.equal(seen.length, 1);
          assert.equal(seen[0].message, `[${tool.slice(0, 2)}] Your name?`, 'the downstream server is named in the message');
          next = { action: 'decline' };
          assert.match(text(await c.call(tool)), /decline/, `${tool} decline`);
          next = { action: 'cancel' };
          assert.match(text(await c.call(tool)), /cancel/, `${tool} cancel`);
        }
      } finally {
        await c.close();
      }
    });
  }

  it('an invalid answer from upstream never reaches the server: the broker re-asks with the issues', async () => {
    const c = await clients['SDK v2 default (2025-11-25)']();
    try {
      queue = [
        { action: 'accept', content: { name: 42 } },
        { action: 'accept', content: { name: 'grace' } },
      ];
      seen.length = 0;
      assert.equal(text(await c.call('v1__ask')), 'hello grace');
      assert.equal(seen.length, 2, 'asked twice: the first answer was invalid');
      assert.match(
        seen[1].message,
        /^\[v1\] Your name\?\n\(The previous answer was not accepted: "name" must be of type string/,
        'the re-ask says why',
      );
    } finally {
      queue = [];
      await c.close();
    }
  });
});
