// Issue 15 item 12 where people meet it, through the gateway with real SDK v2 clients (2025 push over
// HTTP, and 2026-07-28 MRTR over HTTP): an invalid item of a multi-select answer is asked again with a
// message naming the item (its JSON pointer and its position), not only the field. The roots timeout's
// wording (rootsTimeoutMs, not elicitationTimeoutMs) is tested in test/toolkit-url-roots.test.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { everything } from './fixtures/servers-host/helpers.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';

describe('gateway: a multi-item validation error names the item', () => {
  let gw: Gateway;
  let url: string;
  let stop: () => Promise<void>;
  before(async () => {
    gw = createGateway(gatewayConfig({ everything: everything() }));
    ({ url, stop } = await serveGateway(gw));
  });
  after(() => stop());

  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    it(`${era}: the second ask says which item of the multi-select was not accepted`, { timeout: 120_000 }, async () => {
      const messages: string[] = [];
      const c = v2Client(
        async (r) => {
          messages.push(String(r.params.message));
          const instruments = messages.length === 1 ? ['Guitar', 'Kazoo'] : ['Guitar', 'Piano'];
          return { action: 'accept', content: { name: 'Ada', untitledMultipleSelectEnum: instruments } };
        },
        era === '2026-07-28' ? { mode: 'auto' } : {},
      );
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        assert.equal(c.getNegotiatedProtocolVersion?.(), era);
        const r = await c.callTool({ name: 'everything__trigger-elicitation-request', arguments: {} });
        assert.equal(messages.length, 2, messages.join('\n---\n'));
        assert.match(
          messages[1],
          /The previous answer was not accepted: "untitledMultipleSelectEnum" \(Untitled Multiple Select Enum\), item 2: must be one of \["Guitar","Piano","Violin","Drums","Bass"\]/,
        );
        assert.match(text(r), /"untitledMultipleSelectEnum": \[\s*"Guitar",\s*"Piano"\s*\]/);
      } finally {
        await c.close();
      }
    });
  }
});
