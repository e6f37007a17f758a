/**
 * Restart policy after a crash or a failed start: capped exponential backoff.
 * delay(attempt) = min(capMs, baseMs × factor^(attempt−1)), attempt ≥ 1. With the defaults:
 * 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000 ms; after `maxAttempts` failures in a row the
 * server stays in `error` with no `nextRetryAt` until `start()` is called again. The attempt counter
 * resets when a server had been running for at least `stableMs` before it crashed.
 * @module
 */
export interface RestartPolicy {
  /** First delay, ms. @default 500 */
  baseMs: number;
  /** Multiplier per attempt. @default 2 */
  factor: number;
  /** Largest delay, ms. @default 30000 */
  capMs: number;
  /** Consecutive failures before giving up. @default 8 */
  maxAttempts: number;
  /** Uptime after which a crash counts as the first failure again, ms. @default 60000 */
  stableMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { baseMs: 500, factor: 2, capMs: 30_000, maxAttempts: 8, stableMs: 60_000 };

/** Delay before restart number `attempt` (1-based), in ms. */
export function backoffDelay(attempt: number, p: RestartPolicy = DEFAULT_RESTART_POLICY): number {
  return Math.min(p.capMs, p.baseMs * p.factor ** Math.max(0, attempt - 1));
}
