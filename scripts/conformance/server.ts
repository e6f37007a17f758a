/**
 * The conformance server: everything the official MCP conformance server scenarios call, built with the
 * parley toolkit (`createParleyServer` + `serve`, docs/server.md). Elicitation and roots tools go through
 * parley's `ctx` (the code under test); plain content tools, resources, prompts, logging, progress,
 * completion and sampling (parley's toolkit has no sampling API) are registered on `server.mcp`, the
 * SDK server the toolkit wraps.
 *
 * Run: node --import tsx scripts/conformance/server.ts  → prints `listening on http://127.0.0.1:<port>/mcp`
 * @module
 */
import * as z from 'zod/v4';
import { inputRequired, ResourceTemplate } from '@modelcontextprotocol/server';
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { createParleyServer, createShared, serve } from '../../src/server/index.js';
import type { ParleyServer, ServeHandle } from '../../src/server/index.js';
import type { RequestedSchema } from '../../src/schema/index.js';

/** 1×1 transparent PNG. */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
/** 44-byte header of an empty 8 kHz mono 16-bit WAV. */
export const WAV_BASE64 = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const noArgs = z.object({});

/** SEP-1034: one field of each primitive type, each with a default. */
const SEP1034_SCHEMA: RequestedSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Your name', default: 'John Doe' },
    age: { type: 'integer', description: 'Your age', default: 30 },
    score: { type: 'number', description: 'Your score', default: 95.5 },
    status: { type: 'string', description: 'Account status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verified account', default: true },
  },
} as RequestedSchema;

/** SEP-1330: the five enum shapes of 2025-11-25. */
const SEP1330_SCHEMA: RequestedSchema = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', description: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      description: 'Titled single-select',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      description: 'Legacy titled enum',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Untitled multi-select',
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Titled multi-select',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
} as RequestedSchema;

/** Elicitation and roots tools, written once with parley's `ctx` (pushed on 2025-era, `input_required` on 2026-07-28). */
function parleyTools(server: ParleyServer): void {
  server.tool(
    'test_elicitation',
    { description: 'Asks the user for a username and email', inputSchema: z.object({ message: z.string().optional() }) },
    async ({ message }, ctx) => {
      const r = await ctx.elicit(
        message ?? 'Please provide your information',
        z.object({ username: z.string().describe('Your username'), email: z.string().describe('Your email address') }),
      );
      return text(r.action === 'accept' ? `User provided: ${JSON.stringify(r.content)}` : `User ${r.action}ed`);
    },
  );
  server.tool(
    'test_elicitation_sep1034_defaults',
    { description: 'Elicits one field of each type with defaults (SEP-1034)', inputSchema: noArgs },
    async (_a, ctx) => {
      const r = await ctx.elicit('Please review your information', SEP1034_SCHEMA);
      return text(`Elicitation completed: action=${r.action}${r.action === 'accept' ? `, content=${JSON.stringify(r.content)}` : ''}`);
    },
  );
  server.tool(
    'test_elicitation_sep1330_enums',
    { description: 'Elicits the five enum forms (SEP-1330)', inputSchema: noArgs },
    async (_a, ctx) => {
      const r = await ctx.elicit('Please select options', SEP1330_SCHEMA);
      return text(`Elicitation completed: action=${r.action}${r.action === 'accept' ? `, content=${JSON.stringify(r.content)}` : ''}`);
    },
  );
  // 2026-07-28 (SEP-2322) tools. parley names inputRequests keys itself (e0, r1, …) unless the tool
  // names one (`opts.key`), as the fixtures that hard-code a key need.
  const name = z.object({ name: z.string() });
  for (const tool of ['test_input_required_result_elicitation', 'test_input_required_result_tampered_state']) {
    server.tool(tool, { description: 'Asks for a name, then greets', inputSchema: noArgs }, async (_a, ctx) => {
      const r = await ctx.elicit('What is your name?', name, { key: 'user_name' });
      return text(r.action === 'accept' ? `Hello, ${r.content.name}!` : `no name (${r.action})`);
    });
  }
  server.tool(
    'test_input_required_result_request_state',
    { description: 'Asks to confirm; the answer rides in the sealed requestState', inputSchema: noArgs },
    async (_a, ctx) => {
      const r = await ctx.elicit('Please confirm', z.object({ ok: z.boolean() }));
      return text(`state-ok: ${r.action}${r.action === 'accept' ? ` ok=${r.content.ok}` : ''}`);
    },
  );
  server.tool(
    'test_input_required_result_multi_round',
    { description: 'Two rounds: name, then colour', inputSchema: noArgs },
    async (_a, ctx) => {
      const a = await ctx.elicit('Step 1: What is your name?', name);
      const b = await ctx.elicit('Step 2: What is your favorite color?', z.object({ color: z.string() }));
      return text(`name=${a.action === 'accept' ? a.content.name : a.action}, color=${b.action === 'accept' ? b.content.color : b.action}`);
    },
  );
  const greeting = {
    messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'Generate a greeting' } }],
    maxTokens: 50,
  };
  const said = (r: { content: unknown }) => {
    const c = (Array.isArray(r.content) ? r.content[0] : r.content) as { type?: string; text?: string } | undefined;
    return c?.type === 'text' ? c.text : JSON.stringify(c);
  };
  server.tool(
    'test_input_required_result_multiple_inputs',
    { description: 'Asks for a name, a greeting from the model and the roots in one round', inputSchema: noArgs },
    async (_a, ctx) => {
      const [r, g, roots] = await ctx.all([
        () => ctx.elicit('What is your name?', name, { key: 'user_name' }),
        () => ctx.sample(greeting, { key: 'greeting' }),
        () => ctx.roots({ key: 'client_roots' }),
      ]);
      return text(`name=${r.action === 'accept' ? r.content.name : r.action}, greeting=${said(g)}, roots=${roots.length}`);
    },
  );
  server.tool(
    'test_input_required_result_capabilities',
    { description: 'Asks only what the client declared it can answer', inputSchema: noArgs },
    async (_a, ctx) => {
      const parts: string[] = [];
      await ctx.all([
        async () => {
          if (ctx.supports('elicitation')) {
            const r = await ctx.elicit('What is your name?', name, { key: 'user_name' });
            parts.push(r.action === 'accept' ? `Hello, ${r.content.name}!` : `no name (${r.action})`);
          }
        },
        async () => {
          if (ctx.supports('sampling')) parts.push(`LLM said: ${said(await ctx.sample(greeting, { key: 'greeting' }))}`);
        },
      ]);
      return text(parts.join(' ') || 'nothing to ask: the client declared neither elicitation nor sampling');
    },
  );
  // server-stateless (SEP-2575) diagnostic: an ask over a response stream. Its other diagnostic,
  // test_missing_capability, needs sampling (sdkTools below).
  server.tool(
    'test_streaming_elicitation',
    { description: 'Elicits (input_required on 2026-07-28, never a pushed request)', inputSchema: noArgs },
    async (_a, ctx) => {
      const r = await ctx.elicit('What is your name?', name);
      return text(`action=${r.action}`);
    },
  );
  server.tool('test_input_required_result_list_roots', { description: 'Lists the client roots', inputSchema: noArgs }, async (_a, ctx) => {
    const roots = await ctx.roots();
    return text(`roots: ${roots.map((r) => r.uri).join(', ') || '(none)'}`);
  });
}

/** Content, logging, progress and sampling tools on the SDK server the toolkit wraps. */
function sdkTools(server: ParleyServer): void {
  const mcp = server.mcp;
  const raw = (
    name: string,
    description: string,
    inputSchema: z.ZodObject,
    cb: (args: Record<string, unknown>, ctx: ServerContext) => Promise<CallToolResult> | CallToolResult,
  ) => mcp.registerTool(name, { description, inputSchema } as never, cb as never);
  raw('test_simple_text', 'Returns simple text content', noArgs, () => text('This is a simple text response for testing.'));
  raw('test_image_content', 'Returns image content', noArgs, () => ({
    content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }],
  }));
  raw('test_audio_content', 'Returns audio content', noArgs, () => ({
    content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }],
  }));
  const embedded = {
    type: 'resource' as const,
    resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
  };
  raw('test_embedded_resource', 'Returns an embedded resource', noArgs, () => ({ content: [embedded] }));
  raw('test_multiple_content_types', 'Returns text, image and resource content', noArgs, () => ({
    content: [{ type: 'text', text: 'Multiple content types test:' }, { type: 'image', data: PNG_BASE64, mimeType: 'image/png' }, embedded],
  }));
  raw('test_tool_with_logging', 'Sends log messages while running', noArgs, async (_a, ctx) => {
    for (const m of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
      await ctx.mcpReq.log('info', m);
      await sleep(50);
    }
    return text('Tool with logging executed successfully');
  });
  raw('test_error_handling', 'Always fails with an error result', noArgs, () => ({
    content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
    isError: true,
  }));
  raw('test_tool_with_progress', 'Reports progress 0, 50, 100', noArgs, async (_a, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (progressToken !== undefined)
        await ctx.mcpReq.notify({
          method: 'notifications/progress',
          params: { progressToken, progress, total: 100, message: `step ${progress}` },
        });
      await sleep(50);
    }
    return text(`progress tool finished (token ${String(progressToken)})`);
  });
  raw('test_sampling', 'Asks the client LLM', z.object({ prompt: z.string() }), async (args, ctx) => {
    const r = await ctx.mcpReq.requestSampling({
      messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt) } }],
      maxTokens: 100,
    });
    const c = Array.isArray(r.content) ? r.content[0] : r.content;
    return text(`LLM response: ${c && c.type === 'text' ? c.text : JSON.stringify(c)}`);
  });
  raw(
    'test_input_required_result_sampling',
    'Asks the client LLM on 2026-07-28 (SDK inputRequired; parley has no sampling API)',
    noArgs,
    (_a, ctx) => {
      const key = 'capital_question';
      const answer = ctx.mcpReq.inputResponses?.[key] as { content?: { text?: string } } | undefined;
      if (answer) return text(`LLM said: ${answer.content?.text ?? JSON.stringify(answer)}`);
      return inputRequired({
        inputRequests: {
          [key]: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
            maxTokens: 100,
          }),
        },
      }) as never;
    },
  );
  // server-stateless (SEP-2575): the suite's diagnostic tool needs SAMPLING, which its probe does not
  // declare, and checks for -32021 with data.requiredCapabilities = {sampling: {}}. The toolkit has no
  // sampling ask, so this is the SDK's inputRequired; on 2026-07-28 the SDK checks the inputRequests
  // against the request's declared capabilities and answers -32021 itself. (parley's own -32021 for
  // elicitation and roots is tested in test/toolkit-vectors.test.ts and test/toolkit-url-roots.test.ts.)
  raw(
    'test_missing_capability',
    'Needs sampling (input_required sampling/createMessage); a client without it gets -32021',
    noArgs,
    (_a, ctx) => {
      const answer = ctx.mcpReq.inputResponses?.completion as { content?: { text?: string } } | undefined;
      if (answer) return text(`LLM said: ${answer.content?.text ?? JSON.stringify(answer)}`);
      return inputRequired({
        inputRequests: {
          completion: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Say hello.' } }],
            maxTokens: 20,
          }),
        },
      }) as never;
    },
  );
  raw('test_logging_tool', 'Logs one message (only when the request set a log level)', noArgs, async (_a, ctx) => {
    await ctx.mcpReq.log('info', 'test_logging_tool ran');
    return text('logged');
  });
  raw('test_trigger_tool_change', 'Changes the tool list', noArgs, async () => {
    await mcp.sendToolListChanged();
    return text('tool list changed');
  });
  raw('test_trigger_prompt_change', 'Changes the prompt list', noArgs, async () => {
    mcp.sendPromptListChanged();
    return text('prompt list changed');
  });
  raw(
    'json_schema_2020_12_tool',
    'Tool with JSON Schema 2020-12 features',
    z.object({ name: z.string().optional(), address: z.object({ street: z.string().optional(), city: z.string().optional() }).optional() }),
    () => text('ok'),
  );
}

/** Resources, prompts, subscriptions and completion on the SDK server. */
function sdkResourcesAndPrompts(server: ParleyServer): void {
  const mcp = server.mcp;
  server.resource('static-text', 'test://static-text', { description: 'A static text resource', mimeType: 'text/plain' }, (uri: URL) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }));
  server.resource(
    'static-binary',
    'test://static-binary',
    { description: 'A static binary resource', mimeType: 'image/png' },
    (uri: URL) => ({
      contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG_BASE64 }],
    }),
  );
  server.resource(
    'watched-resource',
    'test://watched-resource',
    { description: 'A resource clients may subscribe to', mimeType: 'text/plain' },
    (uri: URL) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content' }],
    }),
  );
  server.resourceTemplate(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { description: 'A templated resource', mimeType: 'application/json' },
    (uri: URL, vars: Record<string, string | string[]>) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ id: vars.id, templateTest: true, data: `Data for ID: ${String(vars.id)}` }),
        },
      ],
    }),
  );
  const subscribed = new Set<string>();
  mcp.server.setRequestHandler(
    'resources/subscribe',
    (async (req: { params: { uri: string } }) => (subscribed.add(req.params.uri), {})) as never,
  );
  mcp.server.setRequestHandler(
    'resources/unsubscribe',
    (async (req: { params: { uri: string } }) => (subscribed.delete(req.params.uri), {})) as never,
  );

  mcp.registerPrompt('test_simple_prompt', { description: 'A prompt without arguments' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  mcp.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two arguments',
      argsSchema: z.object({ arg1: z.string().describe('First argument'), arg2: z.string().describe('Second argument') }),
    },
    (args: { arg1: string; arg2: string }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }],
    }),
  );
  mcp.registerPrompt(
    'test_prompt_with_embedded_resource',
    { description: 'A prompt embedding a resource', argsSchema: z.object({ resourceUri: z.string().describe('URI of the resource') }) },
    (args: { resourceUri: string }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: args.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );
  mcp.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
  mcp.registerPrompt(
    'test_input_required_result_prompt',
    { description: 'Needs context from the user first (SDK inputRequired; parley asks only from tools)' },
    ((ctx: ServerContext) => {
      const answer = ctx.mcpReq.inputResponses?.user_context as { action?: string; content?: { context?: string } } | undefined;
      if (answer?.action === 'accept')
        return { messages: [{ role: 'user', content: { type: 'text', text: `Context: ${answer.content?.context ?? ''}` } }] };
      return inputRequired({
        inputRequests: {
          user_context: inputRequired.elicit({
            message: 'What context should the prompt use?',
            requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
          }),
        },
      });
    }) as never,
  );
  mcp.server.setRequestHandler('completion/complete', (async (req: { params: { argument: { value: string } } }) => {
    const all = ['paris', 'park', 'party', 'test', 'testing'];
    const values = all.filter((v) => v.startsWith(req.params.argument.value));
    return { completion: { values, total: values.length, hasMore: false } };
  }) as never);
}

/** Starts the conformance server on 127.0.0.1 (free port unless given); `url` ends in `/mcp`. */
export async function startConformanceServer(opts: { port?: number } = {}): Promise<ServeHandle> {
  const shared = createShared();
  const factory = () => {
    const server = createParleyServer({
      name: 'parley-conformance',
      version: '0.1.0',
      shared,
      mcpOptions: {
        capabilities: { logging: {}, completions: {}, prompts: { listChanged: true }, resources: { subscribe: true, listChanged: true } },
      },
    });
    parleyTools(server);
    sdkTools(server);
    sdkResourcesAndPrompts(server);
    return server;
  };
  return serve(factory, { http: { port: opts.port ?? 0 } });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const handle = await startConformanceServer({ port: Number(process.env.PORT ?? 0) });
  console.log(`listening on ${handle.url}`);
  const stop = () => void handle.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
