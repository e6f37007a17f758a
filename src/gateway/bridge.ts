/**
 * The elicitation bridge: the presenter of a gateway user's host. Every prompt the broker lets through
 * (policy applied, prefill proposed) is sent to the upstream call that caused it, found by the call tag
 * the host attributes (`src/host/servers/calls.ts`):
 *
 * - upstream client on a 2025 era that declared the prompt's mode → pushed `elicitation/create`
 *   related to the upstream `tools/call` (answer bound: {@link BridgeOptions.upstreamAnswerMs});
 * - upstream client on 2026-07-28 that declared the mode → the prompt is parked and the upstream call
 *   answered `input_required` (`./park.ts`);
 * - otherwise (the client cannot elicit in that mode, or the prompt cannot be attributed) → the
 *   fallback presenter: parley's console, or a headless presenter that fails at once.
 *
 * The broker validates whatever comes back before it goes downstream; an invalid answer is asked again
 * with its issues in the message (`InputRequestView.issues`, round > 1).
 * Spec: 2025-11-25 client/elicitation (modes, §User Interaction Model); 2026-07-28 basic/patterns/mrtr.
 * @module
 */
import type { ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult } from '@modelcontextprotocol/server';
import type { Presenter, PresenterAnswer, PresenterNotice, InputRequestView } from '../host/index.js';
import { UserInteractionRequiredError } from '../host/index.js';
import type { ConsoleWatch } from './hold.js';

/** Elicitation params as sent upstream. */
export type UpstreamElicitParams = ElicitRequestFormParams | ElicitRequestURLParams;

/** One upstream `tools/call` in progress (a 2025-era session's calls share one). */
export interface UpstreamCall {
  /**
   * The call's tag, passed to `host.callTool(…, { tag })`; prompts the host attributes to the call carry
   * it back in `InputRequestView.call.tag` (`src/host/servers/calls.ts`). The upstream session id (2025 eras)
   * or the parked call's id (2026-07-28).
   */
  readonly tag: string;
  /** Modes the upstream client declared for this request. */
  modes: { form: boolean; url: boolean };
  /** Upstream revision (defaults go into the schema only from 2025-11-25 on). */
  revision: string;
  /** Sends the prompt upstream and resolves with the client's answer (push or park). */
  ask(params: UpstreamElicitParams, signal: AbortSignal): Promise<ElicitResult>;
  /** Messages of prompts nobody could answer, reported in the tool result. */
  failures: string[];
  /** Told when a prompt of this call waits in the console (`./hold.ts`). */
  console?: ConsoleWatch;
  /**
   * 2025-11-25: tells the upstream client that the browser step of the URL-mode elicitation it was
   * sent as `elicitationId` is complete (`notifications/elicitation/complete`). Never throws.
   */
  complete?(elicitationId: string): void;
}

/**
 * Most URL-mode prompts one bridge remembers between the client's consent and the server's completion
 * (the broker's own registry keeps as many, `MAX_URL_ELICITATIONS`); over it the oldest is forgotten
 * and its completion, should it still come, is not relayed.
 */
export const MAX_AWAITED_COMPLETIONS = 1_000;

/**
 * One user's open upstream calls. The gateway's `tools/call` handler opens and closes them; the bridge
 * finds a prompt's call by the tag the prompt carries. One per user; no other state is shared.
 */
export class OpenCalls {
  readonly #byTag = new Map<string, UpstreamCall>();
  /** Registers `call` under its tag (replacing none: tags are unique per open call). */
  open(call: UpstreamCall): void {
    this.#byTag.set(call.tag, call);
  }
  /** Forgets `call` (a later call that reuses its tag is left alone). */
  close(call: UpstreamCall): void {
    if (this.#byTag.get(call.tag) === call) this.#byTag.delete(call.tag);
  }
  /** The open call with `tag`, if any. */
  get(tag: string | undefined): UpstreamCall | undefined {
    return tag === undefined ? undefined : this.#byTag.get(tag);
  }
  /** How many calls are open. */
  get size(): number {
    return this.#byTag.size;
  }
}

export interface BridgeOptions {
  /** The user's open upstream calls (opened and closed by the gateway's `tools/call` handler). */
  calls: OpenCalls;
  /** Used when the upstream client cannot answer: the console, or a headless presenter. */
  fallback: Presenter;
  /**
   * The user's cap on elicitations waiting for their client at once (pushed or parked), shared by all
   * of the user's sessions. Over it, a prompt is refused: the broker audits the failure and the
   * upstream tool result says which cap stopped it. @default no cap
   */
  cap?: { user: string; max: number; setting: string; pending: { n: number } };
}

/** A prompt refused because the user already has `max` elicitations waiting for their client. */
export class PendingCapError extends Error {
  override readonly name = 'PendingCapError';
  readonly code = 'PENDING_CAP';
}

/**
 * Builds the params sent upstream: the downstream server is named, prefill becomes defaults (from
 * 2025-11-25 on). The result shares the prompt's read-only schema; only properties that get a new
 * default are copied, so a form whose prefill is its own defaults costs no copy.
 */
export function upstreamParams(prompt: InputRequestView, revision: string): UpstreamElicitParams {
  const again = prompt.issues?.length ? `\n(The previous answer was not accepted: ${prompt.issues.map((i) => i.message).join('; ')})` : '';
  const message = `[${prompt.server}] ${prompt.message}${again}`;
  // elicitationId exists on 2025-11-25 only (removed in 2026-07-28).
  if (prompt.mode === 'url')
    return {
      mode: 'url',
      message,
      url: prompt.url!.full,
      ...(revision === '2025-11-25' ? { elicitationId: prompt.id } : {}),
    } as UpstreamElicitParams;
  const schema = (prompt.schema ?? { type: 'object', properties: {} }) as unknown as {
    properties: Record<string, Record<string, unknown>>;
  };
  let properties = schema.properties;
  if (revision >= '2025-11-25') {
    for (const [k, v] of Object.entries(prompt.prefill)) {
      const p = properties[k];
      if (!p || p.default === v || prompt.sensitiveFields.includes(k) || !fitsType(p, v)) continue;
      if (properties === schema.properties) properties = { ...properties };
      properties[k] = { ...p, default: v };
    }
  }
  const requestedSchema = properties === schema.properties ? schema : { ...schema, properties };
  return { mode: 'form', message, requestedSchema: requestedSchema as ElicitRequestFormParams['requestedSchema'] };
}

/** A default must have its property's type (a re-asked invalid answer is prefill too, and must not become one). */
function fitsType(p: Record<string, unknown>, v: unknown): boolean {
  if (Array.isArray(p.enum) && !p.enum.includes(v)) return false;
  if (p.type === 'string') return typeof v === 'string';
  if (p.type === 'number') return typeof v === 'number' && Number.isFinite(v);
  if (p.type === 'integer') return Number.isInteger(v);
  if (p.type === 'boolean') return typeof v === 'boolean';
  if (p.type === 'array') return Array.isArray(v) && v.every((x) => typeof x === 'string');
  return false;
}

/** An upstream `ElicitResult` as the broker's presenter answer (unknown actions become cancel). */
export function toAnswer(r: ElicitResult | undefined): PresenterAnswer {
  if (r?.action === 'accept') return { action: 'accept', content: (r.content ?? {}) as Record<string, unknown> };
  if (r?.action === 'decline') return { action: 'decline' };
  return { action: 'cancel' };
}

/**
 * The message for a prompt no client call in flight can answer: `message` ("…, but no person can answer
 * here.") said why, and what the server should do instead.
 */
function unmatched(message: string, prompt: InputRequestView): string {
  const why = prompt.call?.tag
    ? `it could not be matched to a client call in flight: the call "${prompt.call.tool}" it belongs to has ended (the client may have given up on it: cancelled, timed out or disconnected)`
    : 'it could not be matched to a client call in flight: it was not sent as part of one (no related request)';
  return `${message.replace(/\.$/, '')}: ${why}, and this gateway runs without a console. The server should ask only while handling the client's call (elicitation/create as a request related to it) and stop asking once that call is cancelled.`;
}

/** The presenter of one gateway user's host. */
export class BridgePresenter implements Presenter {
  readonly interactive = true;
  /** URL-mode prompts consented to upstream on 2025-11-25, by prompt id (= the upstream elicitationId), until completed. */
  readonly #awaitingCompletion = new Map<string, UpstreamCall>();
  /** How many of them each call tag has, so that a closing session without any costs one lookup. */
  readonly #awaitingPerTag = new Map<string, number>();
  /**
   * URL-mode prompts being asked upstream now, by prompt id: true once their server reported the
   * browser step complete before the client answered (relayed when it consents).
   */
  readonly #asking = new Map<string, boolean>();
  constructor(private readonly o: BridgeOptions) {}

  /**
   * Sampling prompts are shown only by the fallback (parley's console on a single-user gateway); they
   * are never sent upstream as elicitation. Without such a fallback the broker declines them.
   */
  get sampling(): boolean {
    return this.o.fallback.sampling === true;
  }

  async present(prompt: InputRequestView, signal: AbortSignal): Promise<PresenterAnswer> {
    if (prompt.sampling) return this.o.fallback.present(prompt, signal);
    const up = this.o.calls.get(prompt.call?.tag);
    if (up && up.modes[prompt.mode]) {
      const cap = this.o.cap;
      if (!cap) return this.#ask(up, prompt, signal);
      if (cap.pending.n >= cap.max) {
        const why = `server "${prompt.server}" asked for input, but user "${cap.user}" already has ${cap.pending.n} elicitations waiting for an answer, the cap (${cap.setting}); answer or cancel those first.`;
        up.failures.push(why);
        throw new PendingCapError(why);
      }
      cap.pending.n++;
      try {
        return await this.#ask(up, prompt, signal);
      } finally {
        cap.pending.n--;
      }
    }
    const watch = up && this.o.fallback.interactive ? up.console : undefined;
    watch?.opened(prompt);
    try {
      return await this.o.fallback.present(prompt, signal);
    } catch (e) {
      if (e instanceof UserInteractionRequiredError && up) {
        const why =
          up.modes.form || up.modes.url
            ? `the client did not declare ${prompt.mode}-mode elicitation`
            : 'the client did not declare elicitation';
        // One sentence: "…, but no person can answer here: the client did not declare …, and …".
        up.failures.push(`${e.message.replace(/\.$/, '')}: ${why}, and this gateway runs without a console.`);
      }
      // Not attributed to an upstream call: the downstream server gets this as the error of its request.
      if (e instanceof UserInteractionRequiredError && !up) e.message = unmatched(e.message, prompt);
      throw e;
    } finally {
      watch?.closed(prompt);
    }
  }

  /**
   * Sends the prompt upstream. A URL-mode prompt the client consents to on 2025-11-25 (sent with the
   * prompt's id as its elicitationId) waits for the server's completion, relayed by {@link notify}.
   */
  async #ask(up: UpstreamCall, prompt: InputRequestView, signal: AbortSignal): Promise<PresenterAnswer> {
    const relays = prompt.mode === 'url' && up.revision === '2025-11-25' && up.complete !== undefined;
    if (relays) this.#asking.set(prompt.id, false);
    let answer: PresenterAnswer;
    let completedEarly = false;
    try {
      answer = toAnswer(await up.ask(upstreamParams(prompt, up.revision), signal));
    } finally {
      completedEarly = this.#asking.get(prompt.id) === true;
      if (relays) this.#asking.delete(prompt.id);
    }
    if (answer.action === 'accept' && relays) {
      // The server reported the step complete while the client was still deciding: it hears it now.
      if (completedEarly) up.complete!(prompt.id);
      else {
        if (this.#awaitingCompletion.size >= MAX_AWAITED_COMPLETIONS) this.#forget(this.#awaitingCompletion.keys().next().value as string);
        this.#forget(prompt.id); // counted once per tag should the same prompt be consented twice
        this.#awaitingCompletion.set(prompt.id, up);
        this.#awaitingPerTag.set(up.tag, (this.#awaitingPerTag.get(up.tag) ?? 0) + 1);
      }
    }
    return answer;
  }

  /** How many consented URL-mode prompts wait for their server's completion (at most {@link MAX_AWAITED_COMPLETIONS}). */
  get awaitingCompletions(): number {
    return this.#awaitingCompletion.size;
  }

  /**
   * Forgets the prompts awaiting completion for the upstream calls tagged `tag` (a 2025-era session
   * whose transport closed): nobody is left to tell, and each would keep the closed session alive.
   */
  forgetCompletions(tag: string): void {
    if (!this.#awaitingPerTag.has(tag)) return;
    for (const [id, up] of this.#awaitingCompletion) if (up.tag === tag) this.#forget(id);
  }

  /** Forgets one prompt awaiting completion; returns its call. */
  #forget(id: string): UpstreamCall | undefined {
    const up = this.#awaitingCompletion.get(id);
    if (!up) return undefined;
    this.#awaitingCompletion.delete(id);
    const n = (this.#awaitingPerTag.get(up.tag) ?? 1) - 1;
    if (n > 0) this.#awaitingPerTag.set(up.tag, n);
    else this.#awaitingPerTag.delete(up.tag);
    return up;
  }

  notify(notice: PresenterNotice): void {
    // The server reports the browser step complete: the upstream client that consented hears it too,
    // under the elicitationId it was sent (client/elicitation §Completion Notifications).
    // Reported before the client answered: kept until it does (#ask).
    if (notice.kind === 'url-completed' && notice.requestId && this.#asking.has(notice.requestId)) this.#asking.set(notice.requestId, true);
    const up = notice.kind === 'url-completed' && notice.requestId ? this.#forget(notice.requestId) : undefined;
    up?.complete?.(notice.requestId!);
    this.o.fallback.notify(notice);
  }
}
