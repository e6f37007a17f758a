/**
 * The PostgreSQL implementation of {@link Store}, on `pg` (node-postgres) with a connection pool, for a
 * gateway whose state several processes share. Same tables, same migrations (`MIGRATIONS` through
 * `sqlFor(step, 'postgres')`), same argument checks and row mappings as the SQLite store; every
 * statement is parameterised (`$1`, `$2`, …).
 *
 * Shared by several processes: ids come from an identity column (`RETURNING id`), upserts use
 * `ON CONFLICT`, migrations take a transaction-scoped advisory lock, and nothing is cached in process.
 * Durability: each write commits before its promise resolves (`synchronous_commit` as the server has
 * it, `on` by default), so a resolved `appendAudit` survives a SIGKILL of parley and of PostgreSQL.
 * A deferred append (`{ defer: true }`) is committed at once like any other: the server groups
 * concurrent commits itself, and batching here would hold a pool connection for nothing.
 *
 * Availability: an unreachable server at open rejects with `StoreError('STORE_UNAVAILABLE')`. While
 * running, a call that cannot get a connection within `connectTimeoutMs` rejects with the same code;
 * the pool drops broken connections and opens new ones on later calls, so service resumes by itself.
 * @module
 */
import type pg from 'pg';
import { pgDriver } from './drivers.js';
import type { AuditRetention, EraVerdict, Preset, PurgeResult, RememberedAnswer, Scope, Store, StoredRoot } from './types.js';
import { StoreError } from './errors.js';
import { MIGRATIONS, SCHEMA_VERSION, sqlFor } from './migrations.js';
import { auditFromRow, auditParams, auditQuery, type AuditRow } from './audit.js';
import { answerFromRow, rememberParams, type AnswerRow } from './answers.js';
import { TAKE_POSTGRES, takeParams } from './rate-limits.js';
import { LIST_POSTGRES, RECORD_POSTGRES, REVOKE_POSTGRES, recordParams, signInFromRow, type SignInRow } from './sign-ins.js';
import { presetFromRow, presetParams, type PresetRow } from './presets.js';
import { rootFromRow, rootParams, type RootRow } from './roots.js';
import { verdictFromRow, verdictParams, type VerdictRow } from './era-verdicts.js';
import { requireText, scopeParams } from './scope.js';
import { retentionPolicy } from './retention.js';

export interface PostgresStoreOptions {
  /** Most connections the pool opens. @default 10 */
  max?: number;
  /** How long a call waits for a connection (also the first connection at open), in ms. @default 5000 */
  connectTimeoutMs?: number;
  /** Server-side bound on one statement, in ms (`statement_timeout`). @default 30000 */
  statementTimeoutMs?: number;
  /** Audit retention; see {@link AuditRetention} for the defaults. */
  retention?: AuditRetention;
}

export interface PostgresStore extends Store {
  readonly engine: 'postgres';
}

/** Key of the advisory lock migrations hold (any constant; this is "parley" in ASCII, truncated). */
const MIGRATION_LOCK = 0x7061726c6579;

/** `postgres://user:secret@host/db` → `postgres://user@host/db` (never show a password). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

const UNAVAILABLE_CODES =
  /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|08\w{3}|57P0[1-3]|53300|28P01|28000|3D000)$/;
const UNAVAILABLE_TEXT =
  /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|Client has encountered a connection error|the database system is (starting up|shutting down)/i;

/** What an unavailable server means at start: nothing is open, so nothing reconnects by itself. */
const AT_START = 'nothing was opened, so run the command again once the server answers (`pg_isready -d <URL>` checks it).';

/**
 * Maps a pg error to a {@link StoreError}; argument errors and constraint errors pass unchanged.
 * @param then how parley goes on when the server is unavailable: an open pool reconnects on the next
 *   request (the default); at start ({@link AT_START}) the command must be run again.
 */
function toPgError(err: unknown, location: string, action: string, then = 'parley reconnects on the next request.'): unknown {
  if (StoreError.is(err) || err instanceof TypeError) return err;
  const code = typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : '';
  const detail = err instanceof Error ? err.message : String(err);
  if (UNAVAILABLE_CODES.test(code) || UNAVAILABLE_TEXT.test(detail)) {
    return new StoreError(
      'STORE_UNAVAILABLE',
      location,
      `Cannot ${action}: PostgreSQL at ${location} is unavailable (${code || 'error'}: ${detail}). ` +
        `Check that the server is running and the URL, user and password are right; ${then}`,
      { cause: err, driverCode: code || undefined },
    );
  }
  if (code === 'SQLITE_CORRUPT_ROW' || code === 'XX001' || code === 'XX002') {
    return new StoreError('STORE_CORRUPT', location, `Cannot ${action}: ${detail}. Restore the database from a backup.`, {
      cause: err,
      driverCode: code,
    });
  }
  if (/^(53|58)/.test(code)) {
    return new StoreError(
      'STORE_IO',
      location,
      `Cannot ${action}: PostgreSQL at ${location} failed (${code}: ${detail}). Check the server's disk and logs.`,
      { cause: err, driverCode: code },
    );
  }
  return err;
}

type Queryable = Pick<pg.PoolClient, 'query'>;

/**
 * Opens a pool on `url` (`postgres://user:password@host:port/database`; `?host=/socket/dir` for a Unix
 * socket), checks the connection and brings the schema to the latest version.
 * @throws StoreError `STORE_UNAVAILABLE` (cannot connect or log in within `connectTimeoutMs`),
 *   `STORE_VERSION` (the database has a newer schema), `STORE_CORRUPT` (a migration failed on a foreign schema).
 */
export async function openPostgresStore(url: string, opts: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const location = redactUrl(url);
  const retention = retentionPolicy(opts.retention);
  const connectTimeoutMs = opts.connectTimeoutMs ?? 5000;
  const pool = new (pgDriver().Pool)({
    connectionString: url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: opts.statementTimeoutMs ?? 30_000,
    application_name: 'parley',
  });
  // An idle connection whose server went away emits here; the pool has already dropped it.
  pool.on('error', () => undefined);
  try {
    await migratePostgres(pool, location);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw toPgError(err, location, 'open the store', AT_START);
  }
  const store = wrap(pool, location, retention);
  try {
    await store.enforceRetention();
  } catch (err) {
    await store.close();
    throw err;
  }
  const timer =
    retention.intervalMs > 0 ? setInterval(() => void store.enforceRetention().catch(() => undefined), retention.intervalMs) : undefined;
  timer?.unref();
  const close = store.close;
  return Object.assign(store, {
    close: () => {
      clearInterval(timer);
      return close();
    },
  });
}

/** Reads the schema version of a PostgreSQL database without changing it (0 when parley never ran there). */
export async function postgresSchemaVersion(url: string, connectTimeoutMs = 5000): Promise<number> {
  const location = redactUrl(url);
  const client = new (pgDriver().Client)({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const t = await client.query(`SELECT to_regclass('parley_schema') IS NOT NULL AS present`);
    if (!t.rows[0].present) return 0;
    const r = await client.query('SELECT version FROM parley_schema WHERE id = 1');
    return r.rows.length ? Number(r.rows[0].version) : 0;
  } catch (err) {
    throw toPgError(err, location, 'read the schema version', AT_START);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Applies every pending step, each in its own transaction under the migration advisory lock. */
async function migratePostgres(pool: pg.Pool, location: string): Promise<{ from: number; to: number }> {
  const client = await pool.connect();
  let from = -1;
  let version = 0;
  try {
    for (const step of [undefined, ...MIGRATIONS]) {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
        await client.query('CREATE TABLE IF NOT EXISTS parley_schema (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)');
        await client.query('INSERT INTO parley_schema (id, version) VALUES (1, 0) ON CONFLICT (id) DO NOTHING');
        version = Number((await client.query('SELECT version FROM parley_schema WHERE id = 1')).rows[0].version);
        if (from < 0) from = version;
        if (version > SCHEMA_VERSION) {
          throw new StoreError(
            'STORE_VERSION',
            location,
            `${location} has store schema version ${version}, but this parley only knows versions up to ${SCHEMA_VERSION}. ` +
              'It was written by a newer parley: upgrade parley (npm install mcp-parley@latest), or point the store at another database.',
          );
        }
        if (step && version < step.version) {
          try {
            await client.query(sqlFor(step, 'postgres'));
          } catch (err) {
            if (toPgError(err, location, '') !== err) throw err;
            throw new StoreError(
              'STORE_CORRUPT',
              location,
              `Store migration ${step.version} (${step.description}) failed on ${location}: ${(err as Error).message}. ` +
                `The database was left at schema version ${version}. Its schema is not the one parley wrote; use another database, or restore a backup.`,
              { cause: err },
            );
          }
          await client.query('UPDATE parley_schema SET version = $1 WHERE id = 1', [step.version]);
          version = step.version;
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    }
  } finally {
    client.release();
  }
  return { from, to: version };
}

const SCOPE = 'tenant = $1 AND "user" = $2 AND session IS NOT DISTINCT FROM $3';

function wrap(pool: pg.Pool, location: string, retention: Required<AuditRetention>): PostgresStore {
  let closed = false;

  async function run<T>(action: string, fn: (db: Queryable) => Promise<T>, db: Queryable = pool): Promise<T> {
    if (closed)
      throw new StoreError(
        'STORE_CLOSED',
        location,
        `Cannot ${action}: the store on ${location} is closed. Open it again with openPostgresStore().`,
      );
    try {
      return await fn(db);
    } catch (err) {
      throw toPgError(err, location, action);
    }
  }

  /** Runs `fn` on one connection inside BEGIN … COMMIT (ROLLBACK when it throws). */
  async function inTx<T>(action: string, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return run(action, async () => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        try {
          const out = await fn(client);
          await client.query('COMMIT');
          return out;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      } finally {
        client.release();
      }
    });
  }

  const rows = async <R>(db: Queryable, sql: string, params: unknown[]): Promise<R[]> => (await db.query(sql, params)).rows as R[];
  const count = async (db: Queryable, sql: string, params: unknown[]): Promise<number> => (await db.query(sql, params)).rowCount ?? 0;

  const savePreset = (db: Queryable) => async (p: Preset) => {
    const v = presetParams(p);
    const conflict =
      v.session === null ? '(tenant, "user", name) WHERE session IS NULL' : '(tenant, "user", session, name) WHERE session IS NOT NULL';
    await db.query(
      `INSERT INTO presets (tenant, "user", session, name, body, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT ${conflict} DO UPDATE SET body = EXCLUDED.body, updated_at = EXCLUDED.updated_at`,
      [v.tenant, v.user, v.session, v.name, v.body, v.updatedAt],
    );
  };
  const loadPreset = (db: Queryable) => async (scope: Scope, name: string) => {
    const s = scopeParams(scope, 'loadPreset');
    const r = await rows<PresetRow>(db, `SELECT * FROM presets WHERE ${SCOPE} AND name = $4`, [
      s.tenant,
      s.user,
      s.session,
      requireText(name, 'name', 'loadPreset'),
    ]);
    return r.length ? presetFromRow(r[0]) : undefined;
  };

  /** Deletes audit rows matching `where` with the purge gate open; `c` holds a transaction. */
  async function gatedDelete(c: pg.PoolClient, where: string, params: unknown[]): Promise<number> {
    await c.query('INSERT INTO audit_purge_gate (open) VALUES (1)');
    const n = await count(c, `DELETE FROM audit WHERE ${where}`, params);
    await c.query('DELETE FROM audit_purge_gate');
    return n;
  }

  const store: PostgresStore = {
    engine: 'postgres',
    location,
    schemaVersion: SCHEMA_VERSION,

    appendAudit: (rec) =>
      run('append an audit record', async (db) => {
        const p = auditParams(rec);
        const r = await rows<{ id: string }>(
          db,
          `INSERT INTO audit (ts, tenant, "user", session, server, kind, request_id, action, duration_ms, detail, redact_keys)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
          [p.ts, p.tenant, p.user, p.session, p.server, p.kind, p.requestId, p.action, p.durationMs, p.detail, p.redactKeys],
        );
        return Number(r[0].id);
      }),
    queryAudit: (q = {}) =>
      run('query the audit log', async (db) => {
        const params: unknown[] = [];
        const { where, limit } = auditQuery(q, (_name, value) => `$${params.push(value)}`);
        params.push(limit);
        return (await rows<AuditRow>(db, `SELECT * FROM audit${where} ORDER BY id DESC LIMIT $${params.length}`, params)).map(auditFromRow);
      }),

    remember: (a: RememberedAnswer) =>
      run('remember an answer', async (db) => {
        const v = rememberParams(a);
        if (!v) return;
        const conflict =
          v.session === null
            ? '(tenant, "user", server, schema_hash) WHERE session IS NULL'
            : '(tenant, "user", session, server, schema_hash) WHERE session IS NOT NULL';
        await db.query(
          `INSERT INTO answers (tenant, "user", session, server, schema_hash, remember, content, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT ${conflict} DO UPDATE SET remember = EXCLUDED.remember, content = EXCLUDED.content, updated_at = EXCLUDED.updated_at`,
          [v.tenant, v.user, v.session, v.server, v.schemaHash, v.remember, v.content, v.updatedAt],
        );
      }),
    recall: (scope, server, schemaHash) =>
      run('recall an answer', async (db) => {
        const s = scopeParams(scope, 'recall');
        // `session = NULL` is never true, so a null session recalls only the user's 'always' rows. On a tie
        // of updated_at the session's own answer wins.
        const r = await rows<AnswerRow>(
          db,
          `SELECT * FROM answers WHERE tenant = $1 AND "user" = $2 AND server = $4 AND schema_hash = $5 AND (session IS NULL OR session = $3)
           ORDER BY updated_at DESC, (session IS NULL) ASC LIMIT 1`,
          [s.tenant, s.user, s.session, server, schemaHash],
        );
        return r.length ? answerFromRow(r[0]) : undefined;
      }),
    // Shared by every replica on this database (docs/scaling.md): the rate limit and OAuth sign-ins.
    takeRateToken: (b, now) =>
      run('take a rate-limit token', async (db) => {
        const p = takeParams(b, now);
        return (await count(db, TAKE_POSTGRES, [p.tenant, p.user, p.server, p.cap, p.now, p.perMs])) > 0;
      }),
    recordSignIn: (u) =>
      run('record an OAuth sign-in', async (db) => {
        const p = recordParams(u);
        return (await count(db, RECORD_POSTGRES, [p.tenant, p.issuer, p.subject, p.user, p.at, p.exp, p.iat])) > 0;
      }),
    listSignIns: (tenant) =>
      run('list OAuth sign-ins', async (db) =>
        (await rows<SignInRow>(db, LIST_POSTGRES, [requireText(tenant, 'tenant', 'listSignIns')])).map(signInFromRow),
      ),
    revokeSignIn: (tenant, subject, at) =>
      run(
        'revoke an OAuth sign-in',
        async (db) =>
          (await count(db, REVOKE_POSTGRES, [
            requireText(tenant, 'tenant', 'revokeSignIn'),
            requireText(subject, 'subject', 'revokeSignIn'),
            Math.trunc(at),
          ])) > 0,
      ),
    // The list of remembered answers (read-only here; the tenant admin's view, src/gateway/admin.ts).
    listAnswers: (scope) =>
      run('list remembered answers', async (db) => {
        const s = scopeParams(scope, 'listAnswers');
        const r = await rows<AnswerRow & { auto: number | null; label: string | null }>(
          db,
          `SELECT * FROM answers WHERE tenant = $1 AND "user" = $2 AND (session IS NULL OR session = $3) ORDER BY server, updated_at DESC`,
          [s.tenant, s.user, s.session],
        );
        return r.map((x) => ({ ...answerFromRow(x), auto: Number(x.auto) === 1, ...(x.label != null ? { label: x.label } : {}) }));
      }),
    forget: (scope, server) =>
      run('forget answers', async (db) => {
        const s = scopeParams(scope, 'forget');
        return s.session === null
          ? count(db, `DELETE FROM answers WHERE tenant = $1 AND "user" = $2 AND ($3::text IS NULL OR server = $3)`, [
              s.tenant,
              s.user,
              server ?? null,
            ])
          : count(
              db,
              `DELETE FROM answers WHERE tenant = $1 AND "user" = $2 AND (session IS NULL OR session = $4) AND ($3::text IS NULL OR server = $3)`,
              [s.tenant, s.user, server ?? null, s.session],
            );
      }),

    savePreset: (p) => run('save a preset', (db) => savePreset(db)(p)),
    loadPreset: (scope, name) => run('load a preset', (db) => loadPreset(db)(scope, name)),
    listPresets: (scope) =>
      run('list presets', async (db) => {
        const s = scopeParams(scope, 'listPresets');
        return (
          await rows<PresetRow>(db, `SELECT * FROM presets WHERE ${SCOPE} ORDER BY name COLLATE "C"`, [s.tenant, s.user, s.session])
        ).map(presetFromRow);
      }),
    deletePreset: (scope, name) =>
      run('delete a preset', async (db) => {
        const s = scopeParams(scope, 'deletePreset');
        return (
          (await count(db, `DELETE FROM presets WHERE ${SCOPE} AND name = $4`, [
            s.tenant,
            s.user,
            s.session,
            requireText(name, 'name', 'deletePreset'),
          ])) > 0
        );
      }),

    putRoot: (r: StoredRoot) =>
      run('save a root', async (db) => {
        const v = rootParams(r);
        const conflict =
          v.session === null ? '(tenant, "user", uri) WHERE session IS NULL' : '(tenant, "user", session, uri) WHERE session IS NOT NULL';
        await db.query(
          `INSERT INTO roots (tenant, "user", session, uri, name, lifetime, source) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT ${conflict} DO UPDATE SET name = EXCLUDED.name, lifetime = EXCLUDED.lifetime, source = EXCLUDED.source`,
          [v.tenant, v.user, v.session, v.uri, v.name, v.lifetime, v.source],
        );
      }),
    deleteRoot: (scope, uri) =>
      run('delete a root', async (db) => {
        const s = scopeParams(scope, 'deleteRoot');
        return (
          (await count(db, `DELETE FROM roots WHERE ${SCOPE} AND uri = $4`, [
            s.tenant,
            s.user,
            s.session,
            requireText(uri, 'uri', 'deleteRoot'),
          ])) > 0
        );
      }),
    listRoots: (scope) =>
      run('list roots', async (db) => {
        const s = scopeParams(scope, 'listRoots');
        return (await rows<RootRow>(db, `SELECT * FROM roots WHERE ${SCOPE} ORDER BY uri COLLATE "C"`, [s.tenant, s.user, s.session])).map(
          rootFromRow,
        );
      }),

    getEraVerdict: (defHash) =>
      run('read an era verdict', async (db) => {
        const r = await rows<VerdictRow>(db, 'SELECT * FROM era_verdicts WHERE def_hash = $1', [
          requireText(defHash, 'defHash', 'getEraVerdict'),
        ]);
        return r.length ? verdictFromRow(r[0]) : undefined;
      }),
    putEraVerdict: (v: EraVerdict) =>
      run('save an era verdict', async (db) => {
        const p = verdictParams(v, 'putEraVerdict');
        await db.query(
          `INSERT INTO era_verdicts (def_hash, era, revision, verified_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (def_hash) DO UPDATE SET era = EXCLUDED.era, revision = EXCLUDED.revision, verified_at = EXCLUDED.verified_at`,
          [p.defHash, p.era, p.revision, p.verifiedAt],
        );
      }),
    deleteEraVerdict: (defHash) =>
      run(
        'delete an era verdict',
        async (db) =>
          (await count(db, 'DELETE FROM era_verdicts WHERE def_hash = $1', [requireText(defHash, 'defHash', 'deleteEraVerdict')])) > 0,
      ),

    purgeUser: (tenant, user): Promise<PurgeResult> => {
      try {
        requireText(tenant, 'tenant', 'purgeUser');
        requireText(user, 'user', 'purgeUser');
      } catch (err) {
        return Promise.reject(err);
      }
      return inTx('purge a user', async (c) => ({
        audit: await gatedDelete(c, 'tenant = $1 AND "user" = $2', [tenant, user]),
        answers: await count(c, 'DELETE FROM answers WHERE tenant = $1 AND "user" = $2', [tenant, user]),
      }));
    },
    enforceRetention: () =>
      inTx('apply audit retention', async (c) => {
        let n = retention.maxAgeMs > 0 ? await gatedDelete(c, 'ts < $1', [Date.now() - retention.maxAgeMs]) : 0;
        if (retention.maxRows > 0)
          n += await gatedDelete(c, 'id <= (SELECT id FROM audit ORDER BY id DESC OFFSET $1 LIMIT 1)', [retention.maxRows]);
        return n;
      }),

    transaction: (fn) => inTx('run a transaction', (c) => fn({ savePreset: savePreset(c), loadPreset: loadPreset(c) })),

    async close() {
      if (closed) return;
      closed = true;
      await pool.end().catch(() => undefined);
    },
  };
  return store;
}
