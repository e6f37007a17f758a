/**
 * Where OAuth credentials of protected servers live: the {@link CredentialStore} seam (async, so a
 * PostgreSQL implementation can sit behind it), its record shapes, and an in-memory implementation for
 * runs without a database. Rows are keyed by tenant, user and server name; the secret part
 * ({@link CredentialSecrets}: tokens and client registrations) is encrypted at rest by the
 * implementation (`secret.ts`); the summary columns hold no secret and are what `parley auth list` shows.
 * @module
 */
import type { StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';

/** Whose credential for which server. */
export interface CredentialKey {
  tenant: string;
  user: string;
  server: string;
}

/** The secret part of a row (encrypted at rest). */
export interface CredentialSecrets {
  /** Client registrations per authorization-server issuer (pre-registered ones are not stored). */
  clients: Record<string, StoredOAuthClientInformation>;
  /** The latest token set, stamped with its `issuer` by the SDK. */
  tokens?: StoredOAuthTokens;
}

/** What may be shown: no token, no secret. */
export interface CredentialSummary extends CredentialKey {
  /** The server URL the credentials were obtained for; a row for another URL is ignored. */
  url: string;
  /** Issuer of the current tokens. */
  issuer?: string;
  /** Scope granted with the current tokens. */
  scope?: string;
  /** Access-token expiry, epoch ms (`undefined` when the server gave no `expires_in`). */
  expiresAt?: number;
  /** Whether a refresh token is held. */
  refreshable: boolean;
  /** Last write, epoch ms. */
  updatedAt: number;
}

export interface CredentialRecord extends CredentialSummary {
  secrets: CredentialSecrets;
}

/**
 * Async storage of OAuth credentials. Implementations encrypt `secrets` at rest and never log them.
 * Errors: implementations throw on I/O failure; a row that does not decrypt reads as `undefined`
 * (the person signs in again) and is reported through the implementation's `log`.
 */
export interface CredentialStore {
  get(key: CredentialKey): Promise<CredentialRecord | undefined>;
  /** Inserts or replaces the row of `record`'s key. */
  put(record: CredentialRecord): Promise<void>;
  /** Deletes the row; resolves `true` when there was one. */
  delete(key: CredentialKey): Promise<boolean>;
  /** Summaries of one user's rows (no secrets), by server name. */
  list(scope: { tenant: string; user: string }): Promise<CredentialSummary[]>;
  /**
   * Runs `fn` while holding a lock on `key` that every process sharing the store respects, so that two
   * replicas never refresh one user's tokens at once (a provider that rotates refresh tokens revokes the
   * whole grant when a used refresh token comes back). PostgreSQL: a transaction-scoped advisory lock on
   * a connection of its own, waited for at most `refreshLockMs` (default 30 000 ms), after which it
   * throws the driver's lock-timeout error. SQLite: a lease row (table `oauth_refresh_leases`) claimed in
   * a `BEGIN IMMEDIATE` transaction, renewed while `fn` runs and lapsing `refreshLeaseMs` (10 000 ms)
   * after a holder that died; waited for (polled every 100 ms) at most `refreshLockMs` (30 000 ms), then
   * the same "another process has held the refresh …" error. Absent (memory): `fn` runs at once.
   */
  exclusive?<T>(key: CredentialKey, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Builds the summary columns from the secrets. `now` = epoch ms of the write. */
export function summarize(key: CredentialKey, url: string, secrets: CredentialSecrets, now: number, obtainedAt?: number): CredentialRecord {
  const t = secrets.tokens;
  const expiresIn = typeof t?.expires_in === 'number' ? t.expires_in : undefined;
  return {
    ...key,
    url,
    ...(t?.issuer ? { issuer: t.issuer } : {}),
    ...(t?.scope ? { scope: t.scope } : {}),
    ...(expiresIn !== undefined ? { expiresAt: (obtainedAt ?? now) + expiresIn * 1000 } : {}),
    refreshable: Boolean(t?.refresh_token),
    updatedAt: now,
    secrets,
  };
}

/** A process-local {@link CredentialStore}: nothing survives the process. */
export class MemoryCredentialStore implements CredentialStore {
  readonly #rows = new Map<string, CredentialRecord>();
  static #k = (k: CredentialKey) => JSON.stringify([k.tenant, k.user, k.server]);
  async get(key: CredentialKey) {
    const r = this.#rows.get(MemoryCredentialStore.#k(key));
    return r ? structuredClone(r) : undefined;
  }
  async put(record: CredentialRecord) {
    this.#rows.set(MemoryCredentialStore.#k(record), structuredClone(record));
  }
  async delete(key: CredentialKey) {
    return this.#rows.delete(MemoryCredentialStore.#k(key));
  }
  async list(scope: { tenant: string; user: string }) {
    return [...this.#rows.values()]
      .filter((r) => r.tenant === scope.tenant && r.user === scope.user)
      .map(({ secrets: _s, ...summary }) => summary)
      .sort((a, b) => a.server.localeCompare(b.server));
  }
  async close() {}
}
