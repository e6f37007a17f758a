/**
 * The audit log table: append and query. There is no update or delete API, and database triggers
 * (migration 2) abort any UPDATE or DELETE on `audit`, so the log is append-only for every client of
 * the file.
 * @module
 */
import type Database from 'better-sqlite3';
import { REDACTED, type AuditQuery, type AuditRecord } from './types.js';
import { parseJson, requireText, scopeParams } from './scope.js';

/** Default `limit` of {@link AuditQuery}, in rows. */
export const AUDIT_DEFAULT_LIMIT = 200;

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

interface AuditRow {
  id: number;
  ts: number;
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

function fromRow(r: AuditRow): AuditRecord {
  const rec: AuditRecord = {
    id: r.id,
    ts: r.ts,
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

/** Statements of the audit table, prepared once per store. */
export function auditTable(db: Database.Database) {
  const insert = db.prepare(
    `INSERT INTO audit (ts, tenant, user, session, server, kind, request_id, action, duration_ms, detail, redact_keys)
     VALUES (@ts, @tenant, @user, @session, @server, @kind, @requestId, @action, @durationMs, @detail, @redactKeys)`,
  );
  // One prepared statement per combination of filters present; the SQL text is built only from the
  // fixed fragments below, never from values.
  const queries = new Map<string, Database.Statement>();

  return {
    /** @returns the new record's id (strictly increasing, never reused). */
    append(rec: AuditRecord): number {
      const where = 'appendAudit';
      const scope = scopeParams(rec.scope, where);
      if (!Number.isFinite(rec.ts)) throw new TypeError(`${where}: ts must be epoch milliseconds (a finite number)`);
      requireText(rec.server, 'server', where);
      requireText(rec.kind, 'kind', where);
      if (rec.durationMs !== undefined && !Number.isFinite(rec.durationMs)) throw new TypeError(`${where}: durationMs must be a finite number of ms`);
      const keys = rec.redactKeys ?? [];
      if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string')) throw new TypeError(`${where}: redactKeys must be an array of strings`);
      if (rec.detail !== undefined && (typeof rec.detail !== 'object' || rec.detail === null || Array.isArray(rec.detail))) {
        throw new TypeError(`${where}: detail must be a plain object`);
      }
      const detail = rec.detail === undefined ? null : JSON.stringify(redact(rec.detail, new Set(keys)));
      const info = insert.run({
        ts: Math.trunc(rec.ts),
        ...scope,
        server: rec.server,
        kind: rec.kind,
        requestId: rec.requestId ?? null,
        action: rec.action ?? null,
        durationMs: rec.durationMs ?? null,
        detail,
        redactKeys: keys.length > 0 ? JSON.stringify(keys) : null,
      });
      return Number(info.lastInsertRowid);
    },

    query(q: AuditQuery = {}): AuditRecord[] {
      const where = 'queryAudit';
      const limit = q.limit ?? AUDIT_DEFAULT_LIMIT;
      if (!Number.isInteger(limit) || limit < 1) throw new TypeError(`${where}: limit must be a positive integer (rows)`);
      if (q.since !== undefined && !Number.isFinite(q.since)) throw new TypeError(`${where}: since must be epoch milliseconds (a finite number)`);
      const parts: string[] = [];
      const params: Record<string, unknown> = { limit };
      const s = q.scope ?? {};
      const add = (key: string, value: unknown, sql: string) => {
        if (value === undefined) return;
        parts.push(sql);
        params[key] = value;
      };
      add('tenant', s.tenant, 'tenant = @tenant');
      add('user', s.user, 'user = @user');
      if (s.session === null) parts.push('session IS NULL');
      else add('session', s.session, 'session = @session');
      add('server', q.server, 'server = @server');
      add('kind', q.kind, 'kind = @kind');
      add('requestId', q.requestId, 'request_id = @requestId');
      add('since', q.since === undefined ? undefined : Math.trunc(q.since), 'ts >= @since');
      const sql = `SELECT * FROM audit${parts.length ? ` WHERE ${parts.join(' AND ')}` : ''} ORDER BY id DESC LIMIT @limit`;
      let stmt = queries.get(sql);
      if (!stmt) queries.set(sql, (stmt = db.prepare(sql)));
      return (stmt.all(params) as AuditRow[]).map(fromRow);
    },
  };
}
