/**
 * `tools/call` with the host's own pausable deadline and the 2025-11-25 URL-elicitation-required path.
 *
 * - Clock: {@link ToolClock} (`toolCallMs` paused while a person answers, `maxTotalMs` never paused).
 *   The SDK request gets `timeout` = `maxTotalTimeout` = `maxTotalMs` + {@link SDK_TIMEOUT_SLACK_MS}, so the
 *   SDK's 60 s default never fires; our clock aborts through `signal` (the SDK then sends
 *   `notifications/cancelled`). Rejects with `ToolCallTimeoutError` (./tool-clock.ts) on expiry; with the caller's
 *   abort reason when the caller's `signal` aborts.
 * - `-32042` (UrlElicitationRequiredError, 2025-11-25 `protocol.md` §2.2): each URL elicitation in
 *   `error.data.elicitations` goes to `handlers.elicit` (mode url, no `requestId`, clocks paused). If all
 *   are accepted, the call is retried **once**, after `notifications/elicitation/complete` arrived for
 *   every `elicitationId` or after `urlCompleteWaitMs` (default {@link URL_COMPLETE_WAIT_MS}), whichever
 *   is first. Otherwise it returns an `isError` result naming the declined or cancelled URLs.
 * - No orphan prompt (vector Q3, host side): when a call ends by timeout or caller abort, the SDK aborts
 *   the broker calls of its MRTR rounds (modern; measured). On legacy eras a pushed request carries no
 *   link to its tool call, but a server may only send it while a client request is in flight
 *   (`protocol.md` §5.3), so when no other tool call of that server is left, its pending broker calls
 *   are aborted.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { ProtocolError, UrlElicitationRequiredError } from '@modelcontextprotocol/client';
import type { CallToolResult, ElicitRequestURLParams } from '@modelcontextprotocol/client';
import type { Clock } from './clock.js';
import type { Connection } from './connection.js';
import type { InputHandlers } from './handlers.js';
import { ToolClock, type PauseGate } from './tool-clock.js';
import { CALL_HEADER, runAsCall } from './calls.js';
import { callToolRounds } from './mrtr.js';
import type { CallRef } from './calls.js';

/** Added to `maxTotalMs` for the SDK's own timeout so ours always fires first, ms. */
export const SDK_TIMEOUT_SLACK_MS = 60_000;
/** Wait for `notifications/elicitation/complete` before the single retry after `-32042`, ms. */
export const URL_COMPLETE_WAIT_MS = 5_000;

export interface ToolCallEnv {
  conn: Connection;
  pause: PauseGate;
  handlers: InputHandlers;
  clock: Clock;
  toolCallMs: number;
  maxTotalMs: number;
  urlCompleteWaitMs: number;
  /**
   * What happens to the server after it closed the connection under a call, for that call's error
   * (`; it will be restarted in 500 ms …`); read when the error is made, after the manager has
   * scheduled (or not) its restart. Absent: nothing is said.
   */
  afterClose?: () => string | undefined;
}

export async function callToolWithClock(
  env: ToolCallEnv,
  tool: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
  tag?: string,
): Promise<CallToolResult> {
  const { conn } = env;
  const ref: CallRef = { tool, callId: randomUUID(), ...(tag !== undefined ? { tag } : {}) };
  // The clock's signal also carries the caller's abort.
  const clock = new ToolClock(
    env.clock,
    { server: conn.name, tool, toolCallMs: env.toolCallMs, maxTotalMs: env.maxTotalMs },
    env.pause.paused,
    signal,
  );
  const untrack = env.pause.track(clock);
  const combined = clock.signal;
  const legOptions = {
    signal: combined,
    timeout: env.maxTotalMs + SDK_TIMEOUT_SLACK_MS,
    maxTotalTimeout: env.maxTotalMs + SDK_TIMEOUT_SLACK_MS,
  };
  // 2025 eras over Streamable HTTP: the call's POST names it to parley's fetch, which removes the header
  // and attributes the server's requests on that POST's stream to this call (calls.ts, wire-repair.ts).
  const legacyOptions =
    conn.era === 'legacy' && conn.transportKind === 'streamable-http'
      ? { ...legOptions, headers: { [CALL_HEADER]: ref.callId } }
      : legOptions;
  // 2026-07-28: parley drives the input_required rounds itself (./mrtr.ts) so each prompt knows its call.
  const once = () =>
    runAsCall(conn.client, ref, () =>
      conn.era === 'modern'
        ? callToolRounds(
            {
              client: conn.client,
              server: conn.name,
              revision: conn.revision,
              handlers: env.handlers,
              paused: (fn) => env.pause.during(fn),
              signal: AbortSignal.any([combined, conn.lifetime]),
            },
            ref,
            args,
            (params) => conn.client.callTool(params as never, { ...legOptions, allowInputRequired: true }),
          )
        : (conn.client.callTool({ name: tool, arguments: args }, legacyOptions) as Promise<CallToolResult>),
    );
  try {
    for (let round = 1; ; round++) {
      let urls: ElicitRequestURLParams[] | undefined;
      try {
        return await once();
      } catch (err) {
        urls = urlElicitations(err);
        if (!urls) throw err;
      }
      const stop = urlRound(conn.name, tool, urls, round);
      if (stop) return stop;
      // The consent prompts belong to this call and this connection: they close when either ends.
      const promptSignal = AbortSignal.any([combined, conn.lifetime]);
      const verdicts = await env.pause.during(() =>
        Promise.all(
          urls.map((p) =>
            env.handlers
              .elicit(p, { server: conn.name, era: conn.era, revision: conn.revision, signal: promptSignal, call: ref })
              .catch(() => ({ action: 'cancel' as const })),
          ),
        ),
      );
      const refused = urls.map((p, i) => ({ url: p.url, action: verdicts[i].action })).filter((r) => r.action !== 'accept');
      if (refused.length > 0) {
        return errorText(
          `Server "${conn.name}" requires URL elicitation before ${tool} can run (-32042), and it was not accepted: ` +
            refused.map((r) => `${r.url} (${r.action})`).join(', ') +
            '. The tool was not retried.',
        );
      }
      const ids = urls.map((p) => p.elicitationId).filter((x): x is string => typeof x === 'string');
      const choice = await env.pause.during(() => afterConsent(env, ref, urls, ids, round, promptSignal));
      if (choice === 'give-up') return urlRound(conn.name, tool, urls, MAX_URL_ROUNDS + 1, 1)!;
      if (choice === 'cancel') {
        if (combined.aborted) throw combined.reason;
        return errorText(
          `You cancelled ${tool} on "${conn.name}" after the browser step it requires (-32042): ${urls.map((u) => u.url).join(', ')}. The tool was not retried.`,
        );
      }
    }
  } catch (err) {
    if (clock.signal.aborted || signal?.aborted) {
      untrack();
      if (env.pause.inFlight === 0 && conn.era === 'legacy')
        conn.abortPendingInputs(`the tool call ${tool} that led to this request ended`);
      // A ToolCallTimeoutError, or the caller's reason (whichever aborted the clock first).
      throw clock.signal.aborted ? clock.signal.reason : (signal?.reason ?? err);
    }
    throw (await closedError(conn, tool, env.afterClose)) ?? err;
  } finally {
    untrack();
  }
}

/** Retry rounds after `-32042` before the call ends with an `isError` result saying so. */
export const MAX_URL_ROUNDS = 3;

function errorText(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The `isError` result once `round` exceeds the bound (never a bare `MCP error -32042`), else `undefined`. */
function urlRound(
  server: string,
  tool: string,
  urls: ElicitRequestURLParams[],
  round: number,
  retries = MAX_URL_ROUNDS,
): CallToolResult | undefined {
  if (round <= MAX_URL_ROUNDS) return undefined;
  return errorText(
    `Server "${server}" still requires URL elicitation before ${tool} can run (-32042) after ${retries} ${retries === 1 ? 'retry' : 'retries'}: ` +
      `${urls.map((u) => u.url).join(', ')}. Finish the step in your browser, then call ${tool} again.`,
  );
}

/**
 * After consent: waits for `notifications/elicitation/complete` of every id while the person is asked
 * "retry or cancel" through the presenter seam ({@link InputHandlers.decideUrlRetry}); the first of the
 * two decides (a completion withdraws the question and retries). Without a person to ask: round 1
 * waits at most `urlCompleteWaitMs` and retries; a later round ends the call (`'give-up'`).
 */
async function afterConsent(
  env: ToolCallEnv,
  ref: CallRef,
  urls: ElicitRequestURLParams[],
  ids: string[],
  round: number,
  signal: AbortSignal,
): Promise<'retry' | 'cancel' | 'give-up'> {
  const { conn } = env;
  const tool = ref.tool;
  const asked = new AbortController();
  const both = AbortSignal.any([signal, asked.signal]);
  try {
    const decision = env.handlers.decideUrlRetry?.(
      {
        id: randomUUID(),
        kind: 'url-retry',
        server: conn.name,
        tool,
        callId: ref.callId,
        round,
        urls: urls.map((u) => u.url),
        message: `${conn.name} needs the browser step at ${urls.map((u) => u.url).join(', ')} before ${tool} can run. Finish it in your browser, then retry; or cancel the call.`,
      },
      both,
    );
    if (!decision) {
      if (round > 1) return 'give-up';
      await conn.waitForCompletions(ids, env.urlCompleteWaitMs, signal);
      return 'retry';
    }
    const answer = decision.catch(() => 'cancel' as const);
    // With no id to wait for, only the person can say the step is done.
    const completed = ids.length
      ? conn.waitForCompletions(ids, env.maxTotalMs, both).then((r) => (r === 'completed' ? ('retry' as const) : answer))
      : answer;
    return await Promise.race([answer, completed]);
  } finally {
    asked.abort();
  }
}

/**
 * A clearer error when the call failed because the server went away: how its process ended and its
 * last stderr lines when known (`Connection.endedHow`), else "it exited or the transport failed", then
 * what happens next (`afterClose`: a restart and when, or none).
 */
async function closedError(conn: Connection, tool: string, afterClose?: () => string | undefined): Promise<Error | undefined> {
  if (!conn.closed) return undefined;
  const how = (await conn.endedHow()) ?? 'it exited or the transport failed';
  const next = afterClose?.();
  return Object.assign(
    new Error(`Server "${conn.name}" closed the connection while ${tool} was running (${how})${next ? `; ${next}` : ''}.`),
    {
      code: 'SERVER_CLOSED',
    },
  );
}

/** The URL elicitations of a `-32042` error, or `undefined` for any other error. */
function urlElicitations(err: unknown): ElicitRequestURLParams[] | undefined {
  if (err instanceof UrlElicitationRequiredError) return err.elicitations as ElicitRequestURLParams[];
  if (err instanceof ProtocolError && err.code === -32042) {
    const list = (err.data as { elicitations?: unknown } | undefined)?.elicitations;
    if (Array.isArray(list))
      return list.filter((e): e is ElicitRequestURLParams => !!e && typeof e === 'object' && (e as { mode?: unknown }).mode === 'url');
  }
  return undefined;
}
