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
import { MAX_JSON_DEPTH, MAX_REQUEST_BODY_BYTES } from '../src/server/serve.js';

// One gateway in front of server-everything serves both groups.
describe('gateway messages name what was refused', () => {
  let gw: Gateway;
  let url: string;
  let stop: () => Promise<void>;
  before(async () => {
    gw = createGateway(gatewayConfig({ everything: everything() }));
    ({ url, stop } = await serveGateway(gw));
  });
  after(() => stop());

  describe('a multi-item validation error names the item', () => {
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

  describe('over HTTP: a deeply nested body is refused naming the depth cap', () => {
    /** A legacy `initialize` whose `capabilities.experimental.x.a` holds `levels` nested arrays (the body nests 5+levels deep). */
    const init = (levels: number) =>
      `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"deep","version":"1"},"capabilities":{"experimental":{"x":{"a":${'['.repeat(levels)}${']'.repeat(levels)}}}}}}`;
    const post = async (body: string) => {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      });
      return { status: r.status, text: await r.text() };
    };

    it(`an initialize nested 1,000,000 levels (2 MB) is 400 -32600 naming MAX_JSON_DEPTH (${MAX_JSON_DEPTH}), not "must be initialize"`, {
      timeout: 60_000,
    }, async () => {
      const body = init(1_000_000);
      assert.ok(Buffer.byteLength(body) > 2_000_000 && Buffer.byteLength(body) < MAX_REQUEST_BODY_BYTES);
      const r = await post(body);
      assert.equal(r.status, 400, r.text);
      const error = (JSON.parse(r.text) as { error: { code: number; message: string } }).error;
      assert.equal(error.code, -32600, 'JSON-RPC Invalid Request');
      assert.match(
        error.message,
        /nests arrays\/objects deeper than 128 levels \(at character \d+\), the most parley reads \(MAX_JSON_DEPTH\)/,
      );
      assert.doesNotMatch(error.message, /must be initialize/);
      // At the cap it is an ordinary initialize; one level more is refused the same way.
      const at = await post(init(MAX_JSON_DEPTH - 5));
      assert.equal(at.status, 200, at.text);
      assert.match(at.text, /"protocolVersion"/);
      const over = await post(init(MAX_JSON_DEPTH - 4));
      assert.equal(over.status, 400, over.text);
      assert.match(over.text, /deeper than 128 levels/);
    });
  });
});
