// Numeric options of the toolkit fail where they are given, naming the option, its bounds and the value.
// Before, `elicitationTimeoutMs: Infinity` (an author's "wait for the person as long as it takes") or any
// value over 2^31 - 1 ms made Node fire the timer after 1 ms: every pushed elicitation timed out at once
// with "raise elicitationTimeoutMs", and `progressIntervalMs: Infinity` sent progress every millisecond.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod/v4';
import { createParleyServer, createShared, defineConfig } from '../src/server/index.js';
import { createMcpHandler, InMemoryTransport } from '@modelcontextprotocol/server';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { text, v2Client } from './fixtures/toolkit/peers.js';

const base = { name: 'opts', version: '1.0.0' };

test('createParleyServer refuses a duration outside a Node timer, a fraction, a string or NaN, naming the option and bounds', () => {
  for (const option of ['elicitationTimeoutMs', 'rootsTimeoutMs', 'progressIntervalMs'] as const) {
    for (const bad of [Number.POSITIVE_INFINITY, 2 ** 31, 3_000_000_000, -5, 1.5, Number.NaN, '30m']) {
      assert.throws(
        () => createParleyServer({ ...base, shared: createShared(), [option]: bad as never }),
        (e: Error) => {
          assert.ok(e instanceof RangeError, `${option}=${String(bad)}: ${e}`);
          assert.match(
            e.message,
            new RegExp(`^createParleyServer: ${option} must be a whole number of ms from [01] to 2147483647 \\(about 24\\.8 days`),
          );
          assert.ok(e.message.endsWith(`got ${typeof bad === 'string' ? JSON.stringify(bad) : String(bad)}`), e.message);
          return true;
        },
      );
    }
  }
  assert.throws(() => createParleyServer({ ...base, requestStateTtlMs: 500 }), /requestStateTtlMs must be a whole number of ms from 1000/);
  assert.throws(() => createParleyServer({ ...base, maxReasks: -1 }), /maxReasks must be a whole number from 0 to 100; got -1/);
  assert.throws(() => createParleyServer({ ...base, elicitationTimeoutMs: 0 }), /elicitationTimeoutMs must be a whole number of ms from 1/);
  // The bounds themselves are accepted; 0 turns progress off.
  const s = createParleyServer({
    ...base,
    shared: createShared(),
    elicitationTimeoutMs: 2_147_483_647,
    rootsTimeoutMs: 1,
    progressIntervalMs: 0,
    maxReasks: 0,
  });
  assert.equal(s.settings.elicitationTimeoutMs, 2_147_483_647);
});

test('defineConfig refuses an empty name, an unknown scope and a ttlMs that is not a positive number', () => {
  const schema = z.object({ host: z.string() });
  assert.throws(() => defineConfig({ name: '', schema }), /defineConfig: name must be a non-empty string/);
  assert.throws(
    () => defineConfig({ name: 'db', schema, scope: 'global' as never }),
    /defineConfig "db": scope must be 'session' or 'user'; got "global"/,
  );
  for (const bad of [0, -1, Number.NaN, '1h'])
    assert.throws(
      () => defineConfig({ name: 'db', schema, ttlMs: bad as never }),
      /defineConfig "db": ttlMs must be a number of milliseconds above 0/,
    );
  assert.equal(defineConfig({ name: 'db', schema, ttlMs: Number.POSITIVE_INFINITY }).ttlMs, Number.POSITIVE_INFINITY);
});

for (const era of ['legacy', 'modern'] as const) {
  test(`${era}: a per-ask timeoutMs out of range ends the call naming it, and nothing is asked`, async () => {
    const shared = createShared();
    const factory = () => {
      const p = createParleyServer({ ...base, shared });
      p.tool('ask', { description: 'asks with a timeout', inputSchema: z.object({}) }, async (_a, ctx) => {
        const r = await ctx.elicit('Name?', z.object({ name: z.string() }), { timeoutMs: Number.POSITIVE_INFINITY });
        return { content: [{ type: 'text', text: r.action }] };
      });
      return p;
    };
    let asked = 0;
    const answer = () => (asked++, { action: 'accept', content: { name: 'Ada' } });
    const client = v2Client(answer as never, era === 'modern' ? { mode: 'auto' } : {});
    const handler = createMcpHandler(() => factory().mcp, { legacy: 'reject' });
    if (era === 'legacy') {
      const [a, b] = InMemoryTransport.createLinkedPair();
      await factory().mcp.connect(b);
      await client.connect(a);
    } else
      await client.connect(
        new StreamableHTTPClientTransport(new URL('http://test.local/mcp'), { fetch: (u, i) => handler.fetch(new Request(u, i)) }),
      );
    try {
      assert.equal(client.getProtocolEra(), era);
      const r: any = await client.callTool({ name: 'ask', arguments: {} });
      assert.equal(r.isError, true);
      assert.match(text(r), /ctx\.elicit \/ ctx\.confirm: opts\.timeoutMs must be a whole number of ms from 1 to 2147483647.*got Infinity/);
      assert.equal(asked, 0);
    } finally {
      await client.close();
    }
  });
}
