/**
 * Types of the host's elicitation broker: the runtime-facing call (`elicit`), the one internal model
 * of an input request (pushed `elicitation/create` or an MRTR `inputRequests` entry), events and
 * options. Spec: MCP `client/elicitation` 2025-06-18, 2025-11-25, 2026-07-28.
 * @module
 */
import type { Content, RequestedSchema, Revision } from '../../schema/index.js';
import type { InputContext } from '../servers/handlers.js';
import type { Scope } from '../store/types.js';
import type { SamplingView } from '../presenter.js';

/**
 * Where a request comes from: the runtime's {@link InputContext} (`src/host/servers/handlers.ts`) plus
 * the person it belongs to (`scope`, default: the broker's scope), and the broker's own marks.
 */
export interface BrokerInputContext extends InputContext {
  /** The person the answer belongs to. @default BrokerOptions.scope */
  scope?: Scope;
  /** The tool call this request belongs to, when known. */
  call?: { tool: string; callId: string; tag?: string };
  /** Set by `ElicitationBroker.sample`: the form is a sampling request's reply (no prefill, never remembered). */
  sampling?: SamplingView;
  /**
   * Set by `ElicitationBroker.askInput`: the form asks for a `${input:…}` value of the configuration (the
   * host's own question: never refused as sensitive, never remembered); `id` is the input's id (the form's
   * one field), `sensitive` lists the masked fields.
   */
  configInput?: { id: string; sensitive: string[] };
}

/** Form-mode params (`mode` may be omitted: treated as form on every revision). */
export interface ElicitFormParams {
  mode?: 'form';
  message: string;
  requestedSchema: unknown;
  [k: string]: unknown;
}
/** URL-mode params; `elicitationId` exists on 2025-11-25 only. */
export interface ElicitUrlParams {
  mode: 'url';
  message: string;
  url: string;
  elicitationId?: string;
  [k: string]: unknown;
}
/** `elicitation/create` params as received (read liberally: the SDK's `ElicitRequestParams` is assignable). */
export type BrokerElicitParams = ElicitFormParams | ElicitUrlParams;

/** The broker's one model of an input request. */
export interface InputRequest {
  /** Broker-assigned, unique per broker (`'in-<n>'`). */
  id: string;
  server: string;
  era: 'legacy' | 'modern';
  revision: Revision;
  mode: 'form' | 'url';
  message: string;
  /** Normalised schema (form mode). */
  requestedSchema?: RequestedSchema;
  url?: string;
  elicitationId?: string;
  scope: Scope;
  call?: { tool: string; callId: string; tag?: string };
  /** Wire id or `inputRequests` key, for correlation in logs. */
  wireId?: string | number;
  /** Epoch ms. */
  receivedAt: number;
}

/** Typed events for UIs. */
export type BrokerEvent =
  | { type: 'pending-added'; request: InputRequest }
  | { type: 'pending-removed'; id: string; outcome: 'accept' | 'decline' | 'cancel' | 'cancelled-by-server' | 'error' }
  | { type: 'answered'; id: string; server: string; action: 'accept' | 'decline' | 'cancel' }
  | { type: 'refused'; id: string; server: string; reason: RefusalReason; message: string }
  | { type: 'url-completed'; server: string; elicitationId: string /** The request that carried the id. */; requestId?: string };

/** Why the broker declined without asking the person. */
export type RefusalReason =
  | 'sensitive-field'
  | 'rate-limited'
  | 'pending-cap'
  | 'url-scheme'
  | 'url-invalid'
  | 'sampling-policy'
  | 'sampling-no-presenter'
  | 'invalid-request';

/** Bounds of every wait the broker owns, in ms. */
export interface BrokerTimeouts {
  /** Longest wait for the presenter's answer; then the request is answered `cancel`. @default 1800000 (30 min) */
  answerMs: number;
  /** Longest wait in {@link UrlElicitationRegistry.waitForCompletion}. @default 600000 (10 min) */
  urlCompletionMs: number;
}

/** Longest delay a Node timer takes, ms (2^31−1, ~24.8 days); a longer one fires after 1 ms. Broker bounds are clamped to it. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const DEFAULT_BROKER_TIMEOUTS: BrokerTimeouts = { answerMs: 30 * 60_000, urlCompletionMs: 10 * 60_000 };

/** Default prefill sources passed in by the runtime. */
export interface PrefillSources {
  /** `HostConfig.profile`: values by field name. */
  profile?: Record<string, unknown>;
  /** Active preset answers: `{ [server]: Content }` (`Preset.answers`). */
  presetAnswers?: Record<string, Content | Record<string, unknown>>;
}
