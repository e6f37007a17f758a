/**
 * Audit helper: writes broker steps to `Store.appendAudit`, with sensitive values replaced by
 * `REDACTED` before they reach the store (and listed in `redactKeys` so the store redacts again).
 * A failing store never breaks an elicitation: write errors are counted and dropped.
 *
 * Writes do not block the caller; {@link Auditor.settled} is the barrier the broker awaits before it
 * confirms an answer to a server, so every confirmed answer's rows are committed (durable against
 * SIGKILL) first. Stores commit appends in order, so waiting for the newest write covers every
 * earlier one. `defer: true` (the `request` row) lets a row wait for the next write's commit instead of
 * costing a commit of its own; it is still tracked, so `settled` covers it.
 * @module
 */
import { LRUCache } from 'lru-cache';
import { REDACTED } from '../store/types.js';
import type { AuditRecord, Store } from '../store/types.js';
import type { InputRequest } from './types.js';
import { redactUrlsInContent, redactUrlsInText } from './policy.js';

export type AuditKind = 'request' | 'repair' | 'policy' | 'answer' | 'cancelled' | 'error' | 'complete';

/** What a row says besides its request and kind: see {@link Auditor.write}. */
export interface AuditRowOptions {
  action?: string;
  /** ms; default: since the request was received */
  durationMs?: number;
  detail?: Record<string, unknown>;
  /** Fields of `detail.content` written as `[redacted]`. */
  sensitive?: string[];
  /** Committed with the next row rather than by a commit of its own. */
  defer?: boolean;
}

export function redact(content: Record<string, unknown> | undefined, keys: string[]): Record<string, unknown> | undefined {
  if (!content) return content;
  const out: Record<string, unknown> = { ...content };
  for (const k of keys) if (k in out) out[k] = REDACTED;
  return out;
}

/** Append option of rows nobody waits on (`request`): they ride along with the next commit (docs/store.md "Deferred rows"). */
const DEFER = { defer: true } as const;

export class Auditor {
  /** Number of audit writes the store refused. */
  failures = 0;
  /** Settles when the newest write so far has committed or failed (never rejects). */
  #last: Promise<void> = Promise.resolve();
  #pending = 0;
  constructor(
    private readonly store: Store | undefined,
    private readonly now: () => number,
  ) {}

  /** Whether writes go anywhere (a store is set); callers may skip building a record's detail when not. */
  get enabled(): boolean {
    return this.store !== undefined;
  }

  /**
   * Writes one row of `req`'s. `at` (epoch ms, default now) is when its step happened: its `ts`, and
   * with `durationMs` unset its duration since `req.receivedAt`, for a row held and written later.
   */
  write(req: Pick<InputRequest, 'id' | 'server' | 'scope' | 'receivedAt'>, kind: AuditKind, rest: AuditRowOptions = {}, at?: number): void {
    if (!this.store) return;
    const ts = at ?? this.now();
    const keys = rest.sensitive ?? [];
    const detail = rest.detail ? { ...rest.detail } : undefined;
    // Sensitive fields become `[redacted]`; URL credentials inside any kept value too (policy.ts).
    if (detail && typeof detail.content === 'object' && detail.content !== null)
      detail.content = redactUrlsInContent(redact(detail.content as Record<string, unknown>, keys)!);
    if (detail && typeof detail.message === 'string') detail.message = redactUrlsInText(detail.message);
    const rec: AuditRecord = {
      ts,
      scope: req.scope,
      server: req.server,
      kind,
      requestId: req.id,
      ...(rest.action !== undefined ? { action: rest.action } : {}),
      durationMs: rest.durationMs ?? Math.max(0, ts - req.receivedAt),
      ...(detail ? { detail } : {}),
      ...(keys.length ? { redactKeys: keys } : {}),
    };
    this.track(
      this.store.appendAudit(rec, rest.defer ? DEFER : undefined).then(undefined, (err: unknown) => {
        this.failures++;
        throw err;
      }),
    );
  }

  /**
   * Adds a store write (an append, a remembered answer) to what {@link settled} waits for. Its
   * rejection is swallowed here (the caller handles or counts it).
   */
  track(write: Promise<unknown>): void {
    this.#pending++;
    const w = write.then(
      () => void this.#pending--,
      () => void this.#pending--,
    );
    // Chained, so settled() also covers writes a multi-connection store commits out of order.
    this.#last = this.#last.then(() => w);
  }

  /**
   * Resolves when every write made so far has committed (or failed and been counted). Resolves at once
   * when nothing is in flight.
   */
  settled(): Promise<void> {
    return this.#pending === 0 ? Promise.resolve() : this.#last;
  }
}

/**
 * How many audit rows the events a server causes at will (requests refused before anyone was asked,
 * ignored completions, malformed messages) may add: `burst` at once per key, then one more per
 * `refillMs`. The events beyond it get no row; they are counted, and the count goes into the key's next
 * row (`detail.skipped`), so a flooding server cannot push the rows before it out of the log under the
 * retention cap (docs/store.md §Retention). At most `maxKeys` keys (default 10 000) are kept, the least
 * recently used dropped with its count.
 */
export class AuditBudget {
  readonly #buckets: LRUCache<string, { tokens: number; at: number; skipped: number }>;
  constructor(
    private readonly burst: number,
    private readonly refillMs: number,
    private readonly now: () => number,
    maxKeys = 10_000,
  ) {
    this.#buckets = new LRUCache({ max: maxKeys });
  }

  /** Whether `key` may have a row now (nothing is taken). */
  allows(key: string): boolean {
    return this.#bucket(key).tokens > 0;
  }

  /** Takes one row's place (none left: the row is written all the same); returns the events skipped since the key's last row. */
  take(key: string): number {
    const b = this.#bucket(key);
    b.tokens = Math.max(0, b.tokens - 1);
    const skipped = b.skipped;
    b.skipped = 0;
    return skipped;
  }

  /** Counts `n` (default 1) events of `key` that got no row. */
  skip(key: string, n = 1): void {
    this.#bucket(key).skipped += n;
  }

  #bucket(key: string): { tokens: number; at: number; skipped: number } {
    const now = this.now();
    let b = this.#buckets.get(key);
    if (!b) this.#buckets.set(key, (b = { tokens: this.burst, at: now, skipped: 0 }));
    const earned = Math.floor((now - b.at) / this.refillMs);
    if (earned > 0) {
      b.tokens = Math.min(this.burst, b.tokens + earned);
      b.at += earned * this.refillMs;
    }
    return b;
  }
}
