// createWrappedMcpServer (src/server/handler-wrap.ts): the toolkit wraps McpServer's tools/list,
// tools/call and resources/read with public SDK API only (issue 17 item 2). These tests pin what the
// construction must keep from `new McpServer(info, {capabilities: {tools, …}})`: the tool handlers answer
// before any tool is registered, the handlers are installed without leaving anything listed, and a
// `resources` capability given up front still lets parley templates be wrapped. Real SDK v2 clients, on
// 2025-11-25 (linked pair) and 2026-07-28 (createMcpHandler(...).fetch).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createParleyServer, createShared } from '../src/server/index.js';
import type { ParleyServer } from '../src/server/index.js';
import { createWrappedMcpServer } from '../src/server/handler-wrap.js';
import { legacyConnect, modernConnect } from './fixtures/servers/clients.js';

const shared = createShared();

function noteServer(resourcesUpFront: boolean): () => ParleyServer {
  return () => {
    const p = createParleyServer({
      name: 'wrap-test',
      version: '1',
      shared,
      ...(resourcesUpFront ? { mcpOptions: { capabilities: { resources: { listChanged: true } } } } : {}),
    });
    p.resource('note://{id}', { name: 'note' }, (vars, ctx) => ({ contents: [{ uri: ctx.uri, text: `note ${vars.id}` }] }));
    return p;
  };
}

for (const [era, connect] of [
  ['2025-11-25', legacyConnect],
  ['2026-07-28', modernConnect],
] as const) {
  describe(`handler wrapping, ${era}`, () => {
    it('a parley server without tools answers tools/list with [] and lists no install placeholder', async () => {
      const c = await connect(noteServer(false), {});
      try {
        assert.deepEqual((await c.client.listTools()).tools, []);
        assert.equal(c.client.getServerCapabilities()?.tools?.listChanged, true);
        const templates = (await c.client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
        assert.deepEqual(templates, ['note://{id}']);
        assert.deepEqual((await c.client.listResources()).resources, []);
        await assert.rejects(c.client.readResource({ uri: 'parley://install-handlers' }), /not found/i);
      } finally {
        await c.close();
      }
    });

    it('with a resources capability given up front, a parley template read still goes through the toolkit', async () => {
      const c = await connect(noteServer(true), {});
      try {
        assert.equal(c.client.getServerCapabilities()?.resources?.listChanged, true);
        const r = await c.client.readResource({ uri: 'note://7' });
        assert.deepEqual(r.contents, [{ uri: 'note://7', text: 'note 7' }]);
        assert.deepEqual((await c.client.listResources()).resources, []);
      } finally {
        await c.close();
      }
    });
  });
}

it('assertWrapped throws when the SDK did not install a handler through setRequestHandler', () => {
  const { assertWrapped } = createWrappedMcpServer({ name: 'x', version: '1' }, {}, { 'tools/call': (h) => h });
  assert.throws(() => assertWrapped('tools/call'), /SDK changed: McpServer did not install its tools\/call handler/);
});
