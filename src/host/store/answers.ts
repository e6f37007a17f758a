/**
 * Remembered answers: what a person answered to one server's `requestedSchema`, kept so the host can
 * prefill (or, by policy, auto-answer) the same request later.
 *
 * Key: (tenant, user, session-or-null, server, schemaHash).
 * - `'once'`: never persisted; {@link answersTable}`.remember` ignores it, so it can never be recalled.
 * - `'session'`: stored under the session id; recalled only within that same session.
 * - `'always'`: stored with session `NULL`; recalled in every session of the same tenant and user.
 * Nothing is ever recalled across users or tenants: every statement binds both.
 * @module
 */
import type Database from 'better-sqlite3';
import type { Content } from '../../schema/types.js';
import type { RememberedAnswer, Scope } from './types.js';
import { parseJson, requireText, scopeParams } from './scope.js';

export interface AnswerRow {
  tenant: string;
  user: string;
  session: string | null;
  server: string;
  schema_hash: string;
  remember: 'session' | 'always';
  content: string;
  updated_at: number | string;
}

/** Column values of one remembered answer. */
export interface AnswerParams {
  tenant: string;
  user: string;
  session: string | null;
  server: string;
  schemaHash: string;
  remember: 'session' | 'always';
  content: string;
  updatedAt: number;
}

/**
 * Checks `a` and returns its column values, or `undefined` for `remember: 'once'` (never stored).
 * @throws TypeError naming the field.
 */
export function rememberParams(a: RememberedAnswer): AnswerParams | undefined {
  const where = 'remember';
  if (typeof a !== 'object' || a === null) throw new TypeError(`${where}: answer must be an object`);
  const scope = scopeParams(a.scope, where);
  requireText(a.server, 'server', where);
  requireText(a.schemaHash, 'schemaHash', where);
  if (a.remember === 'once') return undefined; // documented: 'once' is answered, never persisted for recall
  if (a.remember !== 'session' && a.remember !== 'always') throw new TypeError(`${where}: remember must be 'once', 'session' or 'always'`);
  if (a.remember === 'session' && scope.session === null) {
    throw new TypeError(`${where}: remember 'session' needs scope.session (a session id); use 'always' for user-scoped answers`);
  }
  if (typeof a.content !== 'object' || a.content === null || Array.isArray(a.content))
    throw new TypeError(`${where}: content must be an object`);
  if (!Number.isFinite(a.updatedAt)) throw new TypeError(`${where}: updatedAt must be epoch milliseconds`);
  return {
    ...scope,
    session: a.remember === 'always' ? null : scope.session,
    server: a.server,
    schemaHash: a.schemaHash,
    remember: a.remember,
    content: JSON.stringify(a.content),
    updatedAt: Math.trunc(a.updatedAt),
  };
}

export function answerFromRow(r: AnswerRow): RememberedAnswer {
  return {
    scope: { tenant: r.tenant, user: r.user, session: r.session },
    server: r.server,
    schemaHash: r.schema_hash,
    content: parseJson(r.content, `remembered answer for ${r.server}`) as Content,
    remember: r.remember,
    updatedAt: Number(r.updated_at),
  };
}

/** Statements of the answers table, prepared once per store. */
export function answersTable(db: Database.Database) {
  const del = db.prepare(
    `DELETE FROM answers WHERE tenant = @tenant AND user = @user AND session IS @session AND server = @server AND schema_hash = @schemaHash`,
  );
  const ins = db.prepare(
    `INSERT INTO answers (tenant, user, session, server, schema_hash, remember, content, updated_at)
     VALUES (@tenant, @user, @session, @server, @schemaHash, @remember, @content, @updatedAt)`,
  );
  // `session = NULL` is never true, so a null session recalls only the user's 'always' rows.
  const recall = db.prepare(
    `SELECT * FROM answers WHERE tenant = @tenant AND user = @user AND server = @server AND schema_hash = @schemaHash
       AND (session IS NULL OR session = @session)
     ORDER BY updated_at DESC, rowid DESC LIMIT 1`,
  );
  const forgetUser = db.prepare(`DELETE FROM answers WHERE tenant = @tenant AND user = @user AND (@server IS NULL OR server = @server)`);
  const forgetSession = db.prepare(
    `DELETE FROM answers WHERE tenant = @tenant AND user = @user AND (session IS NULL OR session = @session)
       AND (@server IS NULL OR server = @server)`,
  );
  const upsert = db.transaction((p: AnswerParams) => {
    del.run(p);
    ins.run(p);
  });

  return {
    remember(a: RememberedAnswer): void {
      const p = rememberParams(a);
      if (p) upsert.immediate(p);
    },

    recall(scope: Scope, server: string, schemaHash: string): RememberedAnswer | undefined {
      const p = scopeParams(scope, 'recall');
      const r = recall.get({ ...p, server, schemaHash }) as AnswerRow | undefined;
      return r && answerFromRow(r);
    },

    /**
     * With `scope.session === null`: removes all of the user's answers (every session and 'always').
     * With a session: removes everything `recall` could return in that session (its 'session' answers
     * and the user's 'always' answers). `server` narrows to one server.
     * @returns rows removed.
     */
    forget(scope: Scope, server?: string): number {
      const p = scopeParams(scope, 'forget');
      const params = { tenant: p.tenant, user: p.user, server: server ?? null };
      return p.session === null ? forgetUser.run(params).changes : forgetSession.run({ ...params, session: p.session }).changes;
    },
  };
}
