/**
 * Choosing a store from one string (`--store <url>` / `PARLEY_STORE`): a `postgres://` or
 * `postgresql://` URL opens {@link openPostgresStore}; anything else is a SQLite file path.
 * @module
 */
import type Database from 'better-sqlite3';
import { sqliteDriver } from './drivers.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AuditRetention, Store } from './types.js';
import { openSqliteStore, type SqliteStoreOptions } from './sqlite.js';
import { openPostgresStore, postgresSchemaVersion, redactUrl } from './postgres.js';
import { toStoreError } from './errors.js';

/** The default store: a SQLite file relative to the working directory. */
export const DEFAULT_STORE = '.parley/parley.db';

/** Whether `target` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

export interface OpenStoreOptions {
  retention?: AuditRetention;
  /** PostgreSQL: how long to wait for a connection, in ms. @default 5000 */
  connectTimeoutMs?: number;
  /**
   * SQLite: `synchronous` level (see {@link SqliteStoreOptions.synchronous}); ignored for PostgreSQL.
   * @default 'NORMAL'
   */
  synchronous?: SqliteStoreOptions['synchronous'];
}

/**
 * Opens the store `target` names (creating a SQLite file and its directories if needed) and brings
 * its schema to the latest version.
 * @throws StoreError (`STORE_UNAVAILABLE`, `STORE_IO`, `STORE_CORRUPT`, `STORE_VERSION`).
 */
export async function openStore(target: string, opts: OpenStoreOptions = {}): Promise<Store> {
  if (isPostgresUrl(target)) return openPostgresStore(target, { retention: opts.retention, connectTimeoutMs: opts.connectTimeoutMs });
  return openSqliteStore(target, { retention: opts.retention, ...(opts.synchronous ? { synchronous: opts.synchronous } : {}) });
}

/**
 * The schema version `target` holds now, without migrating (0 = parley never wrote there; a SQLite
 * file that does not exist is not created).
 */
export async function storeSchemaVersion(target: string, connectTimeoutMs?: number): Promise<{ location: string; version: number }> {
  if (isPostgresUrl(target)) return { location: redactUrl(target), version: await postgresSchemaVersion(target, connectTimeoutMs) };
  const file = resolve(target);
  if (!existsSync(file)) return { location: file, version: 0 };
  let db: Database.Database | undefined;
  try {
    db = new (sqliteDriver())(file, { readonly: true, fileMustExist: true });
    return { location: file, version: db.pragma('user_version', { simple: true }) as number };
  } catch (err) {
    throw toStoreError(err, file, 'read the schema version');
  } finally {
    db?.close();
  }
}
