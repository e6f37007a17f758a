/**
 * The PostgreSQL {@link CredentialStore}: table `oauth_credentials` in the same database as the main
 * PostgreSQL store, so every replica of a gateway (docs/scaling.md) sees the same sign-ins. The same
 * columns as the SQLite table (`./sqlite-credentials.ts`): `tenant, user, server` (primary key), `url`,
 * `issuer`, `scope`, `expires_at` (epoch ms), `refreshable`, `updated_at` (epoch ms) — none secret — and
 * `secrets`, the JSON of {@link CredentialSecrets} sealed with AES-256-GCM (`secret.ts`; AAD = tenant,
 * user, server). The key is `PARLEY_SECRET` (required here: a database server has no folder to keep a key
 * file beside, and the key must never live in the database itself). Parameterised SQL only; the schema is
 * created under an advisory lock so replicas starting together do not race.
 * @module
 */
import { createHash } from 'node:crypto';
import { pgDriver } from '../store/drivers.js';
import { type CredentialRow, openSecrets, sealSecrets, summaryOf } from './credential-rows.js';
import type { CredentialRecord, CredentialStore } from './credential-store.js';
import { CredentialKeyError, loadCredentialKey } from './secret.js';

/** Advisory lock key for this table's schema (distinct from the main store's). */
const SCHEMA_LOCK = 0x70_61_72_6c_63_72; // "parlcr"
/** First key of the two-key advisory locks of refreshes (two int4 keys never meet a one-bigint key). */
const REFRESH_LOCK_CLASS = 0x70_72_6c_72; // "prlr"

const SCHEMA = `CREATE TABLE IF NOT EXISTS oauth_credentials (
  tenant      TEXT NOT NULL,
  "user"      TEXT NOT NULL,
  server      TEXT NOT NULL,
  url         TEXT NOT NULL,
  issuer      TEXT,
  scope       TEXT,
  expires_at  BIGINT,
  refreshable BOOLEAN NOT NULL DEFAULT FALSE,
  updated_at  BIGINT NOT NULL,
  secrets     TEXT NOT NULL,
  PRIMARY KEY (tenant, "user", server)
)`;

export interface PostgresCredentialStoreOptions {
  /** Environment for `PARLEY_SECRET`. @default process.env */
  env?: Record<string, string | undefined>;
  /** Bound on getting a connection, ms. @default 5000 */
  connectTimeoutMs?: number;
  /** Diagnostics; never receives credential content. */
  log?: (level: 'warn', message: string) => void;
  /** Longest wait for another process's refresh of the same (tenant, user, server), ms ({@link CredentialStore.exclusive}). @default 30000 */
  refreshLockMs?: number;
}

/**
 * Opens the credential table in the PostgreSQL database at `url` (creating it when missing).
 * @throws CredentialKeyError when `PARLEY_SECRET` is missing or too short; the driver's error when the
 * database cannot be reached within `connectTimeoutMs`.
 */
export async function openPostgresCredentialStore(url: string, opts: PostgresCredentialStoreOptions = {}): Promise<CredentialStore> {
  const env = opts.env ?? process.env;
  if (!env.PARLEY_SECRET) {
    throw new CredentialKeyError(
      'NO_KEY_LOCATION',
      'No key for stored credentials: with a PostgreSQL store set PARLEY_SECRET (32+ characters, the same on every replica).',
    );
  }
  const key = loadCredentialKey({ env });
  const pool = new (pgDriver().Pool)({
    connectionString: url,
    max: 4,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
    application_name: 'parley-credentials',
  });
  pool.on('error', () => undefined);
  try {
    const c = await pool.connect();
    try {
      await c.query('SELECT pg_advisory_lock($1)', [SCHEMA_LOCK]);
      try {
        await c.query(SCHEMA);
      } finally {
        await c.query('SELECT pg_advisory_unlock($1)', [SCHEMA_LOCK]);
      }
    } finally {
      c.release();
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  return {
    async get(k) {
      const { rows } = await pool.query<CredentialRow>(
        'SELECT * FROM oauth_credentials WHERE tenant = $1 AND "user" = $2 AND server = $3',
        [k.tenant, k.user, k.server],
      );
      const row = rows[0];
      if (!row) return undefined;
      const secrets = openSecrets(key, row, opts.log);
      return secrets && { ...summaryOf(row), secrets };
    },
    async put(r: CredentialRecord) {
      await pool.query(
        `INSERT INTO oauth_credentials (tenant, "user", server, url, issuer, scope, expires_at, refreshable, updated_at, secrets)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (tenant, "user", server) DO UPDATE SET url = EXCLUDED.url, issuer = EXCLUDED.issuer, scope = EXCLUDED.scope,
           expires_at = EXCLUDED.expires_at, refreshable = EXCLUDED.refreshable, updated_at = EXCLUDED.updated_at, secrets = EXCLUDED.secrets`,
        [
          r.tenant,
          r.user,
          r.server,
          r.url,
          r.issuer ?? null,
          r.scope ?? null,
          r.expiresAt ?? null,
          r.refreshable === true,
          Math.trunc(r.updatedAt),
          sealSecrets(key, r, r.secrets),
        ],
      );
    },
    async delete(k) {
      const res = await pool.query('DELETE FROM oauth_credentials WHERE tenant = $1 AND "user" = $2 AND server = $3', [
        k.tenant,
        k.user,
        k.server,
      ]);
      return (res.rowCount ?? 0) > 0;
    },
    async list(s) {
      const { rows } = await pool.query<CredentialRow>(
        'SELECT * FROM oauth_credentials WHERE tenant = $1 AND "user" = $2 ORDER BY server',
        [s.tenant, s.user],
      );
      return rows.map(summaryOf);
    },
    // Its own connection, not the pool's: `fn` reads and writes through the pool while the lock is held.
    // The lock ends with the transaction, or with the connection when the process dies.
    async exclusive(k, fn) {
      const c = new (pgDriver().Client)({
        connectionString: url,
        connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
        application_name: 'parley-credentials-lock',
      });
      c.on('error', () => undefined);
      await c.connect();
      try {
        await c.query('BEGIN');
        const waitMs = Math.max(1, Math.trunc(opts.refreshLockMs ?? 30_000));
        await c.query("SELECT set_config('lock_timeout', $1, true)", [`${waitMs}ms`]);
        const id = createHash('sha256').update(`${k.tenant}\0${k.user}\0${k.server}`).digest().readInt32BE(0);
        await c.query('SELECT pg_advisory_xact_lock($1, $2)', [REFRESH_LOCK_CLASS, id]).catch((err: { code?: string }) => {
          if (err.code !== '55P03') throw err; // lock_not_available: lock_timeout fired
          throw new Error(
            `another process has held the refresh of server "${k.server}" for user "${k.user}" of tenant "${k.tenant}" for ${waitMs} ms (refreshLockMs): its authorization server may be slow; try again`,
            { cause: err },
          );
        });
        return await fn();
      } finally {
        await c.query('COMMIT').catch(() => undefined);
        await c.end().catch(() => undefined);
      }
    },
    async close() {
      await pool.end().catch(() => undefined);
    },
  };
}
