/**
 * The broker's rate limit counted in a PostgreSQL store, so every replica of a gateway draws on one
 * bucket per (tenant, user, server) instead of one bucket per process (docs/scaling.md). A token bucket of
 * capacity `burst` refilled at `ratePerMinute` tokens per 60 000 ms, as `RateLimiter` (src/host/broker/
 * policy.ts) keeps it in memory; here one row per bucket: `tokens` left after the last take and `at`,
 * the epoch ms of that take.
 *
 * A take is ONE statement (an upsert whose update is conditional, with `RETURNING`): PostgreSQL
 * serialises takes of one row with its row lock, so two replicas can never both pass on the last token.
 * Parameterised SQL only.
 *
 * A SQLite store has no `takeRateToken`: it is one machine's store, and a take there is a write
 * transaction of its own (a WAL commit on every elicitation, about 65 µs of host CPU in the bench's
 * 0.45 ms broker round trip), so the broker keeps the bucket in its memory (`RateLimiter`), one per
 * process: two processes sharing one SQLite file each allow `burst`. The table exists on both engines
 * (migration 6 is shared) and stays empty on SQLite.
 * @module
 */
import { requireText } from './scope.js';
import type { RateBucket } from './types.js';

/** Migration 6: one token bucket per (tenant, user, server). */
export const RATE_LIMITS_MIGRATION = {
  version: 6,
  description: 'rate_limits: the broker token bucket per (tenant, user, server), shared by every replica',
  sql: `
    CREATE TABLE rate_limits (
      tenant TEXT NOT NULL,
      user   TEXT NOT NULL,
      server TEXT NOT NULL,
      tokens REAL NOT NULL,
      at     INTEGER NOT NULL,
      PRIMARY KEY (tenant, user, server)
    );
  `,
} as const;

/**
 * The take, with positional parameters $1 tenant, $2 user, $3 server, $4 cap, $5 now, $6 perMs: inserts a
 * full bucket less one token, or refills the stored bucket for the time since `at` (never above `cap`)
 * and takes one token when at least one is there. A refused take changes nothing and returns no row.
 * `at` never moves backwards (replicas' clocks may differ by a little).
 */
export const TAKE_POSTGRES = `
  INSERT INTO rate_limits (tenant, "user", server, tokens, at) VALUES ($1, $2, $3, $4::double precision - 1, $5)
  ON CONFLICT (tenant, "user", server) DO UPDATE SET
    tokens = LEAST($4::double precision, rate_limits.tokens + GREATEST(0, $5::bigint - rate_limits.at) * $6::double precision) - 1,
    at = GREATEST(rate_limits.at, $5::bigint)
  WHERE LEAST($4::double precision, rate_limits.tokens + GREATEST(0, $5::bigint - rate_limits.at) * $6::double precision) >= 1
  RETURNING tokens`;

/** The statement's parameters, checked. @throws TypeError naming the field */
export function takeParams(b: RateBucket, now: number) {
  const what = 'takeRateToken';
  if (!Number.isFinite(b.burst) || !Number.isFinite(b.ratePerMinute) || b.ratePerMinute < 0)
    throw new TypeError(`${what}: burst and ratePerMinute must be finite numbers, ratePerMinute ≥ 0`);
  if (!Number.isFinite(now)) throw new TypeError(`${what}: now must be epoch ms`);
  return {
    tenant: requireText(b.tenant, 'tenant', what),
    user: requireText(b.user, 'user', what),
    server: requireText(b.server, 'server', what),
    cap: Math.max(1, b.burst),
    now: Math.trunc(now),
    perMs: b.ratePerMinute / 60_000,
  };
}
