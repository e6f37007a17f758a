/**
 * The host's elicitation broker: one pipeline for a pushed `elicitation/create` (legacy eras) and an
 * MRTR `inputRequests` entry (2026-07-28). Steps, each audited: request → normalise/lint (repairs) →
 * policy (sensitive fields, rate limit, pending cap, URL checks) → prefill → presenter → validation →
 * answer. See docs/broker.md.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Issue, Repair, Revision } from '../../schema/index.js';
import type { InputVariableDef, PolicyDef } from '../config/types.js';
import type { Presenter, PresenterNotice, InputRequestView, UrlView, WarningDetail } from '../presenter.js';
import type { Scope, Store } from '../store/types.js';
import { ask, type AskOutcome } from './ask.js';
import { AuditBudget, Auditor, type AuditKind, type AuditRowOptions } from './audit.js';
import { DEFAULT_LIMITS, checkMessageLimits, excerpt, validateContent } from './core.js';
import { checkForm, type FormCheck } from './form-cache.js';
import { ElicitationCancelledError, InvalidElicitationError, describeIssues, describeIssuesForPeople } from './errors.js';
import { RateLimiter, checkUrl, escapeHidden, redactUrl, redactUrlsInContent, redactUrlsInText } from './policy.js';
import { buildPrefill, recallContent } from './prefill.js';
import { DEFAULT_POLICY } from '../config/policy.js';
import { DEFAULT_BROKER_TIMEOUTS, MAX_TIMER_MS } from './types.js';
import type { ElicitAnswer } from '../servers/handlers.js';
import type {
  BrokerElicitParams,
  BrokerEvent,
  BrokerInputContext,
  BrokerTimeouts,
  ElicitUrlParams,
  InputRequest,
  PrefillSources,
  RefusalReason,
} from './types.js';
import { UrlElicitationRegistry } from './urls.js';
import { samplingPrompt, samplingResult, samplingSchema } from './sampling.js';
import type { SampleAnswer } from '../servers/handlers.js';

type PendingOutcome = (BrokerEvent & { type: 'pending-removed' })['outcome'];
/** Forms whose last accepted answer the broker keeps in memory for {@link ElicitationBroker.recentAnswers}. */
export const RECENT_ANSWERS_MAX = 256;

export interface BrokerOptions {
  presenter: Presenter;
  /** Audit log and remembered answers. Without it nothing is audited or remembered. */
  store?: Store;
  /** Overrides of `DEFAULT_POLICY` (`src/host/config/policy.ts`). */
  policy?: Partial<PolicyDef>;
  /** Profile and preset answers, read at every request. */
  sources?: PrefillSources | (() => PrefillSources);
  /** Default person. @default {tenant:'default', user:'default', session:<random uuid per broker>} */
  scope?: Scope;
  /** Answer and URL-completion bounds, ms; each clamped to 2^31−1 (the longest timer). */
  timeouts?: Partial<BrokerTimeouts>;
  /** Presenter rounds for one request before an invalid answer ends as `cancel`. @default 3 */
  maxRounds?: number;
  /** Clock, epoch ms. @default Date.now */
  now?: () => number;
}

/** Maps a negotiated version to the revision whose elicitation rules apply. */
export function revisionOf(revision: string, era: 'legacy' | 'modern'): Revision {
  if (revision === '2025-06-18' || revision === '2025-11-25' || revision === '2026-07-28') return revision;
  if (era === 'modern') return '2026-07-28';
  return revision < '2025-06-18' ? '2025-06-18' : '2025-11-25';
}

/**
 * Ignored `notifications/elicitation/complete` (ids unknown or already completed) audited at once per
 * server; the bucket refills one per second, and the ignored ones not audited are counted in the next
 * row's `detail.skipped`. A server cannot fill the audit log by flooding completions for ids it never used.
 */
export const COMPLETE_AUDIT_BURST = 10;

/**
 * Requests refused before anyone was asked (invalid: -32602; declined by policy: rate limit, pending
 * cap, sensitive field, URL scheme, sampling) and malformed messages, audited and told to the person at
 * most this many at once per (tenant, user, server) and broker (so per process: each replica of a
 * gateway has its own), then one per {@link REFUSAL_AUDIT_REFILL_MS}. A request's rows are held until
 * it is admitted or refused; beyond the budget a refused one gets no rows and no notice and is only
 * counted, in the next refusal row's `detail.skipped` (docs/broker.md §Audit budget).
 */
export const REFUSAL_AUDIT_BURST = 20;
/** One more audited refusal per this many ms, per (tenant, user, server). */
export const REFUSAL_AUDIT_REFILL_MS = 6_000;

export class ElicitationBroker {
  readonly urls = new UrlElicitationRegistry();
  readonly policy: PolicyDef;
  readonly timeouts: BrokerTimeouts;
  private readonly audit: Auditor;
  private readonly limiter: RateLimiter;
  private readonly now: () => number;
  private readonly scope: Scope;
  private readonly listeners = new Set<(e: BrokerEvent) => void>();
  /** Requests waiting on a person, oldest first; and how many per server (the pending cap). */
  private readonly waiting = new Set<InputRequest>();
  private readonly waitingPerServer = new Map<string, number>();
  private seq = 0;
  /** Audit rows of ignored completions, per server. */
  private readonly completions: AuditBudget;
  /** Audit rows and notices of refused requests and malformed messages, per (tenant, user, server). */
  private readonly refusals: AuditBudget;
  /** Aborted by {@link close}: every wait on a person ends. */
  private readonly closing = new AbortController();

  constructor(private readonly opts: BrokerOptions) {
    this.policy = { ...DEFAULT_POLICY, urlSchemes: [...DEFAULT_POLICY.urlSchemes], ...opts.policy };
    // Clamped: a timer longer than 2^31-1 ms fires after 1 ms.
    const t = { ...DEFAULT_BROKER_TIMEOUTS, ...opts.timeouts };
    this.timeouts = { answerMs: Math.min(t.answerMs, MAX_TIMER_MS), urlCompletionMs: Math.min(t.urlCompletionMs, MAX_TIMER_MS) };
    this.now = opts.now ?? Date.now;
    this.scope = opts.scope ?? { tenant: 'default', user: 'default', session: randomUUID() };
    // Every prompt waiting on a person listens on it (ask.ts), bounded by the pending cap per server;
    // past ten Node printed a MaxListenersExceededWarning on stderr.
    setMaxListeners(0, this.closing.signal);
    this.audit = new Auditor(opts.store, this.now);
    this.limiter = new RateLimiter(this.policy, this.now);
    this.completions = new AuditBudget(COMPLETE_AUDIT_BURST, 1000, this.now);
    this.refusals = new AuditBudget(REFUSAL_AUDIT_BURST, REFUSAL_AUDIT_REFILL_MS, this.now);
    // Bound so the runtime may pass them detached: `{ elicit: broker.elicit, … }`.
    this.elicit = this.elicit.bind(this);
    this.elicitationComplete = this.elicitationComplete.bind(this);
    this.malformedMessage = this.malformedMessage.bind(this);
  }

  /** Subscribes to broker events; returns the unsubscribe function. */
  on(listener: (e: BrokerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Input requests waiting on a person, oldest first. */
  pending(server?: string): InputRequest[] {
    return [...this.waiting].filter((r) => server === undefined || r.server === server);
  }

  /**
   * Answers one elicitation. Resolves with `{action, content?}` (decline and cancel distinct; URL accept
   * without content). Rejects with {@link InvalidElicitationError} (-32602) for a request that cannot be
   * shown, {@link ElicitationCancelledError} when `ctx.signal` aborts, and `UserInteractionRequiredError`
   * from a headless presenter. Whatever it settles with waits until this request's audit rows and
   * remembered answer, and every earlier write, are committed: a confirmed answer survives a SIGKILL.
   */
  async elicit(params: BrokerElicitParams, ctx: BrokerInputContext): Promise<ElicitAnswer> {
    try {
      return await this.run(params, ctx);
    } finally {
      await this.audit.settled();
    }
  }

  /** One elicitation, top to bottom; the steps are those of docs/broker.md §Pipeline. */
  private async run(params: BrokerElicitParams, ctx: BrokerInputContext): Promise<ElicitAnswer> {
    // 1. The request, audited as received (its message bounded and URL credentials redacted).
    const revision = revisionOf(ctx.revision, ctx.era);
    const p = (params ?? {}) as Record<string, unknown>;
    const mode = p.mode === undefined ? 'form' : p.mode;
    const req: InputRequest = {
      id: `in-${++this.seq}`,
      server: ctx.server,
      era: ctx.era,
      revision,
      mode: mode === 'url' ? 'url' : 'form',
      message: typeof p.message === 'string' ? redactUrlsInText(excerpt(p.message, DEFAULT_LIMITS.messageChars)) : '',
      scope: ctx.scope ?? this.scope,
      receivedAt: this.now(),
    };
    if (ctx.call) req.call = ctx.call;
    if (ctx.requestId !== undefined) req.wireId = ctx.requestId;
    // Its rows are held until it is admitted (step 3), or refused: a server that keeps sending requests
    // parley refuses has only so many of them audited (rowsOf).
    const rows = this.rowsOf(req);
    rows.write('request', {
      defer: true, // committed with this request's next row (its answer, refusal or error)
      detail: {
        ...(ctx.sampling
          ? { method: 'sampling/createMessage', messages: ctx.sampling.messages.length, maxTokens: ctx.sampling.maxTokens }
          : {}),
        ...(ctx.configInput ? { source: 'config-input' } : {}),
        mode,
        message: req.message,
        wireId: ctx.requestId,
        era: ctx.era,
        revision,
        call: ctx.call,
        url: typeof p.url === 'string' ? redactUrl(excerpt(p.url, DEFAULT_LIMITS.urlChars)) : p.url,
        elicitationId: typeof p.elicitationId === 'string' ? excerpt(p.elicitationId) : p.elicitationId,
      },
    });
    try {
      return await this.steps(params, p, mode, req, rows, ctx);
    } catch (err) {
      rows.failed(err); // thrown before admission: the request's rows are kept, with the failure
      throw err;
    }
  }

  /** Steps 2 to 7 of {@link run} for `req`, whose `request` row is held in `rows`. */
  private async steps(
    params: BrokerElicitParams,
    p: Record<string, unknown>,
    mode: unknown,
    req: InputRequest,
    rows: RequestRows,
    ctx: BrokerInputContext,
  ): Promise<ElicitAnswer> {
    const revision = req.revision;
    // 2. Can it be shown? If not: -32602 naming the rule (never "decline": nobody was asked).
    if (typeof params !== 'object' || params === null || Array.isArray(params))
      throw this.invalid(
        rows,
        `elicitation/create params must be an object (got ${params === null ? 'null' : Array.isArray(params) ? 'an array' : typeof params}).`,
      );
    if (typeof p.message !== 'string') throw this.invalid(rows, 'elicitation/create params.message must be a string.');
    const tooLarge = checkMessageLimits(p);
    if (tooLarge.length) throw this.invalid(rows, `Request too large: ${describeIssues(tooLarge, 'params')}`, tooLarge);
    if (mode !== 'form' && mode !== 'url')
      throw this.invalid(rows, `elicitation/create params.mode must be "form" or "url", got ${JSON.stringify(mode)}.`);
    if (mode === 'url' && revision === '2025-06-18')
      throw this.invalid(rows, 'URL-mode elicitation does not exist on revision 2025-06-18.');
    let form: FormCheck | undefined;
    let sensitive: string[] = [];
    let repairs: Repair[] = [];
    let lint: Issue[] = [];
    if (req.mode === 'form') {
      form = checkForm(p.requestedSchema, revision); // normalise, lint, sensitive fields; cached per form
      const n = form.normalized;
      if (!n.ok) throw this.invalid(rows, `Cannot show the requested form: ${describeIssues(n.issues)}`, n.issues);
      req.requestedSchema = n.schema;
      repairs = n.repairs;
      lint = ctx.configInput ? [] : form.lint; // rules for servers, not for the host's own question
      if (repairs.length || lint.length) rows.write('repair', { detail: { repairs, lint } });
      sensitive = ctx.configInput ? ctx.configInput.sensitive : form.sensitive;
    } else {
      if (typeof p.url !== 'string') throw this.invalid(rows, 'URL-mode elicitation needs params.url (a string).');
      req.url = escapeHidden(redactUrl(p.url)); // never kept in clear (policy.ts)
      if (typeof p.elicitationId === 'string') req.elicitationId = p.elicitationId;
    }

    // 3. Policy: sensitive fields, pending cap, rate limit, then the URL's scheme and host.
    // The rate limit is taken from the store's shared bucket when it has one (PostgreSQL: every replica of
    // a gateway draws on it), else from the broker's own; the pending cap is checked again after that
    // wait, as other requests may have joined.
    const refusal = this.checkPolicy(req, ctx.configInput ? [] : sensitive) ?? (await this.takeRate(req)) ?? this.checkPending(req);
    if (refusal) return this.refuse(rows, refusal.reason, refusal.message, refusal.detail);
    let url: UrlView | undefined;
    let warnings: string[] = [];
    let details: WarningDetail[] = [];
    if (req.mode === 'url') {
      const u = checkUrl(p.url as string, this.policy);
      if (!u.ok) return this.refuse(rows, u.reason, u.message, { url: req.url });
      url = u.view;
      warnings = u.view.warnings.map((w) => `url:${w}`);
      details = u.view.warningDetails.map((d) => ({ code: `url:${d.code}`, text: d.text }));
      if (u.view.warnings.length) rows.write('policy', { action: 'warn', detail: { warnings: u.view.warnings, host: u.view.host } });
      if (req.elicitationId && !this.urls.add(req.server, req.elicitationId, req.id))
        rows.write('error', { detail: { reason: 'duplicate-elicitation-id', elicitationId: excerpt(req.elicitationId) } });
    } else if (sensitive.length) {
      warnings = sensitive.map((f) => `sensitive:${f}`);
      details = sensitive.map((f) => ({
        code: `sensitive:${f}`,
        text: `"${f}" looks like it asks for a secret: its value is masked, kept out of the audit log and never remembered.`,
      }));
      rows.write('policy', {
        action: this.policy.sensitiveFields === 'ask' || ctx.configInput ? 'warn' : 'allow',
        detail: { reason: 'sensitive-field', fields: sensitive },
      });
    }

    // From here the request waits on a person: it counts against the pending cap and is listed.
    rows.admit();
    this.waiting.add(req);
    this.waitingPerServer.set(req.server, (this.waitingPerServer.get(req.server) ?? 0) + 1);
    this.emit({ type: 'pending-added', request: req });
    let outcome: PendingOutcome = 'error';
    try {
      // 4. Prefill: remembered answer (the one store read), preset, profile, schema defaults.
      // Sampling replies are never prefilled; a configuration input only from its `default`.
      const recall = form && this.opts.store && !ctx.sampling && !ctx.configInput;
      const remembered = recall ? await recallContent(this.opts.store!, req.scope, req.server, form!) : undefined;
      const previous =
        form && ctx.call?.callId && !ctx.sampling && !ctx.configInput ? this.inCall.get(inCallKey(req, form.hash())) : undefined;
      const prefill =
        form && !ctx.sampling
          ? buildPrefill(req.requestedSchema!, req.server, remembered, ctx.configInput ? {} : this.sources(req), form, previous)
          : { values: {}, sources: {} };
      const prompt: InputRequestView = {
        id: req.id,
        server: req.server,
        message: req.message,
        mode: req.mode,
        repairs,
        lint,
        warnings,
        warningDetails: details,
        sensitiveFields: sensitive,
        round: 1,
      } as InputRequestView;
      if (ctx.call) prompt.call = ctx.call;
      if (req.requestedSchema) prompt.schema = req.requestedSchema;
      if (url) prompt.url = url;
      if (ctx.sampling) prompt.sampling = ctx.sampling;
      if (ctx.configInput) prompt.configInput = { id: ctx.configInput.id };
      prompt.prefill = prefill.values;
      prompt.prefillSources = prefill.sources;

      // An answer without a prompt: "answer automatically next time", or a non-interactive presenter's
      // complete prefill (`autoSubmitPrefill`).
      const presenter = this.opts.presenter;
      const autoRemembered = 'auto' in prefill && prefill.auto && sensitive.length === 0;
      if (
        req.mode === 'form' &&
        (autoRemembered || (!presenter.interactive && presenter.autoSubmitPrefill)) &&
        validateContent(req.requestedSchema!, prefill.values).ok
      ) {
        const source = autoRemembered ? 'remembered-auto' : 'auto-submit';
        this.audit.write(req, 'answer', {
          action: 'accept',
          detail: { content: prefill.values, source, sources: prefill.sources },
          sensitive,
        });
        if (autoRemembered) {
          this.notify({
            kind: 'auto-answered',
            server: req.server,
            requestId: req.id,
            message: `Answered ${req.server}'s "${req.message}" automatically with your remembered answer (forget it or set it to prefill only in the remembered answers).`,
          });
          this.keepRecent(req, prefill.values, form!.hash(), sensitive);
        }
        this.emit({ type: 'answered', id: req.id, server: req.server, action: 'accept' });
        outcome = 'accept';
        return { action: 'accept', content: prefill.values };
      }

      // 5 and 6. The presenter and validation rounds, until an answer, a server cancel, the answer
      // deadline or the broker's shutdown.
      let result: AskOutcome;
      try {
        const stops = { server: ctx.signal, shutdown: this.closing.signal, answerMs: this.timeouts.answerMs };
        result = await ask(presenter, prompt, req.requestedSchema, stops, this.opts.maxRounds ?? 3, this.now);
      } catch (err) {
        const e = err as { message?: unknown; code?: unknown } | undefined;
        this.audit.write(req, 'error', { detail: { reason: 'presenter', error: String(e?.message ?? err), code: e?.code } });
        throw err;
      }

      // 7. The response.
      if (result.kind === 'cancelled-by-server') {
        this.audit.write(req, 'cancelled', { durationMs: result.durationMs, detail: { reason: 'cancelled by server' } });
        this.notify({
          kind: 'cancelled-by-server',
          server: req.server,
          requestId: req.id,
          message: `${req.server} withdrew its request: "${req.message}"`,
        });
        outcome = 'cancelled-by-server';
        throw new ElicitationCancelledError(req.server, req.id);
      }
      if (result.kind !== 'answer') {
        const why =
          result.kind === 'invalid'
            ? `answer still invalid after ${result.rounds} rounds: ${describeIssuesForPeople(result.issues)}`
            : result.kind === 'timeout'
              ? `no answer within ${this.timeouts.answerMs} ms`
              : 'parley is shutting down';
        // The log keeps each rule and JSON pointer; the person's notice says it in words.
        const pointers = result.kind === 'invalid' ? { issues: describeIssues(result.issues) } : {};
        this.audit.write(req, 'error', {
          durationMs: result.durationMs,
          action: 'cancel',
          detail: { reason: result.kind, message: why, ...pointers },
        });
        this.notify({
          kind: result.kind === 'invalid' ? 'invalid-answer' : 'timeout',
          server: req.server,
          requestId: req.id,
          message: `Answered "cancel" to ${req.server}: ${why}.`,
        });
        this.settleUrl(req, 'cancel');
        outcome = 'cancel';
        this.emit({ type: 'answered', id: req.id, server: req.server, action: 'cancel' });
        return { action: 'cancel' };
      }
      const a = result.answer;
      const answer: ElicitAnswer =
        a.action !== 'accept'
          ? { action: a.action }
          : req.mode === 'url'
            ? { action: 'accept' }
            : { action: 'accept', content: a.content ?? {} };
      // Fields the person masked are treated like detected secrets: redacted and never remembered.
      if (a.action === 'accept' && Array.isArray(a.masked))
        sensitive = [...new Set([...sensitive, ...a.masked.filter((f): f is string => typeof f === 'string')])];
      if (answer.content && form && !ctx.sampling && !ctx.configInput) {
        if (a.action === 'accept' && a.remember && a.remember !== 'once' && this.opts.store)
          this.remember(req, answer.content, a.remember, form.hash(), sensitive, a.auto === true);
        this.keepRecent(req, answer.content, form.hash(), sensitive);
        // Not for a request only known to be "one of" several calls (callId ''): it names no one call.
        if (req.call?.callId) this.keepInCall(req, answer.content, form.hash(), sensitive);
      }
      this.audit.write(req, 'answer', {
        action: answer.action,
        durationMs: result.durationMs,
        detail: {
          rounds: result.rounds,
          remember: a.action === 'accept' ? a.remember : undefined,
          // Which kind of remembering (the RememberedAnswerEntry's `auto`): true = answer automatically
          // next time, false = prefill only. Only when something is remembered.
          ...(a.action === 'accept' && (a.remember === 'session' || a.remember === 'always') ? { auto: a.auto === true } : {}),
          ...(answer.content ? { content: answer.content } : {}),
        },
        sensitive,
      });
      this.settleUrl(req, answer.action);
      outcome = answer.action;
      this.emit({ type: 'answered', id: req.id, server: req.server, action: answer.action });
      return answer;
    } finally {
      this.waiting.delete(req);
      this.waitingPerServer.set(req.server, this.waitingPerServer.get(req.server)! - 1);
      this.emit({ type: 'pending-removed', id: req.id, outcome });
    }
  }

  /**
   * Answers one `sampling/createMessage` (docs/broker.md §Sampling): policy `sampling` ("ask": the
   * person writes the reply when the presenter can show sampling prompts, else declined; "decline"),
   * then the elicitation pipeline with a one-field form `reply` (rate limit, pending cap, answer
   * deadline `timeouts.answerMs` → `cancel`, cancellation with `ctx.signal`, audit rows with
   * `detail.method: 'sampling/createMessage'`; no prefill, never remembered).
   * @throws InvalidElicitationError (-32602) for malformed params, ElicitationCancelledError when
   * `ctx.signal` aborts, and what the presenter throws
   */
  async sample(params: unknown, ctx: BrokerInputContext): Promise<SampleAnswer> {
    const built = samplingPrompt(params, ctx.server);
    const req: InputRequest = {
      id: `in-${++this.seq}`,
      server: ctx.server,
      scope: ctx.scope ?? this.scope,
      receivedAt: this.now(),
      era: ctx.era,
      revision: revisionOf(ctx.revision, ctx.era),
      mode: 'form',
      message: '',
    };
    const rows = this.rowsOf(req);
    if ('error' in built) {
      rows.write('request', { detail: { method: 'sampling/createMessage', wireId: ctx.requestId, era: ctx.era, call: ctx.call } });
      throw this.invalid(rows, built.error);
    }
    const presenter = this.opts.presenter;
    const why = this.policy.sampling === 'decline' ? 'sampling-policy' : !presenter.sampling ? 'sampling-no-presenter' : undefined;
    if (why) {
      rows.write('request', {
        detail: {
          method: 'sampling/createMessage',
          wireId: ctx.requestId,
          era: ctx.era,
          call: ctx.call,
          messages: built.view.messages.length,
          maxTokens: built.view.maxTokens,
        },
      });
      const message =
        why === 'sampling-policy'
          ? `Declined: ${ctx.server} asked for a model reply (sampling); policy sampling is "decline".`
          : `Declined: ${ctx.server} asked for a model reply (sampling), and nobody here can write one (this presenter shows no sampling requests).`;
      this.refuse(rows, why, message, {});
      return { action: 'decline', reason: message };
    }
    const form = { mode: 'form' as const, message: built.message, requestedSchema: samplingSchema(built.view.maxTokens) };
    const a = await this.elicit(form, { ...ctx, sampling: built.view });
    if (a.action === 'accept' && typeof a.content?.reply === 'string') return { action: 'accept', result: samplingResult(a.content.reply) };
    if (a.action === 'accept') return { action: 'cancel', reason: 'the reply was empty' };
    return { action: a.action, reason: a.action === 'decline' ? 'the person declined' : 'the person cancelled, or no answer came in time' };
  }

  /**
   * Asks a person for one `${input:id}` value of the configuration (docs/config.md), at a server's first
   * start, through the pipeline: audited, bounded by `timeouts.answerMs`, a one-field form whose field
   * is named with the input's id (an enum for `pickString`, the input's `default` prefilled; the view's
   * `configInput` set). A `password` input is masked, redacted from the audit log; no input is ever
   * remembered, and as the host's own question it is not refused as a sensitive field. Resolves `undefined` when the person declines, cancels or does not answer in time.
   */
  async askInput(server: string, input: InputVariableDef, signal: AbortSignal = new AbortController().signal): Promise<string | undefined> {
    // The field is named after the input, so an answers file (`{"api-key": "…"}`), a headless error and
    // the form's label all say which input is meant when one server needs several.
    const value: Record<string, unknown> = { type: 'string' };
    if (input.description) value.description = input.description;
    if (input.type === 'pickString' && input.options?.length) value.enum = input.options;
    if (input.default !== undefined) value.default = input.default;
    const intro = `parley needs the configuration's input "${input.id}" to start ${server}`;
    const answer = await this.elicit(
      {
        mode: 'form',
        message: input.description ? `${intro}: ${input.description}` : `${intro}.`,
        requestedSchema: { type: 'object', properties: { [input.id]: value }, required: [input.id] },
      },
      {
        server,
        era: 'modern',
        revision: '2026-07-28',
        signal,
        configInput: { id: input.id, sensitive: input.password ? [input.id] : [] },
      },
    );
    const v = answer.action === 'accept' ? answer.content?.[input.id] : undefined;
    return typeof v === 'string' ? v : undefined;
  }

  /**
   * Ends every wait on a person: each waiting request is answered `cancel` (audited, reason
   * `shutdown`), and so is any request made afterwards. Idempotent.
   */
  close(): void {
    this.closing.abort(new Error('parley is shutting down'));
  }

  /** 2025-11-25 URL mode: records the person's decision on the request's `elicitationId`. */
  private settleUrl(req: InputRequest, action: ElicitAnswer['action']): void {
    if (req.mode === 'url' && req.elicitationId) this.urls.decide(req.server, req.elicitationId, action === 'accept');
  }

  /** Profile and preset answers for the prefill; a throwing `sources` is audited and counts as none. */
  private sources(req: InputRequest): PrefillSources {
    try {
      return typeof this.opts.sources === 'function' ? this.opts.sources() : (this.opts.sources ?? {});
    } catch (err) {
      this.audit.write(req, 'error', { detail: { reason: 'prefill-sources', error: String(err) } });
      return {};
    }
  }

  /**
   * A message from `server` that the transport could not pass on (see `InputHandlers.malformedMessage`):
   * audited (`error`, reason `malformed-message`), told to the person (`refused`, reason
   * `invalid-request`) within the budget of refusals ({@link REFUSAL_AUDIT_BURST}, else counted: as
   * `count` messages, default 1, for a summary of several), and emitted as a `refused` event.
   */
  malformedMessage(server: string, detail: string, count = 1): void {
    const rec = { id: `malformed-${++this.seq}`, server, scope: this.scope, receivedAt: this.now() };
    const message = `${server} sent ${detail}.`;
    const key = refusalKey(this.scope, server);
    if (this.refusals.allows(key)) {
      const skipped = this.refusals.take(key);
      this.audit.write(rec, 'error', { detail: { reason: 'malformed-message', message, ...(skipped ? { skipped } : {}) } });
      this.notify({ kind: 'refused', server, requestId: rec.id, reason: 'invalid-request', message });
    } else this.refusals.skip(key, count);
    this.emit({ type: 'refused', id: rec.id, server, reason: 'invalid-request', message });
  }

  /**
   * 2025-11-25 `notifications/elicitation/complete`. Unknown or already-completed ids are ignored,
   * audited at most {@link COMPLETE_AUDIT_BURST} at once per server; the audit keeps an excerpt of the id.
   */
  elicitationComplete(server: string, elicitationId: string): void {
    const r = this.urls.complete(server, elicitationId);
    const id = excerpt(elicitationId);
    let skipped = 0;
    if (r !== 'completed') {
      if (!this.completions.allows(server)) return this.completions.skip(server);
      skipped = this.completions.take(server);
    }
    const rec = { id: `complete-${id}`, server, scope: this.scope, receivedAt: this.now() };
    this.audit.write(rec, 'complete', {
      action: r === 'completed' ? 'completed' : 'ignored',
      detail: { elicitationId: id, result: r, ...(skipped ? { skipped } : {}) },
    });
    if (r !== 'completed') return;
    const requestId = this.urls.requestOf(server, elicitationId);
    this.emit({ type: 'url-completed', server, elicitationId, ...(requestId ? { requestId } : {}) });
    this.notify({
      kind: 'url-completed',
      server,
      ...(requestId ? { requestId } : {}),
      message: `${server} reports the browser step is complete.`,
    });
  }

  /**
   * The runtime's -32042 (`URLElicitationRequiredError`, 2025-11-25) path: asks consent for each listed
   * URL elicitation through the normal pipeline (in order; stops at the first non-accept). The runtime
   * then waits with {@link waitForUrlCompletion} and retries the original request.
   */
  async consentToUrlElicitations(
    elicitations: ElicitUrlParams[],
    ctx: BrokerInputContext,
  ): Promise<Array<{ elicitationId?: string; answer: ElicitAnswer }>> {
    const out: Array<{ elicitationId?: string; answer: ElicitAnswer }> = [];
    for (const e of elicitations) {
      const answer = await this.elicit({ ...e, mode: 'url' }, ctx);
      out.push({ ...(e.elicitationId !== undefined ? { elicitationId: e.elicitationId } : {}), answer });
      if (answer.action !== 'accept') break;
    }
    return out;
  }

  /** Waits for the completion notification; `false` after `timeoutMs` (default `timeouts.urlCompletionMs`) or abort. */
  waitForUrlCompletion(server: string, elicitationId: string, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<boolean> {
    return this.urls.waitForCompletion(server, elicitationId, opts.timeoutMs ?? this.timeouts.urlCompletionMs, opts.signal);
  }

  private checkPolicy(
    req: InputRequest,
    sensitive: string[],
  ): { reason: RefusalReason; message: string; detail: Record<string, unknown> } | undefined {
    if (sensitive.length && this.policy.sensitiveFields === 'decline')
      return {
        reason: 'sensitive-field',
        message: `Declined: ${req.server} asked in a form for ${sensitive.map((f) => `"${f}"`).join(', ')}, which look like secrets. Servers must use URL mode for credentials (policy sensitiveFields: "decline").`,
        detail: { fields: sensitive },
      };
    return this.checkPending(req);
  }

  private checkPending(req: InputRequest): { reason: RefusalReason; message: string; detail: Record<string, unknown> } | undefined {
    if (this.pendingCount(req.server) >= this.policy.maxPendingPerServer)
      return {
        reason: 'pending-cap',
        message: `Declined: ${req.server} already has ${this.policy.maxPendingPerServer} input requests waiting (policy maxPendingPerServer).`,
        detail: { pending: this.policy.maxPendingPerServer },
      };
    return undefined;
  }

  /**
   * One token of the (tenant, user, server) bucket: from the store when it counts them
   * (`Store.takeRateToken`, PostgreSQL: shared by every replica on the database), else from this broker's own.
   */
  private async takeRate(
    req: InputRequest,
  ): Promise<{ reason: RefusalReason; message: string; detail: Record<string, unknown> } | undefined> {
    const store = this.opts.store;
    const { burst, ratePerMinute } = this.policy;
    const ok = store?.takeRateToken
      ? await store.takeRateToken({ tenant: req.scope.tenant, user: req.scope.user, server: req.server, burst, ratePerMinute }, this.now())
      : this.limiter.take(req.server);
    if (ok) return undefined;
    return {
      reason: 'rate-limited',
      message: `Declined: ${req.server} sends input requests faster than ${ratePerMinute}/min (burst ${burst}).`,
      detail: { ratePerMinute, burst },
    };
  }

  /**
   * Audits a -32602 refusal of the request, tells the person which server sent a request parley could
   * not show (`notify` kind `refused`, reason `invalid-request`; event `refused`), and returns the
   * error to throw.
   */
  private invalid(rows: RequestRows, message: string, issues: InvalidElicitationError['issues'] = []): InvalidElicitationError {
    const { req } = rows;
    const told = `${req.server} sent a request parley could not show, and was answered with an error: ${message}`;
    const skipped = rows.refused();
    if (skipped !== undefined) {
      this.audit.write(req, 'error', { detail: { code: -32602, message, issues, ...(skipped ? { skipped } : {}) } });
      this.notify({ kind: 'refused', server: req.server, requestId: req.id, reason: 'invalid-request', message: told });
    }
    this.emit({ type: 'refused', id: req.id, server: req.server, reason: 'invalid-request', message: told });
    return new InvalidElicitationError(message, issues);
  }

  /**
   * The audit rows of `req`, held until it is admitted (then written) or refused: then written with
   * the refusal's row while its (tenant, user, server) is within its budget of audited refusals
   * ({@link REFUSAL_AUDIT_BURST}), else dropped and counted. Decided at the refusal, not on arrival,
   * so requests that arrive together are counted against the budget one by one.
   */
  private rowsOf(req: InputRequest): RequestRows {
    const key = refusalKey(req.scope, req.server);
    // Each held row with the time of its step: written later, it keeps its own `ts` and `durationMs`.
    let held: Array<[AuditKind, AuditRowOptions, number]> | undefined = [];
    const flush = () => {
      for (const [kind, rest, at] of held ?? []) this.audit.write(req, kind, rest, at);
      held = undefined;
    };
    const refused = () => {
      if (!this.refusals.allows(key)) {
        this.refusals.skip(key);
        held = undefined;
        return undefined;
      }
      flush();
      return this.refusals.take(key);
    };
    return {
      req,
      write: (kind, rest) => {
        if (held) held.push([kind, rest, this.now()]);
        else this.audit.write(req, kind, rest);
      },
      admit: flush,
      refused,
      failed: (err) => {
        if (!held) return; // admitted or refused: its rows are decided
        const skipped = refused();
        if (skipped !== undefined)
          this.audit.write(req, 'error', { detail: { reason: 'failed', error: String(err), ...(skipped ? { skipped } : {}) } });
      },
    };
  }

  private pendingCount(server: string): number {
    return this.waitingPerServer.get(server) ?? 0;
  }

  private refuse(rows: RequestRows, reason: RefusalReason, message: string, detail: Record<string, unknown>): ElicitAnswer {
    const { req } = rows;
    const skipped = rows.refused();
    if (skipped !== undefined) {
      this.audit.write(req, 'policy', { action: 'decline', detail: { reason, message, ...detail, ...(skipped ? { skipped } : {}) } });
      this.notify({ kind: 'refused', server: req.server, requestId: req.id, reason, message });
    }
    this.emit({ type: 'refused', id: req.id, server: req.server, reason, message });
    return { action: 'decline' };
  }

  private remember(
    req: InputRequest,
    content: Record<string, unknown>,
    remember: 'session' | 'always',
    hash: string,
    sensitive: string[],
    auto: boolean,
  ): void {
    const kept = redactUrlsInContent(Object.fromEntries(Object.entries(content).filter(([k]) => !sensitive.includes(k))));
    const scope: Scope = remember === 'always' ? { ...req.scope, session: null } : req.scope;
    const failed = (err: unknown) => this.audit.write(req, 'error', { detail: { reason: 'remember-failed', error: String(err) } });
    let write: Promise<void>;
    try {
      const store = this.opts.store!;
      // Then the mode ("answer automatically" or "prefill only") and the form's message, for the list of
      // remembered answers; a store without these columns keeps prefill-only answers.
      write = store
        .remember({ scope, server: req.server, schemaHash: hash, content: kept as never, remember, updatedAt: this.now() })
        .then(async () => {
          await store.setAnswerMode?.(req.scope, req.server, hash, auto && sensitive.length === 0, req.message);
        });
    } catch (err) {
      write = Promise.reject(err);
    }
    // The reply waits for it too (Auditor.settled), so the next request of this session recalls it.
    this.audit.track(write.catch(failed));
  }

  /**
   * Answers accepted in this process, per person and form (sensitive fields left out), newest last;
   * at most {@link RECENT_ANSWERS_MAX} forms. What "save current roots and answers" saves.
   */
  private readonly recent = new Map<string, { scope: Scope; server: string; content: Record<string, unknown> }>();

  private keepRecent(req: InputRequest, content: Record<string, unknown>, hash: string, sensitive: string[]): void {
    const key = `${req.scope.tenant}\0${req.scope.user}\0${req.scope.session ?? ''}\0${req.server}\0${hash}`;
    this.recent.delete(key);
    this.recent.set(key, {
      scope: req.scope,
      server: req.server,
      content: Object.fromEntries(Object.entries(content).filter(([k]) => !sensitive.includes(k))),
    });
    if (this.recent.size > RECENT_ANSWERS_MAX) this.recent.delete(this.recent.keys().next().value!);
  }

  /**
   * The last accepted answer (sensitive and masked fields left out) per person, server, form and tool
   * call: the prefill when the same call asks the same form again (the server refused the answer).
   * At most {@link RECENT_ANSWERS_MAX} entries, oldest dropped first.
   */
  private readonly inCall = new Map<string, Record<string, unknown>>();

  private keepInCall(req: InputRequest, content: Record<string, unknown>, hash: string, sensitive: string[]): void {
    const key = inCallKey(req, hash);
    this.inCall.delete(key);
    this.inCall.set(key, Object.fromEntries(Object.entries(content).filter(([k]) => !sensitive.includes(k))));
    if (this.inCall.size > RECENT_ANSWERS_MAX) this.inCall.delete(this.inCall.keys().next().value!);
  }

  /**
   * The non-sensitive answers accepted in this process for `scope` (tenant, user and session must
   * match), merged per server, the newer form's value winning per field: `{ [server]: Content }`.
   */
  recentAnswers(scope: Scope = this.scope): Record<string, Record<string, unknown>> {
    const out: Record<string, Record<string, unknown>> = {};
    for (const r of this.recent.values()) {
      if (r.scope.tenant !== scope.tenant || r.scope.user !== scope.user || r.scope.session !== scope.session) continue;
      out[r.server] = { ...out[r.server], ...r.content };
    }
    return out;
  }

  private notify(n: PresenterNotice): void {
    try {
      this.opts.presenter.notify(n);
    } catch {
      /* a presenter's notify must not break the broker */
    }
  }

  private emit(e: BrokerEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        /* listeners must not break the broker */
      }
    }
  }
}

/** The key of a refusal budget ({@link REFUSAL_AUDIT_BURST}): person and server. */
function refusalKey(scope: Scope, server: string): string {
  return `${scope.tenant}\0${scope.user}\0${server}`;
}

/** One request's audit rows until it is admitted ({@link ElicitationBroker.rowsOf}). */
interface RequestRows {
  readonly req: InputRequest;
  write(kind: AuditKind, rest: AuditRowOptions): void;
  /** The request passed every check: what was held is written, and later rows go straight out. */
  admit(): void;
  /**
   * The request was refused: writes what was held and returns the refusal row's `detail.skipped`
   * (refusals not audited since the last one), or `undefined` when this refusal gets no row or notice.
   */
  refused(): number | undefined;
  /**
   * Something threw before the request was admitted or refused (a store's rate-limit take failed): what
   * was held is written with an `error` row (reason `failed`), within the same budget as a refusal.
   * Nothing once the request was admitted or refused.
   */
  failed(err: unknown): void;
}

/** The key of {@link ElicitationBroker}'s in-call answers: person, server, form hash and tool call. */
function inCallKey(req: Pick<InputRequest, 'scope' | 'server' | 'call'>, hash: string): string {
  return `${req.scope.tenant}\0${req.scope.user}\0${req.scope.session ?? ''}\0${req.server}\0${hash}\0${req.call?.callId ?? ''}`;
}
