/**
 * Argument checks shared by the SQLite store's tables. Bad arguments are programming errors and throw
 * `TypeError`s that name the field and the rule; storage failures are `StoreError`s.
 * @module
 */
import type { Scope } from './types.js';

/** SQL parameters of a scope, as bound by every statement (`@tenant`, `@user`, `@session`). */
export interface ScopeParams {
  tenant: string;
  user: string;
  session: string | null;
}

/**
 * Checks `scope` and returns its SQL parameters.
 * @throws TypeError when `tenant` or `user` is not a non-empty string, or `session` is neither `null`
 *   nor a non-empty string.
 */
export function scopeParams(scope: Scope, where: string): ScopeParams {
  if (typeof scope !== 'object' || scope === null) throw new TypeError(`${where}: scope must be an object {tenant, user, session}`);
  for (const key of ['tenant', 'user'] as const) {
    if (typeof scope[key] !== 'string' || scope[key] === '') {
      throw new TypeError(`${where}: scope.${key} must be a non-empty string (use 'default' when there is no multi-user gateway)`);
    }
  }
  if (scope.session !== null && (typeof scope.session !== 'string' || scope.session === '')) {
    throw new TypeError(`${where}: scope.session must be a non-empty session id, or null for user-scoped rows`);
  }
  return { tenant: scope.tenant, user: scope.user, session: scope.session };
}

/** Throws a `TypeError` naming `field` unless `value` is a non-empty string. */
export function requireText(value: unknown, field: string, where: string): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${where}: ${field} must be a non-empty string`);
  return value;
}

/** `JSON.parse` that reports which row failed, for the corrupt-row path. */
export function parseJson(text: string | null, what: string): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    const e = new Error(`${what} holds invalid JSON`, { cause: err }) as Error & { code: string };
    e.code = 'SQLITE_CORRUPT_ROW';
    throw e;
  }
}
