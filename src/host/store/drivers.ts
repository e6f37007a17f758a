/**
 * The database drivers, loaded on first use: a host without a SQLite store never loads the native
 * `better-sqlite3` module, and one without a PostgreSQL store never loads `pg` (docs/store.md).
 * Both packages are CommonJS, so `require` loads them synchronously where the store opens.
 * @module
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type Pg from 'pg';

const require = createRequire(import.meta.url);

/** The `better-sqlite3` constructor. @throws the module loader's error when the package is missing. */
export function sqliteDriver(): typeof BetterSqlite3 {
  return require('better-sqlite3') as typeof BetterSqlite3;
}

/** The `pg` module. @throws the module loader's error when the package is missing. */
export function pgDriver(): typeof Pg {
  return require('pg') as typeof Pg;
}
