/**
 * `connect(factory, options)`: a real SDK v2 `Client` connected to a toolkit server (or a plain SDK
 * `McpServer`) on one protocol revision, in process, with an elicitation handler that plays the person.
 * For tests of servers built with `mcp-parley/server`; see docs/server.md "Testing your server".
 * @module
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ClientCapabilities, ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { createMcpHandler, InMemoryTransport } from '@modelcontextprotocol/server';
import type { McpServer } from '@modelcontextprotocol/server';
import type { ParleyServer } from '../server/index.js';

/** The protocol revisions `connect` speaks, oldest first. */
export const TEST_REVISIONS = ['2025-06-18', '2025-11-25', '2026-07-28'] as const;
/** One of {@link TEST_REVISIONS}. */
export type TestRevision = (typeof TEST_REVISIONS)[number];

/**
 * What the person answers one elicitation with (spec client/elicitation §Response Actions).
 * `content` is loosely typed so a test may also send an answer the server should refuse.
 */
export type TestAnswer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

/**
 * Plays the person: gets each `elicitation/create` request's params (`message`, `requestedSchema`, `mode`
 * …) and `index` (0 for the connection's first elicitation, counted in arrival order), and returns or
 * resolves to the answer. It may wait (overlapping calls can be answered in any order); a throw or
 * rejection becomes the client's JSON-RPC error to the server.
 */
export type AnswerFunction = (params: ElicitRequest['params'], info: { index: number }) => TestAnswer | Promise<TestAnswer>;

/** Options of {@link connect}. */
export interface ConnectOptions {
  /** Revision to speak. Default `'2026-07-28'`. Anything outside {@link TEST_REVISIONS} → `RangeError`. */
  revision?: TestRevision;
  /**
   * The person. A function (see {@link AnswerFunction}); one `TestAnswer` given to every elicitation; or
   * an array of answers given in order of arrival, one each (an elicitation after the last one is answered
   * with a JSON-RPC error naming its message, so the call fails rather than hangs). Default:
   * `{ action: 'cancel' }` for every elicitation.
   */
  answer?: AnswerFunction | TestAnswer | readonly TestAnswer[];
  /**
   * The client's capabilities. Default `{ elicitation: { form: {} } }`. Declare `roots` or `sampling` here
   * and set their handlers on the returned `client` before calling a tool.
   */
  capabilities?: ClientCapabilities;
}

/** A connected client. */
export interface TestConnection {
  /** The SDK v2 client (`callTool`, `listTools`, `setRequestHandler`, …). */
  client: Client;
  revision: TestRevision;
  /** Every elicitation's params, in arrival order. */
  asked: ElicitRequest['params'][];
  /** Closes the client (and, on 2025 eras, the server instance). Idempotent. */
  close(): Promise<void>;
}

/** A factory of toolkit servers (or SDK `McpServer`s), as `serve()` takes; `era` says which era asks. */
export type TestServerFactory = (ctx: { era: 'legacy' | 'modern' }) => ParleyServer | McpServer;

const toMcp = (s: ParleyServer | McpServer): McpServer => ('mcp' in s && 'tool' in s ? s.mcp : (s as McpServer));

function answerer(answer: ConnectOptions['answer']): AnswerFunction {
  if (answer === undefined) return () => ({ action: 'cancel' });
  if (typeof answer === 'function') return answer;
  if (!Array.isArray(answer)) {
    const one = answer as TestAnswer;
    return () => one;
  }
  const list = answer as readonly TestAnswer[];
  return (params, { index }) => {
    if (index < list.length) return list[index];
    throw new Error(
      `mcp-parley/testing connect(): no answer left for elicitation #${index + 1} ("${params.message}"): the answers list has ${list.length}`,
    );
  };
}

/**
 * Connects a real SDK v2 `Client` to servers from `factory`, speaking `options.revision`, without a network:
 *
 * - 2025-06-18 / 2025-11-25: one instance from `factory({era: 'legacy'})` over the SDK's linked
 *   `InMemoryTransport` pair (one instance per connection, as a stdio or 2025-era HTTP session keeps);
 *   the client is pinned to the revision (`supportedProtocolVersions: [revision]`), and elicitations are
 *   pushed `elicitation/create` requests.
 * - 2026-07-28: the SDK's stateless HTTP handler `createMcpHandler(() => factory({era: 'modern'}), {legacy:
 *   'reject'}).fetch` behind a `StreamableHTTPClientTransport` (a fresh instance per request, as `serve()`
 *   does; `versionNegotiation: {mode: 'auto'}`); elicitations are `input_required` rounds that the client
 *   fulfils through the same handler and retries (spec 2026-07-28 basic/patterns/mrtr).
 *
 * Every elicitation is recorded in `asked` and answered by `options.answer` (default: cancel).
 * Create the server's `Shared` state outside `factory` (see docs/server.md), or every 2026-07-28 retry is
 * refused for its `requestState`.
 *
 * @returns a connected {@link TestConnection}; call `close()` when done.
 * @throws TypeError if `factory` is not a function; RangeError for a revision outside {@link TEST_REVISIONS};
 *   whatever the SDK throws if the connection fails (e.g. the factory throws).
 */
export async function connect(factory: TestServerFactory, options: ConnectOptions = {}): Promise<TestConnection> {
  if (typeof factory !== 'function') throw new TypeError('mcp-parley/testing connect(): factory must be a function returning a server');
  const revision = options.revision ?? '2026-07-28';
  if (!TEST_REVISIONS.includes(revision))
    throw new RangeError(
      `mcp-parley/testing connect(): revision must be one of ${TEST_REVISIONS.join(', ')}; got ${JSON.stringify(revision)}`,
    );
  const answer = answerer(options.answer);
  const asked: ElicitRequest['params'][] = [];
  const modern = revision === '2026-07-28';
  const client = new Client(
    { name: 'mcp-parley-testing', version: '1.0.0' },
    {
      capabilities: options.capabilities ?? { elicitation: { form: {} } },
      ...(modern ? { versionNegotiation: { mode: 'auto' as const } } : { supportedProtocolVersions: [revision] }),
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const index = asked.push(request.params) - 1;
    return (await answer(request.params, { index })) as ElicitResult;
  });
  let server: ReturnType<typeof toMcp> | undefined;
  if (modern) {
    const handler = createMcpHandler(() => toMcp(factory({ era: 'modern' })), { legacy: 'reject' });
    const fetch = (url: string | URL, init?: RequestInit) => handler.fetch(new Request(url, init));
    await client.connect(new StreamableHTTPClientTransport(new URL('http://mcp-parley-testing.local/mcp'), { fetch }));
  } else {
    server = toMcp(factory({ era: 'legacy' }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
  }
  let closed = false;
  return {
    client,
    revision,
    asked,
    close: async () => {
      if (closed) return;
      closed = true;
      await client.close();
      await server?.close();
    },
  };
}
