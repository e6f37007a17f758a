/**
 * The presenter seam: how the host's elicitation broker shows a prompt to a person and gets an
 * answer back. `src/host` defines the interface; terminal, web and desktop UIs (in `src/ui`, `src/cli`)
 * implement it. Spec: MCP `client/elicitation` 2025-11-25 §User Interaction Model (server shown,
 * review before sending, decline and cancel always possible) and §Safe URL Handling.
 * @module
 */
import type { Content, Issue, Repair, RequestedSchema } from '../schema/index.js';
import type { RememberScope } from './store/types.js';

/** A URL-mode prompt's URL facts. The broker never fetches the URL. */
/** One warning: a stable code for machines and a sentence for the person. */
export interface WarningDetail {
  /** e.g. `'punycode'`, `'sensitive:apiKey'`. */
  code: string;
  /** What it means, for a person. */
  text: string;
}

export interface UrlView {
  /**
   * The full URL as received (show all of it before consent), except that user information is
   * replaced by `[redacted]@` and control, bidi and invisible characters are percent-encoded.
   */
  full: string;
  /** Host name to highlight (Unicode form when the host is Punycode). */
  host: string;
  /** Host as on the wire (ASCII/Punycode). */
  asciiHost: string;
  /** Warning codes: `'punycode'`, `'mixed-script'`, `'credentials-in-url'`, `'http-localhost'`, `'bidi-control'`, `'invisible-characters'`. */
  warnings: string[];
  /** The same warnings with their text for a person, in the same order (set by the broker). */
  warningDetails?: WarningDetail[];
}

/**
 * A server's `sampling/createMessage`, shown to a person who writes or approves the reply (the host has
 * no model of its own). The prompt carrying it is a form with one string field, `reply`.
 */
export interface SamplingView {
  /** The conversation, oldest first, each content rendered as text (non-text parts as `[image image/png]` etc.). */
  messages: Array<{ role: string; text: string }>;
  systemPrompt?: string;
  /** The most tokens the server asked for. */
  maxTokens: number;
  /** Model name hints of `modelPreferences.hints`. */
  modelHints: string[];
  /** Names of the tools the server offers the model (SEP-1577), if any. */
  tools: string[];
  /** Messages left out because the request had more than the display cap. */
  omittedMessages: number;
}

/** Everything a UI needs to render one input request. */
export interface InputRequestView {
  /** Broker-assigned request id. */
  id: string;
  /** Server name (MUST be shown: 2025-11-25 §User Interaction Model). */
  server: string;
  message: string;
  mode: 'form' | 'url';
  /** Normalised schema (form mode). `properties` empty = confirm-only prompt (accept/decline/cancel). */
  schema?: RequestedSchema;
  /** Proposed values; the person reviews and edits them. Never auto-submitted by the broker. */
  prefill: Content;
  /** Where each prefilled field came from: `'previous answer' | 'remembered' | 'preset' | 'profile' | 'default'`. */
  prefillSources: Record<string, string>;
  /** Repairs the liberal reader made to the server's schema. */
  repairs: Repair[];
  /** `lintRequestedSchema` findings on the schema as sent (for the negotiated revision). */
  lint?: Issue[];
  /** Policy warning codes, e.g. `'sensitive:apiKey'`, `'url:punycode'`. */
  warnings: string[];
  /** The same warnings with their text for a person (show these), in the same order. */
  warningDetails?: WarningDetail[];
  /** Names of fields whose values must be masked and are never remembered. */
  sensitiveFields: string[];
  url?: UrlView;
  /**
   * Set when this is a sign-in request (MCP authorization), not an elicitation: `mode` is `'url'`,
   * `url` is the authorization URL and `message` reads "*server* wants you to sign in at *issuer*".
   * The same consent rules as URL mode apply (show the full URL and its host; nothing opens without
   * consent). After `accept`, the person completes the sign-in in a browser and the host catches the
   * redirect on its loopback callback (docs/auth.md).
   */
  signIn?: { issuer: string; resource?: string; scope?: string };
  call?: { tool: string; callId: string; tag?: string };
  /**
   * Set when parley itself asks for a `${input:id}` of the configuration before it can start `server`
   * (not the server's elicitation): the form's one field is named `id`; the answer is used for this
   * process only and never remembered, so presenters offer no "remember" choice.
   */
  configInput?: { id: string };
  /** Set when the prompt is a sampling request: the form's one field `reply` is the model's answer. */
  sampling?: SamplingView;
  /** Issues of the previous answer when the prompt is re-presented (1-based `round` > 1). */
  issues?: Issue[];
  round: number;
}

/** The person's answer. */
export type PresenterAnswer =
  | {
      action: 'accept';
      content?: Record<string, unknown>;
      remember?: RememberScope;
      /**
       * With `remember` `'session'` or `'always'`: `true` = "answer automatically next time (for this
       * server and form)": the broker submits the remembered answer without asking while it stays
       * complete and valid; `false`/absent = "prefill only". Revocable in the list of remembered answers.
       */
      auto?: boolean;
      /** Fields the person chose to mask; like sensitive fields they are redacted from the audit log and never remembered. */
      masked?: string[];
    }
  | { action: 'decline' }
  | { action: 'cancel' };

/** Something the person should be told without being asked (refusals, server cancellations). */
export interface PresenterNotice {
  /**
   * `'auto-answered'`: a remembered answer marked "answer automatically" was sent without asking.
   * `'server-stopped'`: the server exited (its connection closed) while requests of it waited; said once
   * for all of them by the presenters (src/ui/server-stop.ts).
   */
  kind: 'refused' | 'cancelled-by-server' | 'url-completed' | 'timeout' | 'invalid-answer' | 'auto-answered' | 'server-stopped';
  server: string;
  /** The request the notice is about (for `'url-completed'`: the request that carried the elicitationId). */
  requestId?: string;
  message: string;
  reason?: string;
}

/**
 * A question the host itself puts to the person (not a server's elicitation). `'url-retry'`: a
 * 2025-11-25 `-32042` URL elicitation was consented to and the browser step has not been reported
 * complete (`notifications/elicitation/complete`); the person chooses to retry the tool call now
 * or to cancel it. When the completion arrives first, the host aborts the decision's signal and retries.
 */
export interface PresenterDecision {
  /** Unique id (for UIs that list pending questions). */
  id: string;
  kind: 'url-retry';
  server: string;
  /** The tool call that needs the browser step. */
  tool: string;
  /** That call's id: the `call.callId` its consent prompts carried, so one call shows one id. */
  callId?: string;
  message: string;
  /** The URLs the person consented to open. */
  urls: string[];
  /** 1-based retry round (bounded by the host's `MAX_URL_ROUNDS`). */
  round: number;
}

/** The person's choice on a {@link PresenterDecision}. */
export type PresenterDecisionAnswer = 'retry' | 'cancel';

export interface Presenter {
  /** `false` for automation (scripted answers, CI). */
  readonly interactive: boolean;
  /**
   * When `interactive` is false and this is true, the broker may answer `accept` with a complete,
   * valid prefill without calling {@link present}.
   */
  readonly autoSubmitPrefill?: boolean;
  /**
   * This presenter can show sampling prompts ({@link InputRequestView.sampling}). Without it, policy
   * `sampling: "ask"` declines sampling requests (nobody could write the reply). @default false
   */
  readonly sampling?: boolean;
  /**
   * Shows the prompt and resolves with the answer. Must settle (or reject) soon after `signal` aborts:
   * the server cancelled, or the broker's answer timeout fired.
   * @throws UserInteractionRequiredError when no person can be asked.
   */
  present(prompt: InputRequestView, signal: AbortSignal): Promise<PresenterAnswer>;
  /** Fire-and-forget notice; must not throw. */
  notify(notice: PresenterNotice): void;
  /**
   * Optional: asks the person a host decision (retry or cancel after a `-32042` URL step). Must settle
   * `'cancel'` soon after `signal` aborts. Presenters without it (headless, scripted) get the host's
   * fixed behaviour: wait up to `urlCompleteWaitMs` for the completion, then retry once.
   */
  decide?(decision: PresenterDecision, signal: AbortSignal): Promise<PresenterDecisionAnswer>;
}

/** Thrown where an answer needs a person and none can be asked (headless runs). */
export class UserInteractionRequiredError extends Error {
  readonly code = 'USER_INTERACTION_REQUIRED';
  private static describe(prompt: InputRequestView): string {
    if (prompt.signIn) {
      return `sign-in required for ${prompt.server} (at ${prompt.signIn.issuer}), but no person can sign in here.`;
    }
    if (prompt.configInput) {
      return `parley needs the configuration's input "${prompt.configInput.id}" to start ${prompt.server}, but no person can answer here.`;
    }
    const fields = prompt.schema ? Object.keys(prompt.schema.properties) : [];
    const what =
      prompt.mode === 'url' ? `consent to open ${prompt.url?.full}` : fields.length ? `fields ${fields.join(', ')}` : 'a confirmation';
    // Surface-neutral: each surface (the CLI, the gateway) says how to supply answers there.
    return `Server "${prompt.server}" asks for ${what} ("${prompt.message}"), but no person can answer here.`;
  }
  constructor(readonly prompt: InputRequestView) {
    super(UserInteractionRequiredError.describe(prompt));
    this.name = 'UserInteractionRequiredError';
  }
}

/** A presenter for headless runs: every `present` rejects at once with {@link UserInteractionRequiredError}. */
export class HeadlessPresenter implements Presenter {
  readonly interactive = false;
  readonly notices: PresenterNotice[] = [];
  constructor(readonly autoSubmitPrefill = false) {}
  present(prompt: InputRequestView): Promise<PresenterAnswer> {
    return Promise.reject(new UserInteractionRequiredError(prompt));
  }
  notify(notice: PresenterNotice): void {
    this.notices.push(notice);
  }
}

/**
 * Answers of `--answers <file>`: either field values for every server (`{"<field>": value}`) or
 * per server (`{"<server>": {"<field>": value}}`); `"$decline"` / `"$cancel"` in place of an object
 * (or as the whole file) answer that way. URL-mode consent needs `"$consent": true` at the same level;
 * without it URL prompts are declined.
 */
export type AnswersFile = Record<string, unknown> | '$decline' | '$cancel';

/** One scripted step: a fixed answer or a function of the prompt. */
export type ScriptStep = PresenterAnswer | ((prompt: InputRequestView, signal: AbortSignal) => PresenterAnswer | Promise<PresenterAnswer>);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Resolves one prompt against an {@link AnswersFile}. Server keys win over field keys of the same name. */
export function answerFromFile(file: AnswersFile, prompt: InputRequestView): PresenterAnswer {
  let level: unknown = file;
  if (isRecord(file) && prompt.server in file && (isRecord(file[prompt.server]) || typeof file[prompt.server] === 'string'))
    level = file[prompt.server];
  if (level === '$decline') return { action: 'decline' };
  if (level === '$cancel') return { action: 'cancel' };
  const values = isRecord(level) ? level : {};
  if (prompt.mode === 'url') return values.$consent === true ? { action: 'accept' } : { action: 'decline' };
  const content: Record<string, unknown> = { ...prompt.prefill };
  for (const name of Object.keys(prompt.schema?.properties ?? {})) if (name in values) content[name] = values[name];
  return { action: 'accept', content };
}

/**
 * A non-interactive presenter for tests and automation. Given a list, each `present` takes the next
 * step; given an {@link AnswersFile}, every prompt is answered from it. When the list is exhausted
 * `present` rejects with {@link UserInteractionRequiredError} (never hangs).
 */
export class ScriptedPresenter implements Presenter {
  readonly interactive = false;
  /** Sampling prompts are answered like forms: `{"reply": "…"}` (or a step). */
  readonly sampling = true;
  readonly prompts: InputRequestView[] = [];
  readonly notices: PresenterNotice[] = [];
  readonly autoSubmitPrefill: boolean;
  private readonly steps: ScriptStep[] | undefined;
  private readonly file: AnswersFile | undefined;

  /** @param source a list of steps, or an answers file. @param opts.autoSubmitPrefill default false. */
  constructor(source: ScriptStep[] | AnswersFile, opts: { autoSubmitPrefill?: boolean } = {}) {
    if (Array.isArray(source)) this.steps = [...source];
    else this.file = source;
    this.autoSubmitPrefill = opts.autoSubmitPrefill ?? false;
  }

  async present(prompt: InputRequestView, signal: AbortSignal): Promise<PresenterAnswer> {
    this.prompts.push(prompt);
    if (this.file !== undefined) return answerFromFile(this.file, prompt);
    const step = this.steps!.shift();
    if (step === undefined) throw new UserInteractionRequiredError(prompt);
    return typeof step === 'function' ? step(prompt, signal) : step;
  }

  notify(notice: PresenterNotice): void {
    this.notices.push(notice);
  }
}
