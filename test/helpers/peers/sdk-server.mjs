// Interop peer: one MCP server written with a given SDK line, over stdio or Streamable HTTP on 127.0.0.1.
//
//   node test/helpers/peers/sdk-server.mjs <kind> [--http]
//
// kind:
//   v1         @modelcontextprotocol/sdk 1.32.2 McpServer; pushes elicitation/create and roots/list
//              (server.elicitInput / listRoots with relatedRequestId). Legacy only (2025-11-25).
//   v2-legacy  SDK v2 McpServer, push style (ctx.mcpReq.elicitInput, server.listRoots, both with
//              relatedRequestId), on
//              StdioServerTransport or a sessionful NodeStreamableHTTPServerTransport: legacy only.
//   v2-modern  SDK v2 McpServer, MRTR style (inputRequired elicit / elicitUrl / listRoots), on
//              serveStdio (dual-era) or createMcpHandler({legacy:'reject'}) (2026-07-28 only).
//
// Every kind has the same three tools, so one case table drives them all:
//   ask    form elicitation {name: string, required} → "hello <name>" | "action <decline|cancel>"
//   login  URL-mode elicitation of https://example.com/connect → "url <action>"
//          (legacy kinds send notifications/elicitation/complete after an accept)
//   roots  roots/list → "roots <uri>,<uri>…"
// v2-legacy has a fourth:
//   login-later  as login, but returns at once after an accept and sends the completion 100 ms later,
//                as a session notification (related to no request: the call has ended)
//   login-silent as login, but never sends the completion (a server MAY leave it out)
//   login-noisy  as login, but after an accept completes an id it never used, then its own id twice
//   login-early  as login, but sends the completion 100 ms after asking, before the client has answered
// With --http it prints `listening on http://127.0.0.1:<port>/mcp` on stderr; it never binds another address.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

const kind = process.argv[2];
const http = process.argv.includes('--http');
const FORM = {
  mode: 'form',
  message: 'Your name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string', description: 'Your name' } }, required: ['name'] },
};
const URL_ASK = { mode: 'url', message: 'Sign in to continue', url: 'https://example.com/connect' };
const text = (t) => ({ content: [{ type: 'text', text: t }] });
const rootsText = (r) => text(`roots ${r.roots.map((x) => x.uri).join(',')}`);
const formText = (r) => text(r.action === 'accept' ? `hello ${r.content?.name}` : `action ${r.action}`);

async function v1Factory() {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  return () => {
    const s = new McpServer({ name: 'interop-v1', version: '0.0.1' });
    s.registerTool('ask', { description: 'Asks a name (form)' }, async (extra) =>
      formText(await s.server.elicitInput(FORM, { relatedRequestId: extra.requestId })),
    );
    s.registerTool('login', { description: 'URL-mode sign-in' }, async (extra) => {
      const elicitationId = randomUUID();
      const r = await s.server.elicitInput({ ...URL_ASK, elicitationId }, { relatedRequestId: extra.requestId });
      if (r.action === 'accept') await s.server.createElicitationCompletionNotifier(elicitationId, { relatedRequestId: extra.requestId })();
      return text(`url ${r.action}`);
    });
    s.registerTool('roots', { description: 'Lists the client roots' }, async (extra) =>
      rootsText(await s.server.listRoots(undefined, { relatedRequestId: extra.requestId })),
    );
    return s;
  };
}

async function v2LegacyFactory() {
  const { McpServer } = await import('@modelcontextprotocol/server');
  const { z } = await import('zod/v4');
  return () => {
    const s = new McpServer({ name: 'interop-v2-legacy', version: '0.0.1' });
    // SDK 2.4.0 trap (measured from dist/mcp-*.mjs): ctx.mcpReq.elicitInput does NOT relate the request
    // to the tool call (it is server.elicitInput without relatedRequestId), so over HTTP it travels on
    // the standalone GET stream and is dropped while that stream is not (yet) open; seen under load as
    // every elicitation timing out. Pass relatedRequestId, as SEP-2260 association requires.
    const related = (ctx) => ({ relatedRequestId: ctx.mcpReq.id });
    s.registerTool('ask', { description: 'Asks a name (form)', inputSchema: z.object({}) }, async (_a, ctx) =>
      formText(await ctx.mcpReq.elicitInput(FORM, related(ctx))),
    );
    s.registerTool('login', { description: 'URL-mode sign-in', inputSchema: z.object({}) }, async (_a, ctx) => {
      const elicitationId = randomUUID();
      const r = await ctx.mcpReq.elicitInput({ ...URL_ASK, elicitationId }, related(ctx));
      if (r.action === 'accept') await s.server.createElicitationCompletionNotifier(elicitationId, { relatedRequestId: ctx.mcpReq.id })();
      return text(`url ${r.action}`);
    });
    s.registerTool('roots', { description: 'Lists the client roots', inputSchema: z.object({}) }, async (_a, ctx) =>
      rootsText(await s.server.listRoots(undefined, related(ctx))),
    );
    s.registerTool('login-silent', { description: 'URL-mode sign-in, never completed', inputSchema: z.object({}) }, async (_a, ctx) =>
      text(`url ${(await ctx.mcpReq.elicitInput({ ...URL_ASK, elicitationId: randomUUID() }, related(ctx))).action}`),
    );
    s.registerTool('login-noisy', { description: 'URL-mode sign-in, hostile completions', inputSchema: z.object({}) }, async (_a, ctx) => {
      const elicitationId = randomUUID();
      const r = await ctx.mcpReq.elicitInput({ ...URL_ASK, elicitationId }, related(ctx));
      if (r.action === 'accept')
        for (const id of [randomUUID(), 'in-1', 'in-2', elicitationId, elicitationId])
          await s.server.createElicitationCompletionNotifier(id, { relatedRequestId: ctx.mcpReq.id })();
      return text(`url ${r.action}`);
    });
    s.registerTool(
      'login-early',
      { description: 'URL-mode sign-in, completed before the answer', inputSchema: z.object({}) },
      async (_a, ctx) => {
        const elicitationId = randomUUID();
        const asked = ctx.mcpReq.elicitInput({ ...URL_ASK, elicitationId }, related(ctx));
        setTimeout(
          () =>
            void s.server
              .createElicitationCompletionNotifier(elicitationId, { relatedRequestId: ctx.mcpReq.id })()
              .catch(() => {}),
          100,
        );
        return text(`url ${(await asked).action}`);
      },
    );
    s.registerTool(
      'login-later',
      { description: 'URL-mode sign-in, completed after the call', inputSchema: z.object({}) },
      async (_a, ctx) => {
        const elicitationId = randomUUID();
        const r = await ctx.mcpReq.elicitInput({ ...URL_ASK, elicitationId }, related(ctx));
        if (r.action === 'accept')
          setTimeout(
            () =>
              void s.server
                .createElicitationCompletionNotifier(elicitationId)()
                .catch(() => {}),
            100,
          );
        return text(`url ${r.action}`);
      },
    );
    return s;
  };
}

async function v2ModernFactory() {
  const { McpServer, inputRequired, inputResponse } = await import('@modelcontextprotocol/server');
  const { z } = await import('zod/v4');
  return () => {
    const s = new McpServer({ name: 'interop-v2-modern', version: '0.0.1' });
    s.registerTool('ask', { description: 'Asks a name (form)', inputSchema: z.object({}) }, async (_a, ctx) => {
      const r = inputResponse(ctx.mcpReq.inputResponses, 'name');
      if (r.kind === 'missing')
        return inputRequired({
          inputRequests: { name: inputRequired.elicit({ message: FORM.message, requestedSchema: FORM.requestedSchema }) },
        });
      return formText(r);
    });
    s.registerTool('login', { description: 'URL-mode sign-in', inputSchema: z.object({}) }, async (_a, ctx) => {
      const r = inputResponse(ctx.mcpReq.inputResponses, 'login');
      if (r.kind === 'missing')
        return inputRequired({ inputRequests: { login: inputRequired.elicitUrl({ message: URL_ASK.message, url: URL_ASK.url }) } });
      return text(`url ${r.action}`);
    });
    s.registerTool('roots', { description: 'Lists the client roots', inputSchema: z.object({}) }, async (_a, ctx) => {
      const r = inputResponse(ctx.mcpReq.inputResponses, 'roots');
      if (r.kind === 'missing') return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
      return rootsText(r);
    });
    return s;
  };
}

/** Resolves with the listening URL; logs it for the parent. */
function listen(handler) {
  const server = createServer(
    (req, res) =>
      void handler(req, res).catch((e) => {
        if (!res.headersSent) res.writeHead(500).end(String(e));
      }),
  );
  server.listen(0, '127.0.0.1', () => process.stderr.write(`listening on http://127.0.0.1:${server.address().port}/mcp\n`));
}

/** Sessionful legacy HTTP: one server per session, created on `initialize`. */
function sessionful(makeTransport, factory) {
  const sessions = new Map();
  listen(async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const t = sessions.get(sid);
      if (!t) return void res.writeHead(404).end('unknown session');
      return t.handleRequest(req, res);
    }
    const t = makeTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => sessions.set(id, t) });
    t.onclose = () => t.sessionId && sessions.delete(t.sessionId);
    await factory().connect(t);
    await t.handleRequest(req, res);
  });
}

if (kind === 'v1') {
  const factory = await v1Factory();
  if (http) {
    const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
    sessionful((o) => new StreamableHTTPServerTransport(o), factory);
  } else {
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    await factory().connect(new StdioServerTransport());
  }
} else if (kind === 'v2-legacy') {
  const factory = await v2LegacyFactory();
  if (http) {
    const { NodeStreamableHTTPServerTransport } = await import('@modelcontextprotocol/node');
    sessionful((o) => new NodeStreamableHTTPServerTransport(o), factory);
  } else {
    const { StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
    await factory().connect(new StdioServerTransport());
  }
} else if (kind === 'v2-modern') {
  const factory = await v2ModernFactory();
  if (http) {
    const { createMcpHandler } = await import('@modelcontextprotocol/server');
    const { toNodeHandler } = await import('@modelcontextprotocol/node');
    const node = toNodeHandler(createMcpHandler(factory, { legacy: 'reject' }));
    listen((req, res) => node(req, res));
  } else {
    const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
    serveStdio(factory);
  }
} else {
  process.stderr.write('usage: sdk-server.mjs v1|v2-legacy|v2-modern [--http]\n');
  process.exit(2);
}
