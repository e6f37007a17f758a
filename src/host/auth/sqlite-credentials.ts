/**
 * The SQLite {@link CredentialStore}: table `oauth_credentials` in the same database file as the main
 * store, on its own better-sqlite3 connection and with its own migration (table
 * `oauth_credentials_schema`, independent of the main store's `user_version`).
 *
 * Columns: `tenant, user, server` (primary key), `url`, `issuer`, `scope`, `expires_at` (epoch ms),
 * `refreshable` (0/1), `updated_at` (epoch ms) — none secret — and `secrets`, the JSON of
 * {@link CredentialSecrets} sealed with AES-256-GCM (`secret.ts`; AAD = tenant, user, server).
 * Parameterised SQL only. A row that does not open (key changed) reads as absent and is logged
 * without its content.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { createPrivateFile, sqliteDriver } from '../store/drivers.js';
import { resolve } from 'node:path';
import { type CredentialRow, openSecrets, sealSecrets, summaryOf } from './credential-rows.js';
import type { CredentialRecord, CredentialStore } from './credential-store.js';
import { loadCredentialKey } from './secret.js';

/** Append-only steps of this table's schema (never edit one; add the next). */
export const CREDENTIAL_MIGRATIONS: readonly string[] = [
  `CREATE TABLE oauth_credentials (
     tenant      TEXT NOT NULL,
     user        TEXT NOT NULL,
     server      TEXT NOT NULL,
     url         TEXT NOT NULL,
     issuer      TEXT,
     scope       TEXT,
     expires_at  INTEGER,
     refreshable INTEGER NOT NULL DEFAULT 0,
     updated_at  INTEGER NOT NULL,
     secrets     TEXT NOT NULL,
     PRIMARY KEY (tenant, user, server)
   )`,
  // One row per refresh in progress (`exclusive`): who holds it and until when (epoch ms).
  `CREATE TABLE oauth_refresh_leases (
     tenant     TEXT NOT NULL,
     user       TEXT NOT NULL,
     server     TEXT NOT NULL,
     holder     TEXT NOT NULL,
     expires_at INTEGER NOT NULL,
     PRIMARY KEY (tenant, user, server)
   )`,
];

export interface SqliteCredentialStoreOptions {
  /** Environment for `PARLEY_SECRET`. @default process.env */
  env?: Record<string, string | undefined>;
  /** Explicit key file (default: `credentials.key` beside the database). */
  keyFile?: string;
  /** Lock wait, ms. @default 5000 */
  busyTimeoutMs?: number;
  /** Diagnostics; never receives credential content. */
  log?: (level: 'warn', message: string) => void;
  /** Longest wait for another process's refresh of the same (tenant, user, server), ms ({@link CredentialStore.exclusive}). @default 30000 */
  refreshLockMs?: number;
  /**
   * Lifetime of a refresh lease, ms: the holder renews it every third of it while it refreshes, so it
   * lapses this long after the holder died (a waiter then takes it). @default 10000
   */
  refreshLeaseMs?: number;
}

/**
 * Opens the credential table in the database at `path` (creating file and table when missing).
 * @throws CredentialKeyError when no usable key exists (see `secret.ts`).
 */
export function openSqliteCredentialStore(path: string | ':memory:', opts: SqliteCredentialStoreOptions = {}): CredentialStore {
  const file = path === ':memory:' ? path : resolve(path);
  const key = loadCredentialKey({ env: opts.env ?? process.env, dbFile: file, ...(opts.keyFile ? { keyFile: opts.keyFile } : {}) });
  if (file !== ':memory:') createPrivateFile(file);
  const db = new (sqliteDriver())(file, { timeout: opts.busyTimeoutMs ?? 5000 });
  if (file !== ':memory:') db.pragma('journal_mode = WAL');
  migrate(db);
  const get = db.prepare('SELECT * FROM oauth_credentials WHERE tenant = ? AND user = ? AND server = ?');
  const put = db.prepare(
    `INSERT INTO oauth_credentials (tenant, user, server, url, issuer, scope, expires_at, refreshable, updated_at, secrets)
     VALUES (@tenant, @user, @server, @url, @issuer, @scope, @expiresAt, @refreshable, @updatedAt, @secrets)
     ON CONFLICT (tenant, user, server) DO UPDATE SET url = excluded.url, issuer = excluded.issuer, scope = excluded.scope,
       expires_at = excluded.expires_at, refreshable = excluded.refreshable, updated_at = excluded.updated_at, secrets = excluded.secrets`,
  );
  const del = db.prepare('DELETE FROM oauth_credentials WHERE tenant = ? AND user = ? AND server = ?');
  const list = db.prepare('SELECT * FROM oauth_credentials WHERE tenant = ? AND user = ? ORDER BY server');
  const leaseMs = Math.max(30, Math.trunc(opts.refreshLeaseMs ?? 10_000));
  const lockMs = Math.max(1, Math.trunc(opts.refreshLockMs ?? 30_000));
  // A lease is taken in a BEGIN IMMEDIATE transaction (the database's write lock, shared by every
  // process on the file): free or lapsed, it becomes ours; held by a live holder, we wait and try again.
  const readLease = db.prepare('SELECT holder, expires_at FROM oauth_refresh_leases WHERE tenant = ? AND user = ? AND server = ?');
  const writeLease = db.prepare(
    `INSERT INTO oauth_refresh_leases (tenant, user, server, holder, expires_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (tenant, user, server) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at`,
  );
  const renewLease = db.prepare(
    'UPDATE oauth_refresh_leases SET expires_at = ? WHERE tenant = ? AND user = ? AND server = ? AND holder = ?',
  );
  const dropLease = db.prepare('DELETE FROM oauth_refresh_leases WHERE tenant = ? AND user = ? AND server = ? AND holder = ?');
  const claim = db.transaction((k: { tenant: string; user: string; server: string }, holder: string): boolean => {
    const now = Date.now();
    const row = readLease.get(k.tenant, k.user, k.server) as { holder: string; expires_at: number } | undefined;
    if (row && row.expires_at > now) return false;
    writeLease.run(k.tenant, k.user, k.server, holder, now + leaseMs);
    return true;
  });
  return {
    async get(k) {
      const row = get.get(k.tenant, k.user, k.server) as CredentialRow | undefined;
      if (!row) return undefined;
      const secrets = openSecrets(key, row, opts.log);
      return secrets && { ...summaryOf(row), secrets };
    },
    async put(r: CredentialRecord) {
      put.run({
        tenant: r.tenant,
        user: r.user,
        server: r.server,
        url: r.url,
        issuer: r.issuer ?? null,
        scope: r.scope ?? null,
        expiresAt: r.expiresAt ?? null,
        refreshable: r.refreshable ? 1 : 0,
        updatedAt: Math.trunc(r.updatedAt),
        secrets: sealSecrets(key, r, r.secrets),
      });
    },
    async delete(k) {
      return del.run(k.tenant, k.user, k.server).changes > 0;
    },
    async list(s) {
      return (list.all(s.tenant, s.user) as CredentialRow[]).map(summaryOf);
    },
    async exclusive(k, fn) {
      const holder = randomUUID();
      const deadline = Date.now() + lockMs;
      while (!claim.immediate(k, holder)) {
        if (Date.now() >= deadline)
          throw new Error(
            `another process has held the refresh of server "${k.server}" for user "${k.user}" of tenant "${k.tenant}" for ${lockMs} ms (refreshLockMs): its authorization server may be slow; try again`,
          );
        await sleep(Math.min(100, Math.max(1, deadline - Date.now())));
      }
      const renew = setInterval(() => {
        try {
          renewLease.run(Date.now() + leaseMs, k.tenant, k.user, k.server, holder);
        } catch {
          // busy for longer than busyTimeoutMs: the next renewal tries again
        }
      }, leaseMs / 3);
      renew.unref();
      try {
        return await fn();
      } finally {
        clearInterval(renew);
        try {
          if (db.open) dropLease.run(k.tenant, k.user, k.server, holder);
        } catch {
          // busy: the lease lapses by itself within refreshLeaseMs
        }
      }
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

function migrate(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS oauth_credentials_schema (version INTEGER NOT NULL)');
  const step = db.transaction(() => {
    const row = db.prepare('SELECT version FROM oauth_credentials_schema').get() as { version: number } | undefined;
    const have = row?.version ?? 0;
    if (have > CREDENTIAL_MIGRATIONS.length)
      throw new Error(
        `oauth_credentials schema version ${have} is newer than this parley knows (${CREDENTIAL_MIGRATIONS.length}); upgrade parley`,
      );
    for (let v = have; v < CREDENTIAL_MIGRATIONS.length; v++) db.exec(CREDENTIAL_MIGRATIONS[v]!);
    if (!row) db.prepare('INSERT INTO oauth_credentials_schema (version) VALUES (?)').run(CREDENTIAL_MIGRATIONS.length);
    else db.prepare('UPDATE oauth_credentials_schema SET version = ?').run(CREDENTIAL_MIGRATIONS.length);
  });
  step.immediate();
}
