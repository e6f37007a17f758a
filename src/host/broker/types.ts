/**
 * Types of the host's elicitation broker: the runtime-facing call (`elicit`), the one internal model
 * of an input request (pushed `elicitation/create` or an MRTR `inputRequests` entry), events and
 * options. Spec: MCP `client/elicitation` 2025-06-18, 2025-11-25, 2026-07-28.
 * @module
 */
import type { Content, RequestedSchema, Revision } from '../../schema/index.js';
import type { Scope } from '../store/types.js';

/**
 * Where a request comes from. Mirrors `InputContext` in `src/host/servers/handlers.ts` (same shape);
 * `scope` and `call` are optional additions the runtime may pass (defaults: the broker's scope, none).
 */
export interface InputContext {
  /** Server name as configured. */
  server: string;
  era: 'legacy' | 'modern';
  /** Negotiated protocol revision, e.g. `'2025-11-25'`. */
  revision: string;
  /** Aborts when the server cancels the request (legacy) or the call ends (modern). */
  signal: AbortSignal;
  /** Wire id of the pushed request (legacy) or the `inputRequests` key (modern). */
  requestId?: string | number;
  /** The person the answer belongs to. @default BrokerOptions.scope */
  scope?: Scope;
  /** The tool call this request belongs to, when known. */
  call?: { tool: string; callId: string };
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
export type ElicitRequestParams = ElicitFormParams | ElicitUrlParams;

/** The answer sent back: `ElicitResult`. URL-mode accept has no `content`. */
export interface ElicitAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

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
  call?: { tool: string; callId: string };
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
  | { type: 'url-completed'; server: string; elicitationId: string };

/** Why the broker declined without asking the person. */
export type RefusalReason = 'sensitive-field' | 'rate-limited' | 'pending-cap' | 'url-scheme' | 'url-invalid';

/** Bounds of every wait the broker owns, in ms. */
export interface BrokerTimeouts {
  /** Longest wait for the presenter's answer; then the request is answered `cancel`. @default 1800000 (30 min) */
  answerMs: number;
  /** Longest wait in {@link UrlElicitationRegistry.waitForCompletion}. @default 600000 (10 min) */
  urlCompletionMs: number;
}

export const DEFAULT_BROKER_TIMEOUTS: BrokerTimeouts = { answerMs: 30 * 60_000, urlCompletionMs: 10 * 60_000 };

/** Default prefill sources passed in by the runtime. */
export interface PrefillSources {
  /** `HostConfig.profile`: values by field name. */
  profile?: Record<string, unknown>;
  /** Active preset answers: `{ [server]: Content }` (`Preset.answers`). */
  presetAnswers?: Record<string, Content | Record<string, unknown>>;
}
