/**
 * Persisted roots per scope. Reads match the scope exactly (an app-lifetime root saved with session
 * `null` is listed under the user scope, not under each session).
 * @module
 */
import type Database from 'better-sqlite3';
import type { Scope, StoredRoot } from './types.js';
import { requireText, scopeParams } from './scope.js';

const LIFETIMES = new Set(['app', 'session', 'request']);
const SOURCES = new Set(['user', 'config', 'upstream', 'tool']);

export interface RootRow {
  tenant: string;
  user: string;
  session: string | null;
  uri: string;
  name: string | null;
  lifetime: StoredRoot['lifetime'];
  source: StoredRoot['source'];
}

/** Checks `r` and returns its column values. @throws TypeError on an unknown lifetime/source. */
export function rootParams(r: StoredRoot) {
  const where = 'putRoot';
  if (typeof r !== 'object' || r === null) throw new TypeError(`${where}: root must be an object`);
  const scope = scopeParams(r.scope, where);
  requireText(r.uri, 'uri', where);
  if (!LIFETIMES.has(r.lifetime)) throw new TypeError(`${where}: lifetime must be 'app', 'session' or 'request'`);
  if (!SOURCES.has(r.source)) throw new TypeError(`${where}: source must be 'user', 'config', 'upstream' or 'tool'`);
  if (r.name !== undefined && typeof r.name !== 'string') throw new TypeError(`${where}: name must be a string when present`);
  return { ...scope, uri: r.uri, name: r.name ?? null, lifetime: r.lifetime, source: r.source };
}

export function rootFromRow(r: RootRow): StoredRoot {
  return {
    scope: { tenant: r.tenant, user: r.user, session: r.session },
    uri: r.uri,
    ...(r.name !== null ? { name: r.name } : {}),
    lifetime: r.lifetime,
    source: r.source,
  };
}

/** Statements of the roots table, prepared once per store. */
export function rootsTable(db: Database.Database) {
  const SCOPE = 'tenant = @tenant AND user = @user AND session IS @session';
  const del = db.prepare(`DELETE FROM roots WHERE ${SCOPE} AND uri = @uri`);
  const ins = db.prepare(
    `INSERT INTO roots (tenant, user, session, uri, name, lifetime, source) VALUES (@tenant, @user, @session, @uri, @name, @lifetime, @source)`,
  );
  const all = db.prepare(`SELECT * FROM roots WHERE ${SCOPE} ORDER BY uri`);
  const upsert = db.transaction((p: Record<string, unknown>) => {
    del.run(p);
    ins.run(p);
  });

  return {
    /** Adds or replaces the root `r.uri` in `r.scope`. @throws TypeError on an unknown lifetime/source. */
    put(r: StoredRoot): void {
      upsert.immediate(rootParams(r));
    },
    /** @returns whether a root was removed. */
    delete(scope: Scope, uri: string): boolean {
      return del.run({ ...scopeParams(scope, 'deleteRoot'), uri: requireText(uri, 'uri', 'deleteRoot') }).changes > 0;
    },
    list(scope: Scope): StoredRoot[] {
      return (all.all(scopeParams(scope, 'listRoots')) as RootRow[]).map(rootFromRow);
    },
  };
}
