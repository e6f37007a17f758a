/**
 * 2026-07-28 multi-round-trip requests (MRTR) for `tools/call`, driven by parley instead of the SDK's
 * auto-fulfilment, so every input request is answered knowing the exact call it belongs to (the SDK
 * runs auto-fulfilment outside the caller's async context, measured: see test/servers-attribution).
 *
 * Each round: the call is sent with `allowInputRequired: true`; a complete result ends the loop; an
 * `input_required` result has each `inputRequests` entry answered through {@link InputHandlers}
 * (`elicitation/create` → `elicit`, `roots/list` → `listRoots`, file:// only, `sampling/createMessage`
 * → `sample` when the host answers sampling), all entries of a round
 * concurrently, then the call is retried with `inputResponses` and the byte-exact `requestState`
 * (spec 2026-07-28 basic/patterns/mrtr). Bounded by `maxRounds` (default 10, the SDK's default), by
 * {@link MAX_INPUT_REQUESTS_PER_ROUND} entries per round (the spec names no bound; over it the call is
 * abandoned before any entry is answered), and by the caller's signal and deadlines.
 * @module
 */
import type { CallToolResult, Client, ElicitRequestParams } from '@modelcontextprotocol/client';
import type { CallRef } from './calls.js';
import type { InputContext, InputHandlers } from './handlers.js';
import { fileRootsOnly } from './input-bridge.js';

/** Rounds after which a call that keeps answering `input_required` fails. */
export const MAX_MRTR_ROUNDS = 10;

/**
 * Most `inputRequests` entries parley answers in one round. A round with more abandons the call
 * (`too-many-inputs`): each entry is a prompt for a person or a copy of the roots, all at once.
 */
export const MAX_INPUT_REQUESTS_PER_ROUND = 100;

/** Thrown when an MRTR flow cannot go on: too many rounds or inputs, or an input request parley cannot answer. */
export class InputRequiredFlowError extends Error {
  override readonly name = 'InputRequiredFlowError';
  constructor(
    message: string,
    readonly code: 'rounds-exceeded' | 'too-many-inputs' | 'unsupported-input' | 'invalid-input-request' | 'sampling-declined',
  ) {
    super(message);
  }
}

export interface MrtrEnv {
  client: Client;
  server: string;
  revision: string;
  handlers: InputHandlers;
  /** Runs `fn` with every tool-call clock of the server paused (a person is answering). */
  paused<T>(fn: () => Promise<T>): Promise<T>;
  /** Aborts the prompts of a round: the call ended, or the connection closed. */
  signal: AbortSignal;
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  maxRounds?: number;
}

type InputRequiredShape = { resultType: 'input_required'; inputRequests?: Record<string, unknown>; requestState?: string };
const isInputRequired = (r: unknown): r is InputRequiredShape =>
  !!r && typeof r === 'object' && (r as { resultType?: unknown }).resultType === 'input_required';

/**
 * Calls `tool` and answers its `input_required` rounds. `send(params)` performs one wire leg with
 * `allowInputRequired: true` and the caller's options.
 * @throws InputRequiredFlowError, and whatever a leg throws
 */
export async function callToolRounds(
  env: MrtrEnv,
  ref: CallRef,
  args: Record<string, unknown>,
  send: (params: Record<string, unknown>) => Promise<unknown>,
): Promise<CallToolResult> {
  const max = env.maxRounds ?? MAX_MRTR_ROUNDS;
  let params: Record<string, unknown> = { name: ref.tool, arguments: args };
  for (let round = 0; ; round++) {
    const res = await send(params);
    if (!isInputRequired(res)) return res as CallToolResult;
    if (round >= max)
      throw new InputRequiredFlowError(
        `Server "${env.server}" kept asking for input: ${ref.tool} still answered input_required after ${max} rounds; the call was abandoned.`,
        'rounds-exceeded',
      );
    const entries = Object.entries(res.inputRequests ?? {});
    if (entries.length > MAX_INPUT_REQUESTS_PER_ROUND)
      throw new InputRequiredFlowError(
        `Server "${env.server}" sent ${entries.length} input requests in one input_required round of ${ref.tool}, over parley's cap of ${MAX_INPUT_REQUESTS_PER_ROUND} (MAX_INPUT_REQUESTS_PER_ROUND); none was answered and the call was abandoned.`,
        'too-many-inputs',
      );
    const ctx: InputContext = { server: env.server, era: 'modern', revision: env.revision, signal: env.signal, call: ref };
    const answers = await env.paused(() =>
      Promise.all(entries.map(async ([key, entry]) => [key, await answer(env, key, entry, ctx)] as const)),
    );
    params = {
      name: ref.tool,
      arguments: args,
      inputResponses: Object.fromEntries(answers),
      ...(res.requestState !== undefined ? { requestState: res.requestState } : {}),
    };
  }
}

async function answer(env: MrtrEnv, key: string, entry: unknown, ctx: InputContext): Promise<unknown> {
  const e = (entry ?? {}) as { method?: unknown; params?: unknown };
  if (typeof e.method !== 'string')
    throw new InputRequiredFlowError(
      `Server "${env.server}" sent inputRequests.${key} without a method; each entry must be an embedded request ({method, params}).`,
      'invalid-input-request',
    );
  if (e.method === 'elicitation/create') return env.handlers.elicit((e.params ?? {}) as ElicitRequestParams, ctx);
  if (e.method === 'roots/list') return fileRootsOnly(await env.handlers.listRoots(ctx), env.server, env.log);
  if (e.method === 'sampling/createMessage' && env.handlers.sample) {
    // An inputResponses entry must be a CreateMessageResult: a declined or cancelled sampling request
    // cannot be sent back, so the call is abandoned (the server MUST NOT assume the client retries).
    const a = await env.handlers.sample(e.params ?? {}, ctx);
    if (a.action === 'accept') return a.result;
    throw new InputRequiredFlowError(
      `Server "${env.server}" asked for a model reply (sampling, inputRequests.${key}) and it was not given: ${a.reason}. The call was abandoned.`,
      'sampling-declined',
    );
  }
  throw new InputRequiredFlowError(
    `Server "${env.server}" asked for ${e.method} (inputRequests.${key}), which parley does not provide; only elicitation/create, roots/list${env.handlers.sample ? ' and sampling/createMessage' : ''} can be answered.`,
    'unsupported-input',
  );
}
