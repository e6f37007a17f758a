/**
 * What the SQLite and PostgreSQL credential tables share (`sqlite-credentials.ts`,
 * `postgres-credentials.ts`): the row's columns, its summary, and sealing the secret part to its row.
 * @module
 */
import type { CredentialKey, CredentialSecrets, CredentialSummary } from './credential-store.js';
import { open, seal } from './secret.js';

/**
 * A row of `oauth_credentials` as a driver returns it: epoch-ms columns come back as numbers (SQLite) or
 * strings (PostgreSQL BIGINT), `refreshable` as 0/1 (SQLite) or a boolean (PostgreSQL).
 */
export interface CredentialRow {
  tenant: string;
  user: string;
  server: string;
  url: string;
  issuer: string | null;
  scope: string | null;
  expires_at: number | string | null;
  refreshable: number | boolean;
  updated_at: number | string;
  secrets: string;
}

/** Additional data of the seal: the row key, so a value copied to another row does not open. */
const aad = (k: CredentialKey) => JSON.stringify(['parley-oauth-v1', k.tenant, k.user, k.server]);

/** The summary columns of a row (no secret). */
export function summaryOf(r: CredentialRow): CredentialSummary {
  return {
    tenant: r.tenant,
    user: r.user,
    server: r.server,
    url: r.url,
    ...(r.issuer !== null ? { issuer: r.issuer } : {}),
    ...(r.scope !== null ? { scope: r.scope } : {}),
    ...(r.expires_at !== null ? { expiresAt: Number(r.expires_at) } : {}),
    refreshable: r.refreshable === true || r.refreshable === 1,
    updatedAt: Number(r.updated_at),
  };
}

/** `secrets` sealed with AES-256-GCM under `key`, bound to the row `k`. */
export function sealSecrets(key: Buffer, k: CredentialKey, secrets: CredentialSecrets): string {
  return seal(key, JSON.stringify(secrets), aad(k));
}

/**
 * The secrets of row `r`, or `undefined` (logged without content) when they do not open with `key`: the key
 * changed or the row was altered; the next sign-in replaces it.
 */
export function openSecrets(key: Buffer, r: CredentialRow, log?: (level: 'warn', message: string) => void): CredentialSecrets | undefined {
  try {
    return JSON.parse(open(key, r.secrets, aad(r))) as CredentialSecrets;
  } catch (err) {
    log?.('warn', `stored sign-in for server "${r.server}" is unusable (${(err as Error).message}); a new sign-in will replace it`);
    return undefined;
  }
}
