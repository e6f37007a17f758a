/**
 * OAuth sign-ins of the HTTP gateway's users (`gateway.oauth`, src/gateway/oauth.ts), for tenant
 * administrators (src/gateway/admin.ts): who signed in, when first and last, and until when their newest
 * token is valid; never a token. One row per (tenant, issuer, subject).
 *
 * `record` runs at a token's first use on a replica (and again after `SIGN_IN_RECHECK_MS`), as ONE upsert
 * whose update is conditional: a row revoked by an administrator refuses every token issued before the
 * revocation (`iat` ≤ `revoked_at`; a token without `iat`: its `exp` ≤ the newest expiry known when it was
 * revoked), and returns no row; a token issued later is a new sign-in (the revocation stays, so the old
 * tokens stay refused until they expire). `last_at` is when the newest token (the largest `exp`) was
 * first seen. Parameterised SQL only.
 * @module
 */
import type Database from 'better-sqlite3';
import { requireText } from './scope.js';
import type { OAuthSignIn, SignInUse } from './types.js';

/** Migration 7: OAuth sign-ins per (tenant, issuer, subject). */
export const SIGN_INS_MIGRATION = {
  version: 7,
  description: 'oauth_signins: OAuth sign-ins of gateway users (never tokens), and their revocation by a tenant administrator',
  sql: `
    CREATE TABLE oauth_signins (
      tenant        TEXT NOT NULL,
      issuer        TEXT NOT NULL,
      subject       TEXT NOT NULL,
      user          TEXT NOT NULL,
      first_at      INTEGER NOT NULL,
      last_at       INTEGER NOT NULL,
      expires_at    INTEGER,
      revoked_at    INTEGER,
      revoked_until INTEGER,
      PRIMARY KEY (tenant, issuer, subject)
    );
  `,
} as const;

/** SQLite text; `@iat` / `@exp` may be NULL. */
const RECORD_SQLITE = `
  INSERT INTO oauth_signins (tenant, issuer, subject, user, first_at, last_at, expires_at)
  VALUES (@tenant, @issuer, @subject, @user, @at, @at, @exp)
  ON CONFLICT (tenant, issuer, subject) DO UPDATE SET
    user = excluded.user,
    last_at = CASE WHEN excluded.expires_at > coalesce(oauth_signins.expires_at, -1) THEN excluded.last_at ELSE oauth_signins.last_at END,
    expires_at = max(coalesce(oauth_signins.expires_at, -1), coalesce(excluded.expires_at, -1))
  WHERE oauth_signins.revoked_at IS NULL
     OR (@iat IS NOT NULL AND @iat > oauth_signins.revoked_at)
     OR (@iat IS NULL AND @exp IS NOT NULL AND @exp > coalesce(oauth_signins.revoked_until, oauth_signins.revoked_at))
  RETURNING 1 AS ok`;

/** PostgreSQL text: $1 tenant, $2 issuer, $3 subject, $4 user, $5 at, $6 exp, $7 iat. */
export const RECORD_POSTGRES = `
  INSERT INTO oauth_signins (tenant, issuer, subject, "user", first_at, last_at, expires_at)
  VALUES ($1, $2, $3, $4, $5, $5, $6::bigint)
  ON CONFLICT (tenant, issuer, subject) DO UPDATE SET
    "user" = EXCLUDED."user",
    last_at = CASE WHEN EXCLUDED.expires_at > coalesce(oauth_signins.expires_at, -1) THEN EXCLUDED.last_at ELSE oauth_signins.last_at END,
    expires_at = GREATEST(coalesce(oauth_signins.expires_at, -1), coalesce(EXCLUDED.expires_at, -1))
  WHERE oauth_signins.revoked_at IS NULL
     OR ($7::bigint IS NOT NULL AND $7::bigint > oauth_signins.revoked_at)
     OR ($7::bigint IS NULL AND $6::bigint IS NOT NULL AND $6::bigint > coalesce(oauth_signins.revoked_until, oauth_signins.revoked_at))
  RETURNING 1 AS ok`;

/** $1 tenant, $2 subject, $3 at (the same text on both engines but for placeholders). */
export const REVOKE_POSTGRES = `UPDATE oauth_signins SET revoked_at = $3, revoked_until = expires_at WHERE tenant = $1 AND subject = $2`;
export const LIST_POSTGRES = `SELECT * FROM oauth_signins WHERE tenant = $1 ORDER BY last_at DESC, subject`;

export interface SignInRow {
  tenant: string;
  issuer: string;
  subject: string;
  user: string;
  first_at: number | string;
  last_at: number | string;
  expires_at: number | string | null;
  revoked_at: number | string | null;
}

/** A row as {@link OAuthSignIn} (PostgreSQL returns BIGINT as text). */
export function signInFromRow(r: SignInRow): OAuthSignIn {
  const n = (v: number | string | null) => (v === null ? undefined : Number(v));
  const expires = n(r.expires_at);
  const revoked = n(r.revoked_at);
  return {
    tenant: r.tenant,
    issuer: r.issuer,
    subject: r.subject,
    user: r.user,
    firstSignInAt: Number(r.first_at),
    lastSignInAt: Number(r.last_at),
    ...(expires !== undefined && expires >= 0 ? { tokenExpiresAt: expires } : {}),
    ...(revoked !== undefined ? { revokedAt: revoked } : {}),
  };
}

/** The statement's parameters, checked. @throws TypeError naming the field */
export function recordParams(u: SignInUse) {
  const what = 'recordSignIn';
  const ms = (v: number | undefined, field: string) => {
    if (v === undefined) return null;
    if (!Number.isFinite(v)) throw new TypeError(`${what}: ${field} must be epoch ms`);
    return Math.trunc(v);
  };
  return {
    tenant: requireText(u.tenant, 'tenant', what),
    issuer: requireText(u.issuer, 'issuer', what),
    subject: requireText(u.subject, 'subject', what),
    user: requireText(u.user, 'user', what),
    at: ms(u.at, 'at') as number,
    exp: ms(u.expiresAt, 'expiresAt'),
    iat: ms(u.issuedAt, 'issuedAt'),
  };
}

/** The SQLite statements on `db`. */
export function signInsTable(db: Database.Database) {
  const record = db.prepare(RECORD_SQLITE);
  const list = db.prepare('SELECT * FROM oauth_signins WHERE tenant = ? ORDER BY last_at DESC, subject');
  const revoke = db.prepare('UPDATE oauth_signins SET revoked_at = ?, revoked_until = expires_at WHERE tenant = ? AND subject = ?');
  return {
    record: (u: SignInUse): boolean => {
      const p = recordParams(u);
      if (!Number.isFinite(p.at)) throw new TypeError('recordSignIn: at must be epoch ms');
      return record.get(p) !== undefined;
    },
    list: (tenant: string): OAuthSignIn[] => (list.all(requireText(tenant, 'tenant', 'listSignIns')) as SignInRow[]).map(signInFromRow),
    revoke: (tenant: string, subject: string, at: number): boolean =>
      revoke.run(Math.trunc(at), requireText(tenant, 'tenant', 'revokeSignIn'), requireText(subject, 'subject', 'revokeSignIn')).changes >
      0,
  };
}
