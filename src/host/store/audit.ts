/**
 * The audit log table: append and query, plus the two sanctioned deletions (retention and
 * `purgeUser`). There is no update API, and database triggers (migrations 2 and 4, recreated by 8) abort any UPDATE or
 * DELETE on `audit` unless the deleting transaction holds a row in `audit_purge_gate`, so the log is
 * append-only for every other client of the database.
 *
 * Size bound (docs/store.md "Bounded rows"): before a record is written, every string in `detail`
 * longer than {@link AUDIT_TEXT_MAX} characters is cut to that many characters followed by
 * `…[truncated N chars, sha256:HEX]` (the SHA-256 of the whole value's UTF-8), and a `detail` whose
 * JSON is still longer than {@link AUDIT_DETAIL_MAX} characters is replaced by
 * `{ truncated: true, chars, sha256, excerpt }` (excerpt: its first {@link AUDIT_TEXT_MAX} characters).
 * @module
 */
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { REDACTED, type AuditQuery, type AuditRecord } from './types.js';
import { parseJson, requireText, scopeParams } from './scope.js';

/** Default `limit` of {@link AuditQuery}, in rows. */
export const AUDIT_DEFAULT_LIMIT = 200;
/** Longest string kept whole in an audit `detail`, in characters (UTF-16 code units). */
export const AUDIT_TEXT_MAX = 1024;
/** Longest `detail` JSON kept as structure, in characters. */
export const AUDIT_DETAIL_MAX = 16_384;

/**
 * Returns a deep copy of `value` in which every object property whose key is in `keys` holds
 * {@link REDACTED}, at any depth (so `detail.content.password`, `detail.password` and deeper copies are
 * all covered). Cycles become `'[circular]'`.
 */
export function redact(value: unknown, keys: ReadonlySet<string>, seen: Set<object> = new Set()): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => redact(v, keys, seen));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = keys.has(k) ? REDACTED : redact(v, keys, seen);
    return out;
  } finally {
    seen.delete(value);
  }
}

const NO_KEYS: ReadonlySet<string> = new Set();

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A string cut to {@link AUDIT_TEXT_MAX} characters with its length and SHA-256 appended; shorter strings unchanged. */
export function excerpt(text: string): string {
  if (text.length <= AUDIT_TEXT_MAX) return text;
  return `${text.slice(0, AUDIT_TEXT_MAX)}…[truncated ${text.length} chars, sha256:${sha256(text)}]`;
}

function boundStrings(value: unknown): unknown {
  if (typeof value === 'string') return excerpt(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(boundStrings);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[excerpt(k)] = boundStrings(v);
  return out;
}

/**
 * The JSON text stored for a (redacted) detail: long strings excerpted, and a detail still over
 * {@link AUDIT_DETAIL_MAX} characters replaced by an excerpt of its JSON with length and SHA-256.
 */
export function boundedDetailJson(detail: unknown): string {
  return boundedJson(JSON.stringify(boundStrings(detail)));
}

function boundedJson(json: string): string {
  if (json.length <= AUDIT_DETAIL_MAX) return json;
  return JSON.stringify({ truncated: true, chars: json.length, sha256: sha256(json), excerpt: json.slice(0, AUDIT_TEXT_MAX) });
}

/** Deepest plain structure {@link storedDetailJson} serialises as it is; deeper (or cyclic) takes the copying path. */
const AS_IS_DEPTH = 32;

/**
 * Whether `value` would come out of `redact` + `boundStrings` unchanged: only plain objects and arrays
 * (no class instances, whose copy would differ from their JSON), no key in `keys`, no string or key
 * over {@link AUDIT_TEXT_MAX}, at most {@link AS_IS_DEPTH} levels (so a cycle is never walked forever).
 */
function storedAsIs(value: unknown, keys: ReadonlySet<string>, depth: number): boolean {
  if (typeof value === 'string') return value.length <= AUDIT_TEXT_MAX;
  if (typeof value !== 'object' || value === null) return true;
  if (depth >= AS_IS_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!storedAsIs(value[i], keys, depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k in value) {
    if (!Object.hasOwn(value, k)) return false;
    if (k.length > AUDIT_TEXT_MAX || keys.has(k) || !storedAsIs((value as Record<string, unknown>)[k], keys, depth + 1)) return false;
  }
  return true;
}

/**
 * The stored JSON of a record's `detail`: {@link redact}ed at every depth, long strings excerpted,
 * bounded ({@link boundedDetailJson}). A detail that needs none of it (the usual case) is serialised
 * as it is, without the two copies.
 */
function storedDetailJson(detail: unknown, keys: ReadonlySet<string>): string {
  if (storedAsIs(detail, keys, 0)) return boundedJson(JSON.stringify(detail));
  return boundedDetailJson(redact(detail, keys));
}

/** Column values of one audit row, as both engines bind them. */
export interface AuditParams {
  ts: number;
  tenant: string;
  user: string;
  session: string | null;
  server: string;
  kind: string;
  requestId: string | null;
  action: string | null;
  durationMs: number | null;
  detail: string | null;
  redactKeys: string | null;
}

/** Checks `rec` and returns its column values (redacted and bounded). @throws TypeError naming the field. */
export function auditParams(rec: AuditRecord): AuditParams {
  const where = 'appendAudit';
  if (typeof rec !== 'object' || rec === null) throw new TypeError(`${where}: record must be an object`);
  const scope = scopeParams(rec.scope, where);
  if (!Number.isFinite(rec.ts)) throw new TypeError(`${where}: ts must be epoch milliseconds (a finite number)`);
  requireText(rec.server, 'server', where);
  requireText(rec.kind, 'kind', where);
  if (rec.durationMs !== undefined && !Number.isFinite(rec.durationMs))
    throw new TypeError(`${where}: durationMs must be a finite number of ms`);
  const keys = rec.redactKeys ?? [];
  if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string'))
    throw new TypeError(`${where}: redactKeys must be an array of strings`);
  if (rec.detail !== undefined && (typeof rec.detail !== 'object' || rec.detail === null || Array.isArray(rec.detail))) {
    throw new TypeError(`${where}: detail must be a plain object`);
  }
  return {
    ts: Math.trunc(rec.ts),
    ...scope,
    server: excerpt(rec.server),
    kind: excerpt(rec.kind),
    requestId: rec.requestId === undefined ? null : excerpt(String(rec.requestId)),
    action: rec.action === undefined ? null : excerpt(String(rec.action)),
    durationMs: rec.durationMs ?? null,
    detail: rec.detail === undefined ? null : storedDetailJson(rec.detail, keys.length ? new Set(keys) : NO_KEYS),
    redactKeys: keys.length > 0 ? boundedDetailJson(keys) : null,
  };
}

/** One row as both drivers return it (`id`, `ts` may come back as strings from PostgreSQL BIGINT). */
export interface AuditRow {
  id: number | string;
  ts: number | string;
  tenant: string;
  user: string;
  session: string | null;
  server: string;
  kind: string;
  request_id: string | null;
  action: string | null;
  duration_ms: number | null;
  detail: string | null;
  redact_keys: string | null;
}

export function auditFromRow(r: AuditRow): AuditRecord {
  const rec: AuditRecord = {
    id: Number(r.id),
    ts: Number(r.ts),
    scope: { tenant: r.tenant, user: r.user, session: r.session },
    server: r.server,
    kind: r.kind,
  };
  if (r.request_id !== null) rec.requestId = r.request_id;
  if (r.action !== null) rec.action = r.action;
  if (r.duration_ms !== null) rec.durationMs = r.duration_ms;
  if (r.detail !== null) rec.detail = parseJson(r.detail, `audit record ${r.id} detail`) as Record<string, unknown>;
  if (r.redact_keys !== null) rec.redactKeys = parseJson(r.redact_keys, `audit record ${r.id} redact_keys`) as string[];
  return rec;
}

/**
 * The WHERE clause and parameters of an audit query, built only from fixed fragments; `ph(name)`
 * renders a placeholder (`@name` for SQLite, `$n` for PostgreSQL). The `user` column is quoted (a
 * reserved word in PostgreSQL).
 */
export function auditQuery(q: AuditQuery, ph: (name: string, value: unknown) => string): { where: string; limit: number } {
  const where = 'queryAudit';
  if (typeof q !== 'object' || q === null) throw new TypeError(`${where}: query must be an object`);
  const limit = q.limit ?? AUDIT_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new TypeError(`${where}: limit must be a positive integer (rows)`);
  if (q.since !== undefined && !Number.isFinite(q.since))
    throw new TypeError(`${where}: since must be epoch milliseconds (a finite number)`);
  const parts: string[] = [];
  const s = q.scope ?? {};
  const add = (key: string, value: unknown, column: string) => {
    if (value !== undefined) parts.push(`${column} = ${ph(key, value)}`);
  };
  add('tenant', s.tenant, 'tenant');
  add('user', s.user, '"user"');
  if (s.session === null) parts.push('session IS NULL');
  else add('session', s.session, 'session');
  add('server', q.server, 'server');
  add('kind', q.kind, 'kind');
  add('requestId', q.requestId, 'request_id');
  if (q.since !== undefined) parts.push(`ts >= ${ph('since', Math.trunc(q.since))}`);
  return { where: parts.length ? ` WHERE ${parts.join(' AND ')}` : '', limit };
}

/**
 * Migration 8: a cheaper `audit` table (docs/store.md "Tables"). Each index and the `sqlite_sequence`
 * row of `AUTOINCREMENT` is one more page written per commit, so on SQLite the table is rebuilt (ids,
 * rows, the scope index and the append-only triggers kept) without `AUTOINCREMENT` and without the
 * `audit_ts` and `audit_request` indexes: retention by age walks ids from the oldest instead, and no
 * product read filters by request id (a `queryAudit({requestId})` scans the table). Ids stay never
 * reused without `AUTOINCREMENT`: `audit_seq.high` (SQLite only) holds the highest id a retention or
 * purge run may have deleted, and an insert takes one more than the larger of it and the newest id.
 * PostgreSQL's identity column never reuses ids anyway; there the step only drops the two indexes.
 */
export const AUDIT_LEAN_MIGRATION = {
  version: 8,
  description: 'cheaper audit appends: audit without AUTOINCREMENT (audit_seq keeps ids unique), without the ts and request_id indexes',
  sql: `
    CREATE TABLE audit_seq (id INTEGER PRIMARY KEY CHECK (id = 1), high INTEGER NOT NULL);
    INSERT INTO audit_seq (id, high) VALUES (1, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'audit'), 0));
    CREATE TABLE audit_v8 (
      id          INTEGER PRIMARY KEY,
      ts          INTEGER NOT NULL,
      tenant      TEXT NOT NULL,
      user        TEXT NOT NULL,
      session     TEXT,
      server      TEXT NOT NULL,
      kind        TEXT NOT NULL,
      request_id  TEXT,
      action      TEXT,
      duration_ms REAL,
      detail      TEXT,
      redact_keys TEXT
    );
    INSERT INTO audit_v8 (id, ts, tenant, user, session, server, kind, request_id, action, duration_ms, detail, redact_keys)
      SELECT id, ts, tenant, user, session, server, kind, request_id, action, duration_ms, detail, redact_keys FROM audit ORDER BY id;
    DROP TABLE audit;
    ALTER TABLE audit_v8 RENAME TO audit;
    CREATE INDEX audit_scope ON audit (tenant, user, session, id);
    CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
      BEGIN SELECT RAISE(ABORT, 'parley audit log is append-only: UPDATE is not allowed'); END;
    CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit WHEN NOT EXISTS (SELECT 1 FROM audit_purge_gate)
      BEGIN SELECT RAISE(ABORT, 'parley audit log is append-only: DELETE is not allowed'); END;
  `,
  postgres: `
    DROP INDEX audit_request;
    DROP INDEX audit_ts;
  `,
};

/**
 * Migration 9: migration 8's guarantee that an audit id is never handed out twice held only for
 * parley's own INSERT (which takes one more than the newest id and than `audit_seq.high`). Another
 * client inserting without an id (the `sqlite3` CLI, an older parley still running during an upgrade)
 * got SQLite's max(rowid) + 1, which after a purge of the newest rows is an id already used. Now the
 * database refuses such an insert, and refuses to delete `audit_seq` or lower its `high`. PostgreSQL's
 * identity column never reuses a value: nothing to add there.
 */
export const AUDIT_IDS_MIGRATION = {
  version: 9,
  description: 'audit ids never reused by any client: inserts at or below audit_seq.high refused; audit_seq cannot be deleted or lowered',
  sql: `
    CREATE TRIGGER audit_ids_fresh AFTER INSERT ON audit WHEN NEW.id <= (SELECT high FROM audit_seq)
      BEGIN SELECT RAISE(ABORT, 'parley audit ids are never reused: this id was deleted by retention or a purge; append through parley'); END;
    CREATE TRIGGER audit_seq_no_delete BEFORE DELETE ON audit_seq
      BEGIN SELECT RAISE(ABORT, 'parley audit_seq keeps audit ids unique: DELETE is not allowed'); END;
    CREATE TRIGGER audit_seq_no_lower BEFORE UPDATE ON audit_seq WHEN NEW.high < OLD.high OR NEW.id <> OLD.id
      BEGIN SELECT RAISE(ABORT, 'parley audit_seq keeps audit ids unique: high may only grow'); END;
  `,
  postgres: 'SELECT 1',
};

/** Statements of the audit table, prepared once per store. */
export function auditTable(db: Database.Database) {
  const insert = db.prepare(
    // The id: one more than the newest row and than any id retention or purge deleted (migration 8).
    `INSERT INTO audit (id, ts, tenant, user, session, server, kind, request_id, action, duration_ms, detail, redact_keys)
     VALUES (max(coalesce((SELECT max(id) FROM audit), 0), (SELECT high FROM audit_seq)) + 1,
             @ts, @tenant, @user, @session, @server, @kind, @requestId, @action, @durationMs, @detail, @redactKeys)`,
  );
  // One prepared statement per combination of filters present; the SQL text is built only from the
  // fixed fragments in auditQuery, never from values.
  const queries = new Map<string, Database.Statement>();
  const openGate = db.prepare('INSERT INTO audit_purge_gate (open) VALUES (1)');
  const closeGate = db.prepare('DELETE FROM audit_purge_gate');
  const delUser = db.prepare('DELETE FROM audit WHERE tenant = ? AND user = ?');
  // Retention by age walks ids from the oldest (no index on ts): rows older than the cutoff below the
  // oldest row stamped between the cutoff and now are deleted. A row stamped after now (the clock ran
  // ahead when it was written, or runs behind now) is skipped by the walk, else it would hold back
  // every old row after it until its time came, and it is not deleted (its ts is not older).
  const firstKept = db.prepare('SELECT id FROM audit WHERE ts >= ? AND ts <= ? ORDER BY id LIMIT 1');
  const delBelow = db.prepare('DELETE FROM audit WHERE id < ? AND ts < ?');
  const keepHigh = db.prepare('UPDATE audit_seq SET high = max(high, coalesce((SELECT max(id) FROM audit), 0))');
  const nthNewest = db.prepare('SELECT id FROM audit ORDER BY id DESC LIMIT 1 OFFSET ?');
  const delUpTo = db.prepare('DELETE FROM audit WHERE id <= ?');
  /** Runs `fn` with the purge gate open; the caller holds a transaction. Deleted ids are never reused. */
  const gated = (fn: () => number): number => {
    keepHigh.run();
    openGate.run();
    try {
      return fn();
    } finally {
      closeGate.run();
    }
  };

  return {
    /** Inserts checked rows; the caller holds the transaction. @returns ids in order. */
    insert(rows: AuditParams[]): number[] {
      return rows.map((p) => Number(insert.run(p).lastInsertRowid));
    },

    query(q: AuditQuery = {}): AuditRecord[] {
      const params: Record<string, unknown> = {};
      const { where, limit } = auditQuery(q, (name, value) => {
        params[name] = value;
        return `@${name}`;
      });
      params.limit = limit;
      const sql = `SELECT * FROM audit${where} ORDER BY id DESC LIMIT @limit`;
      let stmt = queries.get(sql);
      if (!stmt) queries.set(sql, (stmt = db.prepare(sql)));
      return (stmt.all(params) as AuditRow[]).map(auditFromRow);
    },

    /** Deletes one user's rows; the caller holds the transaction. */
    purgeUser(tenant: string, user: string): number {
      return gated(() => delUser.run(tenant, user).changes);
    },

    /**
     * Deletes rows older than `cutoff` (epoch ms; `undefined` = none) from the oldest id up to the first
     * row stamped from `cutoff` to `now` (epoch ms), and rows beyond the newest `maxRows` (0 = no limit).
     */
    retain(cutoff: number | undefined, maxRows: number, now = Date.now()): number {
      return gated(() => {
        let n = 0;
        if (cutoff !== undefined) {
          const kept = firstKept.get(cutoff, now) as { id: number } | undefined;
          n += delBelow.run(kept ? kept.id : Number.MAX_SAFE_INTEGER, cutoff).changes;
        }
        if (maxRows > 0) {
          const edge = nthNewest.get(maxRows) as { id: number } | undefined;
          if (edge) n += delUpTo.run(edge.id).changes;
        }
        return n;
      });
    },
  };
}
