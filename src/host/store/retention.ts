/**
 * The audit retention policy with its defaults (docs/store.md "Retention"), shared by both engines.
 * @module
 */
import type { AuditRetention } from './types.js';

/** Default maximum age of an audit row: 90 days, in ms. */
export const AUDIT_MAX_AGE_MS = 90 * 24 * 60 * 60 * 1000;
/** Default maximum number of audit rows kept. */
export const AUDIT_MAX_ROWS = 1_000_000;
/** Default enforcement interval while a store is open: 1 hour, in ms. */
export const AUDIT_RETENTION_INTERVAL_MS = 60 * 60 * 1000;

export type RetentionPolicy = Required<AuditRetention>;

/** Fills the defaults and checks the values. @throws TypeError naming the field. */
export function retentionPolicy(r: AuditRetention = {}): RetentionPolicy {
  const out = {
    maxAgeMs: r.maxAgeMs ?? AUDIT_MAX_AGE_MS,
    maxRows: r.maxRows ?? AUDIT_MAX_ROWS,
    intervalMs: r.intervalMs ?? AUDIT_RETENTION_INTERVAL_MS,
  };
  for (const [k, v] of Object.entries(out)) {
    if (!Number.isSafeInteger(v) || v < 0) throw new TypeError(`retention.${k} must be a non-negative integer (0 = off)`);
  }
  return out;
}
