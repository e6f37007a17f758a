/**
 * The web console's {@link Presenter}: keeps pending prompts, pushes them to browsers, and resolves
 * each one when the person answers through the console's HTTP API. Answers are checked on the server
 * with the schema core (`coerceFormValues` then `validateContent`); an invalid answer leaves the
 * prompt open and returns per-field issues.
 *
 * Spec: 2025-11-25 `client/elicitation` §User Interaction Model (show the server, review before
 * sending, distinct decline and cancel), §Safe URL Handling, §Form Mode Security (clients SHOULD
 * validate responses against the schema).
 * @module
 */
import { coerceFormValues, validateContent, type Content, type Issue } from '../../schema/index.js';
import type {
  Presenter,
  PresenterAnswer,
  PresenterDecision,
  PresenterDecisionAnswer,
  PresenterNotice,
  InputRequestView,
} from '../../host/presenter.js';
import type { RememberScope } from '../../host/store/types.js';
import { issueField, promptPayload, type FieldView, type PromptPayload } from './fields.js';
import { isConnectionClosed, ServerStops } from '../server-stop.js';

/** What the presenter tells the console (and so the browsers). */
export type PresenterEvent =
  | { type: 'prompt'; payload: PromptPayload }
  /** `server-stopped`: the server's connection closed; one `server-stopped` notice follows for all its prompts closed together. */
  | { type: 'prompt-closed'; id: string; reason: 'answered' | 'aborted' | 'server-stopped'; action?: PresenterAnswer['action'] }
  | { type: 'notice'; notice: PresenterNotice & { ts: number } }
  /** A loaded preset filled an open form (`fields`: the filled ones), or could not (`reason`, for a person). */
  | { type: 'prompt-fill'; id: string; preset: string; fields: FieldView[]; reason?: string };

/** What loading a preset did to one open form ({@link WebPresenter.fillFromPreset}). */
export interface PresetFill {
  id: string;
  server: string;
  /** Fields given the preset's values. */
  filled: string[];
  /** Why nothing was filled, in words; absent when something was. */
  reason?: string;
}

/** Result of {@link WebPresenter.answer}; `status` maps to the HTTP status of the answer endpoint. */
export type AnswerOutcome =
  | { status: 200; action: PresenterAnswer['action'] }
  | { status: 404; message: string }
  | { status: 400; message: string; issues: Issue[] }
  | { status: 422; message: string; issues: Issue[] };

interface Pending {
  payload: PromptPayload;
  resolve: (a: PresenterAnswer) => void;
  cleanup: () => void;
}

const ACTIONS = new Set(['accept', 'decline', 'cancel']);
/** `'auto'` = remember always and answer automatically next time (for this server and form). */
const REMEMBER = new Set<string>(['once', 'session', 'always', 'auto']);
/** Cap on `masked` names in one answer (docs/console.md). */
export const MAX_MASKED_FIELDS = 100;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const issue = (path: string, code: string, message: string): Issue => ({ code, path, severity: 'error', message });

export interface WebPresenterOptions {
  /** Notices kept for browsers that connect later. @default 50 */
  maxNotices?: number;
  /** Clock, epoch ms. @default Date.now */
  now?: () => number;
}

export class WebPresenter implements Presenter {
  readonly interactive = true;
  /** Sampling requests are shown as a card with the conversation and a reply box (send / decline / cancel). */
  readonly sampling = true;
  private readonly pendingById = new Map<string, Pending>();
  private readonly listeners = new Set<(e: PresenterEvent) => void>();
  private readonly notices: Array<PresenterNotice & { ts: number }> = [];
  private readonly now: () => number;
  private readonly maxNotices: number;
  private readonly stops = new ServerStops((n) => this.notify(n));

  constructor(opts: WebPresenterOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.maxNotices = opts.maxNotices ?? 50;
  }

  /**
   * Adds a pending prompt and waits for the person's answer. On `signal` abort the prompt is removed,
   * browsers are told (the prompt closes) and the promise resolves `{action:'cancel'}` — the broker
   * ignores it, having aborted. A prompt id already pending is replaced (re-presented with issues).
   */
  present(prompt: InputRequestView, signal: AbortSignal, decision?: PromptPayload['decision']): Promise<PresenterAnswer> {
    // Same id again (a re-presented round): the old wait ends quietly; the page replaces the card.
    this.settle(prompt.id, { action: 'cancel' }, 'replaced');
    return new Promise<PresenterAnswer>((resolve) => {
      const onAbort = () => {
        if (!isConnectionClosed(signal.reason)) return this.settle(prompt.id, { action: 'cancel' }, 'aborted');
        if (this.pendingById.has(prompt.id)) this.stops.closed(prompt.server, prompt.id, prompt.message);
        this.settle(prompt.id, { action: 'cancel' }, 'server-stopped');
      };
      const payload = promptPayload(prompt, this.now());
      if (decision) payload.decision = decision;
      this.pendingById.set(prompt.id, { payload, resolve, cleanup: () => signal.removeEventListener('abort', onAbort) });
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.emit({ type: 'prompt', payload });
    });
  }

  /**
   * A host decision (retry or cancel after a `-32042` URL step) as a card among the pending requests:
   * Retry answers `'retry'`; Cancel, Esc or the signal (the host withdrew it) answer `'cancel'`.
   */
  async decide(d: PresenterDecision, signal: AbortSignal): Promise<PresenterDecisionAnswer> {
    const view: InputRequestView = {
      id: d.id,
      server: d.server,
      message: d.message,
      mode: 'form',
      schema: { type: 'object', properties: {} } as InputRequestView['schema'],
      prefill: {},
      prefillSources: {},
      repairs: [],
      warnings: [],
      sensitiveFields: [],
      round: 1,
      call: { tool: d.tool, callId: d.callId ?? d.id },
    };
    const a = await this.present(view, signal, { kind: d.kind, tool: d.tool, urls: d.urls });
    return a.action === 'accept' ? 'retry' : 'cancel';
  }

  notify(notice: PresenterNotice): void {
    try {
      if (this.stops.swallow(notice)) return;
      const n = { ...notice, ts: this.now() };
      this.notices.push(n);
      if (this.notices.length > this.maxNotices) this.notices.shift();
      this.emit({ type: 'notice', notice: n });
    } catch {
      // notify must not throw.
    }
  }

  /** Pending prompts, oldest first. */
  pending(): PromptPayload[] {
    return [...this.pendingById.values()].map((p) => p.payload);
  }

  /** Recent notices, oldest first. */
  recentNotices(): Array<PresenterNotice & { ts: number }> {
    return [...this.notices];
  }

  /** Subscribes to presenter events; returns the unsubscribe function. */
  on(listener: (e: PresenterEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Checks what the person typed so far. `field` limits the issues to that field (as they type).
   * @returns issues (empty when valid), or `undefined` when no such prompt is pending.
   */
  validate(id: string, raw: unknown, field?: string): Issue[] | undefined {
    const p = this.pendingById.get(id);
    if (!p) return undefined;
    const issues = this.check(p.payload.prompt, raw).issues;
    return field === undefined ? issues : issues.filter((i) => issueField(i) === field);
  }

  /**
   * Applies the person's answer `{action, content?, remember?, masked?}`. `masked` (accept in form mode
   * only) lists top-level property names of the prompt's form the person marked secret (at most
   * {@link MAX_MASKED_FIELDS}, no repeats); the broker redacts them from the audit and never remembers
   * them. A malformed `masked` → 400 naming the rule. Accept in form mode is coerced and
   * validated; invalid content → 422 and the prompt stays open. Decline and cancel never carry content.
   */
  answer(id: string, body: unknown): AnswerOutcome {
    const p = this.pendingById.get(id);
    if (!p) return { status: 404, message: `No pending prompt "${id}": it was answered, or the server withdrew it.` };
    if (!isRecord(body) || typeof body.action !== 'string' || !ACTIONS.has(body.action)) {
      return {
        status: 400,
        message:
          'The answer must be {"action": "accept" | "decline" | "cancel", "content"?: {...}, "remember"?: "once" | "session" | "always" | "auto"}.',
        issues: [issue('/action', 'action', 'action must be accept, decline or cancel')],
      };
    }
    if (body.remember !== undefined && !REMEMBER.has(body.remember as string)) {
      return {
        status: 400,
        message: 'remember must be "once", "session", "always" (prefill only) or "auto" (always; answer automatically next time).',
        issues: [issue('/remember', 'remember', 'remember must be once, session, always or auto')],
      };
    }
    const action = body.action as PresenterAnswer['action'];
    if (action !== 'accept') {
      this.settle(id, { action }, 'answered');
      return { status: 200, action };
    }
    const prompt = p.payload.prompt;
    if (prompt.mode === 'url') {
      this.settle(id, { action: 'accept' }, 'answered');
      return { status: 200, action };
    }
    const masked = maskedFields(prompt, body.masked);
    if ('error' in masked) return { status: 400, message: masked.error, issues: [issue('/masked', 'masked', masked.error)] };
    const checked = this.check(prompt, body.content ?? {});
    if (checked.issues.length > 0) return { status: 422, message: 'Some answers need fixing.', issues: checked.issues };
    const asked = p.payload.rememberable ? ((body.remember as RememberScope | 'auto' | undefined) ?? 'once') : 'once';
    const remember: RememberScope = asked === 'auto' ? 'always' : asked;
    this.settle(
      id,
      {
        action: 'accept',
        content: checked.value,
        remember,
        ...(asked === 'auto' ? { auto: true } : {}),
        ...(masked.names.length > 0 ? { masked: masked.names } : {}),
      },
      'answered',
    );
    return { status: 200, action };
  }

  /**
   * A preset was loaded while forms are open: each pending form takes the preset's answers for its
   * server (`answers[server]`), as a prefill would have: only fields of the form, never a sensitive one,
   * each value valid for its field on its own. The pending payload is updated (a browser that connects
   * later sees it) and browsers get `prompt-fill` (they fill the fields the person has not changed).
   * Sampling, sign-in, URL, configuration-input prompts and host decisions are left alone.
   * @returns one entry per form considered, with `reason` when nothing was filled.
   */
  fillFromPreset(preset: string, answers: Record<string, Record<string, unknown>>): PresetFill[] {
    const out: PresetFill[] = [];
    for (const p of this.pendingById.values()) {
      const prompt = p.payload.prompt;
      if (prompt.mode !== 'form' || !prompt.schema || prompt.sampling || prompt.signIn || prompt.configInput || p.payload.decision)
        continue;
      const given = answers[prompt.server];
      const props = prompt.schema.properties;
      const sensitive = new Set(prompt.sensitiveFields);
      const values: Record<string, unknown> = {};
      if (isRecord(given))
        for (const name of Object.keys(props)) {
          if (!Object.hasOwn(given, name) || sensitive.has(name)) continue;
          const one = { type: 'object', properties: { [name]: props[name] } } as NonNullable<InputRequestView['schema']>;
          if (validateContent(one, { [name]: given[name] }).ok) values[name] = given[name];
        }
      const filled = Object.keys(values);
      if (filled.length === 0) {
        const reason = isRecord(given)
          ? `The preset "${preset}" has answers for ${prompt.server}, but none fits a field of this form (${Object.keys(props).join(', ') || 'no fields'}).`
          : `The preset "${preset}" has no answers for ${prompt.server}; this form is as it was.`;
        out.push({ id: prompt.id, server: prompt.server, filled, reason });
        this.emit({ type: 'prompt-fill', id: prompt.id, preset, fields: [], reason });
        continue;
      }
      const next: InputRequestView = {
        ...prompt,
        prefill: { ...prompt.prefill, ...values } as Content,
        prefillSources: { ...prompt.prefillSources, ...Object.fromEntries(filled.map((f) => [f, `preset "${preset}"`])) },
      };
      const payload = promptPayload(next, p.payload.since);
      p.payload = payload;
      out.push({ id: prompt.id, server: prompt.server, filled });
      this.emit({ type: 'prompt-fill', id: prompt.id, preset, fields: payload.fields.filter((f) => filled.includes(f.name)) });
    }
    return out;
  }

  /** Resolves every pending prompt with cancel (the console is closing). */
  cancelAll(): void {
    for (const id of [...this.pendingById.keys()]) this.settle(id, { action: 'cancel' }, 'aborted');
  }

  private check(prompt: InputRequestView, raw: unknown): { value: Content; issues: Issue[] } {
    if (!prompt.schema) return { value: {}, issues: [] };
    if (!isRecord(raw)) return { value: {}, issues: [issue('', 'content', 'content must be an object of field values')] };
    const coerced = coerceFormValues(prompt.schema, raw);
    if (!coerced.ok) return { value: {}, issues: coerced.issues };
    const valid = validateContent(prompt.schema, coerced.value);
    return valid.ok ? { value: valid.value, issues: [] } : { value: coerced.value, issues: valid.issues };
  }

  private settle(id: string, answer: PresenterAnswer, reason: 'answered' | 'aborted' | 'server-stopped' | 'replaced'): void {
    const p = this.pendingById.get(id);
    if (!p) return;
    this.pendingById.delete(id);
    p.cleanup();
    p.resolve(answer);
    if (reason !== 'replaced')
      this.emit({ type: 'prompt-closed', id, reason, ...(reason === 'answered' ? { action: answer.action } : {}) });
  }

  private emit(e: PresenterEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // A failing listener must not break the presenter.
      }
    }
  }
}

/** Checks `masked`: absent, or an array of distinct top-level property names of the prompt's form. */
function maskedFields(prompt: InputRequestView, raw: unknown): { names: string[] } | { error: string } {
  if (raw === undefined) return { names: [] };
  const props = Object.keys(prompt.schema?.properties ?? {});
  const fix = `send "masked" as an array of field names of this form (${props.map((n) => JSON.stringify(n)).join(', ') || 'it has none'}), or leave it out`;
  if (!Array.isArray(raw)) return { error: `masked must be an array of field names: ${fix}.` };
  if (raw.length > MAX_MASKED_FIELDS) return { error: `masked lists ${raw.length} names; at most ${MAX_MASKED_FIELDS}: ${fix}.` };
  const seen = new Set<string>();
  for (const [i, n] of raw.entries()) {
    if (typeof n !== 'string' || !Object.hasOwn(prompt.schema?.properties ?? {}, n))
      return { error: `masked/${i} (${JSON.stringify(n)?.slice(0, 80)}) is not a field of this form: ${fix}.` };
    seen.add(n);
  }
  return { names: [...seen] };
}
