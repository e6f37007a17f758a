/**
 * The seam between the server runtime and the elicitation broker. The broker implements
 * {@link InputHandlers}; the runtime calls it for every server→client input request, whichever era
 * delivered it (pushed `elicitation/create` / `roots/list` on 2025 eras, `inputRequests` entries of an
 * `input_required` result on 2026-07-28: the SDK v2 Client routes both to the same handler).
 * @module
 */
import type { ElicitRequestParams } from '@modelcontextprotocol/client';
import type { CallRef } from './calls.js';

/** One input request's context: where it comes from, and one signal that withdraws it. */
export interface InputContext {
  /** Server name (the key in the host configuration). */
  server: string;
  /** `'legacy'` = 2025-era `initialize` connection; `'modern'` = 2026-07-28. */
  era: 'legacy' | 'modern';
  /** Negotiated protocol revision, e.g. `'2025-11-25'`. */
  revision: string;
  /**
   * Aborted when the request is withdrawn: the server sent `notifications/cancelled` for it
   * (request id 0 included), the connection closed or crashed, the server was stopped, the tool call
   * that caused it ended, or (2026-07-28) its `input_required` round was abandoned. The broker's own
   * answer deadline does not abort it: that ends in a `cancel` answer, which must still be sent.
   */
  signal: AbortSignal;
  /** JSON-RPC id of the server's request on legacy eras */
  requestId?: string | number;
  /** The tool call the request belongs to, when the runtime can tell (`./calls.ts`). */
  call?: CallRef;
}

/** What the broker answers for one elicitation (`protocol.md` §2.5). */
export interface ElicitAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

/** The `sampling/createMessage` result parley sends (a person wrote `content.text`). */
export interface SamplingResult {
  role: 'assistant';
  content: { type: 'text'; text: string };
  model: string;
  stopReason: 'endTurn';
  [k: string]: unknown;
}

/**
 * The broker's answer to one sampling request. `decline` and `cancel` have no wire form of their own:
 * pushed, they become a JSON-RPC error (code -1, as in the spec's "User rejected sampling request"
 * example); in an `input_required` round the call is abandoned (an `inputResponses` entry must be a
 * `CreateMessageResult`).
 */
export type SampleAnswer =
  | { action: 'accept'; result: SamplingResult }
  | { action: 'decline'; reason: string }
  | { action: 'cancel'; reason: string };

export interface InputHandlers {
  /**
   * Answers one elicitation (pushed `elicitation/create` or an MRTR inputRequests entry: the SDK v2
   * Client calls the same handler for both). Also called for each URL elicitation carried by a
   * 2025-11-25 `-32042` error (then `requestId` is absent). While a call is in flight, every tool-call
   * clock of that server is paused.
   */
  elicit(params: ElicitRequestParams, ctx: InputContext): Promise<ElicitAnswer>;
  /**
   * Answers one `sampling/createMessage` (pushed, or an MRTR `inputRequests` entry). When absent the
   * host declares no `sampling` capability and answers neither. Clocks are paused while it runs.
   */
  sample?(params: unknown, ctx: InputContext): Promise<SampleAnswer>;
  /** Roots for this server (already filtered to what is routed to it, file:// only). */
  listRoots(ctx: InputContext): Promise<{ roots: Array<{ uri: string; name?: string }> }>;
  /** 2025-11-25 `notifications/elicitation/complete`. */
  elicitationComplete?(server: string, elicitationId: string): void;
  /**
   * The server sent a message the transport could not pass on to the Client: one an SDK transport
   * dropped unparsed (no id, no answer), or one parley's stdio transport answered or ignored itself (a
   * line over the size cap, JSON that is not JSON-RPC 2.0). `detail` says what it was and what happened
   * to it (never the message itself), e.g. `a "ping" request (id 3) that is not valid JSON-RPC 2.0
   * ("jsonrpc" must be "2.0"); parley answered -32600`. For telling the person and the audit log.
   * `count` (default 1) is how many messages it stands for: a summary of those not reported one by one.
   */
  malformedMessage?(server: string, detail: string, count?: number): void;
  /**
   * After a consented `-32042` URL step: asks the person to retry the call or cancel it. Returns
   * `undefined` (synchronously) when no person can be asked: the runtime then waits
   * `urlCompleteWaitMs` and retries once. The promise must settle soon after `signal` aborts.
   */
  decideUrlRetry?(decision: UrlRetryDecision, signal: AbortSignal): Promise<'retry' | 'cancel'> | undefined;
}

/** What {@link InputHandlers.decideUrlRetry} is told (the presenter's `PresenterDecision` of kind `url-retry`). */
export interface UrlRetryDecision {
  id: string;
  kind: 'url-retry';
  server: string;
  tool: string;
  /** The tool call's id (the consent prompts' `call.callId`). */
  callId?: string;
  message: string;
  urls: string[];
  round: number;
}
