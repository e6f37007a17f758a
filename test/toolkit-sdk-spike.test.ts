// Measured SDK v2 2.4.0 behaviour the toolkit depends on. If one of these fails after an SDK upgrade,
// revisit src/server (the comment on each test says where).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod/v4';
import {
  McpServer,
  InMemoryTransport,
  ProtocolError,
  createMcpHandler,
  createRequestStateCodec,
  inputRequired,
  acceptedContent,
  inputResponse,
  isLegacyRequest,
} from '@modelcontextprotocol/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { waitUntil } from './helpers/wait.js';

function client(mode?: 'auto', manual = false) {
  const c = new Client(
    { name: 'c', version: '1' },
    {
      capabilities: { elicitation: { form: {}, url: {} }, roots: {} },
      ...(mode ? { versionNegotiation: { mode } } : {}),
      ...(manual ? { inputRequired: { autoFulfill: false } } : {}),
    },
  );
  c.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'ada' } }));
  c.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///w' }] }));
  return c;
}
function mrtrServer(opts?: ConstructorParameters<typeof McpServer>[1]) {
  const s = new McpServer({ name: 's', version: '1' }, opts);
  s.registerTool('ask', { inputSchema: z.object({}) }, async (_a, ctx) => {
    const got = acceptedContent(ctx.mcpReq.inputResponses, 'k', z.object({ name: z.string() }));
    if (!got)
      return inputRequired({
        inputRequests: { k: inputRequired.elicit({ message: 'n?', requestedSchema: z.object({ name: z.string() }) }) },
      });
    return { content: [{ type: 'text', text: `${got.name}:${inputResponse(ctx.mcpReq.inputResponses, 'k').kind}` }] };
  });
  s.registerTool('perr', { inputSchema: z.object({}) }, async () => {
    throw new ProtocolError(-32602, 'x');
  });
  return s;
}
const modern = async (factory: () => McpServer, manual = false) => {
  const h = createMcpHandler(factory, { legacy: 'reject' });
  const c = client('auto', manual);
  await c.connect(new StreamableHTTPClientTransport(new URL('http://t.local/mcp'), { fetch: (u, i) => h.fetch(new Request(u, i)) }));
  return c;
};

test('inputRequired/acceptedContent work on 2026-07-28 and through the legacy shim', async () => {
  const m = await modern(() => mrtrServer());
  assert.equal(m.getProtocolEra(), 'modern');
  assert.equal(((await m.callTool({ name: 'ask', arguments: {} })) as any).content[0].text, 'ada:elicit');
  await m.close();
  const [a, b] = InMemoryTransport.createLinkedPair();
  const s = mrtrServer();
  await s.connect(b);
  const l = client();
  await l.connect(a);
  assert.equal(s.server.getNegotiatedProtocolVersion(), '2025-11-25'); // era.ts reads this
  assert.equal(((await l.callTool({ name: 'ask', arguments: {} })) as any).content[0].text, 'ada:elicit');
  await l.close();
});

test('a ProtocolError thrown by a tool becomes an isError result, not a JSON-RPC error (why server.ts intercepts tools/call)', async () => {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const s = mrtrServer();
  await s.connect(b);
  const l = client();
  await l.connect(a);
  const r: any = await l.callTool({ name: 'perr', arguments: {} });
  assert.equal(r.isError, true);
  await l.close();
});

test('createRequestStateCodec: tampered state is answered -32602 before the handler runs (the toolkit seals its own, with tool/args/user binding)', async () => {
  const codec = createRequestStateCodec({ key: 'k'.repeat(32), ttlSeconds: 60 });
  const c = await modern(() => {
    const s = new McpServer({ name: 's', version: '1' }, { requestState: { verify: codec.verify } });
    s.registerTool('t', { inputSchema: z.object({}) }, async () => ({ content: [] }));
    return s;
  }, true);
  const good = await codec.mint({ n: 1 });
  await assert.rejects(
    c.callTool({ name: 't', arguments: {}, requestState: good + 'x' } as any, { allowInputRequired: true }),
    (e: any) => e.code === -32602,
  );
  await c.close();
});

test('isLegacyRequest: initialize is legacy, a modern tools/call is not', async () => {
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
  };
  const req = (body: unknown, headers: Record<string, string> = {}) =>
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });
  assert.equal(await isLegacyRequest(req(init), init), true);
  const call = {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: {
      name: 't',
      arguments: {},
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  };
  assert.equal(
    await isLegacyRequest(req(call, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 't' }), call),
    false,
  );
});

test('legacy push: ctx.mcpReq.send does not validate accepted content (the toolkit validates); abort of the parent reaches the nested request', async () => {
  const s = new McpServer({ name: 's', version: '1' });
  let nestedAborted = false;
  s.registerTool('bad', { inputSchema: z.object({}) }, async (_a, ctx) => {
    const r = await ctx.mcpReq.send(
      {
        method: 'elicitation/create',
        params: { mode: 'form', message: 'x', requestedSchema: { type: 'object', properties: { n: { type: 'string' } }, required: ['n'] } },
      },
      { timeout: 2000 },
    );
    return { content: [{ type: 'text', text: JSON.stringify(r) }] };
  });
  s.registerTool('wait', { inputSchema: z.object({}) }, async (_a, ctx) => {
    await ctx.mcpReq
      .send(
        { method: 'elicitation/create', params: { mode: 'form', message: 'x', requestedSchema: { type: 'object', properties: {} } } },
        { timeout: 2000, signal: ctx.mcpReq.signal },
      )
      .catch(() => undefined);
    return { content: [] };
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await s.connect(b);
  const c = new Client({ name: 'c', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  let mode = 'bad';
  c.setRequestHandler('elicitation/create', async (_r, ctx) => {
    if (mode === 'bad') return { action: 'accept', content: { n: 42 } } as never;
    return new Promise((res) =>
      ctx.mcpReq.signal.addEventListener('abort', () => {
        nestedAborted = true;
        res({ action: 'cancel' });
      }),
    );
  });
  await c.connect(a);
  assert.match(((await c.callTool({ name: 'bad', arguments: {} })) as any).content[0].text, /"n":42/);
  mode = 'wait';
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 50);
  await assert.rejects(c.callTool({ name: 'wait', arguments: {} }, { signal: ac.signal }));
  await waitUntil(() => nestedAborted);
  assert.equal(nestedAborted, true);
  await c.close();
});
