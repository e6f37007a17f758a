/**
 * Audit helper: writes broker steps to `Store.appendAudit`, with sensitive values replaced by
 * `REDACTED` before they reach the store (and listed in `redactKeys` so the store redacts again).
 * A failing store never breaks an elicitation: write errors are counted and dropped.
 * @module
 */
import { REDACTED } from '../store/types.js';
import type { AuditRecord, Store } from '../store/types.js';
import type { InputRequest } from './types.js';
import { redactUrlsInContent, redactUrlsInText } from './policy.js';

export type AuditKind = 'request' | 'repair' | 'policy' | 'answer' | 'cancelled' | 'error' | 'complete';

export function redact(content: Record<string, unknown> | undefined, keys: string[]): Record<string, unknown> | undefined {
  if (!content) return content;
  const out: Record<string, unknown> = { ...content };
  for (const k of keys) if (k in out) out[k] = REDACTED;
  return out;
}

export class Auditor {
  /** Number of audit writes the store refused. */
  failures = 0;
  constructor(private readonly store: Store | undefined, private readonly now: () => number) {}

  /** Whether writes go anywhere (a store is set); callers may skip building a record's detail when not. */
  get enabled(): boolean {
    return this.store !== undefined;
  }

  write(req: Pick<InputRequest, 'id' | 'server' | 'scope' | 'receivedAt'>, kind: AuditKind, rest: { action?: string; durationMs?: number; detail?: Record<string, unknown>; sensitive?: string[] } = {}): void {
    if (!this.store) return;
    const keys = rest.sensitive ?? [];
    const detail = rest.detail ? { ...rest.detail } : undefined;
    // Sensitive fields become `[redacted]`; URL credentials inside any kept value too (policy.ts).
    if (detail && typeof detail.content === 'object' && detail.content !== null) detail.content = redactUrlsInContent(redact(detail.content as Record<string, unknown>, keys)!);
    if (detail && typeof detail.message === 'string') detail.message = redactUrlsInText(detail.message);
    const rec: AuditRecord = {
      ts: this.now(),
      scope: req.scope,
      server: req.server,
      kind,
      requestId: req.id,
      ...(rest.action !== undefined ? { action: rest.action } : {}),
      durationMs: rest.durationMs ?? Math.max(0, this.now() - req.receivedAt),
      ...(detail ? { detail } : {}),
      ...(keys.length ? { redactKeys: keys } : {}),
    };
    try {
      this.store.appendAudit(rec);
    } catch {
      this.failures++;
    }
  }
}
