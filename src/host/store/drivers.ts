/**
 * The database drivers, loaded on first use: a host without a SQLite store never loads the native
 * `better-sqlite3` module, and one without a PostgreSQL store never loads `pg` (docs/store.md).
 * Both packages are CommonJS, so `require` loads them synchronously where the store opens.
 * @module
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
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

/**
 * Makes `file`'s folder (mode 0700 for each folder it creates) and creates `file` empty with mode 0600
 * when it does not exist yet, before SQLite opens it: the store holds remembered answers and the audit
 * log, and SQLite gives its `-wal` and `-shm` files the database file's mode. An existing file keeps its
 * mode (the owner chose it). An empty file is an empty SQLite database.
 * @throws the `fs` error (EACCES, ENOTDIR, …) when the folder or file cannot be made.
 */
export function createPrivateFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
