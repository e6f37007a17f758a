/**
 * The embedded SQLite implementation of {@link Store}, on better-sqlite3 (synchronous).
 *
 * Durability: WAL journal with `synchronous=FULL` by default. Each write is one transaction; SQLite
 * fsyncs the WAL at every commit, so a record that `appendAudit` returned survives a SIGKILL of the
 * process and also an OS crash or power loss; a record whose transaction had not committed is rolled
 * back on the next open and never appears half-written. `synchronous: 'NORMAL'` still survives SIGKILL
 * (the WAL is in the OS page cache) but may lose the last commits on power loss.
 * @module
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { EraVerdictStore, RememberedAnswerList, Store } from './types.js';
import { StoreError, toStoreError } from './errors.js';
import { migrate, SCHEMA_VERSION } from './migrations.js';
import { auditTable } from './audit.js';
import { answersTable } from './answers.js';
import { presetsTable } from './presets.js';
import { rootsTable } from './roots.js';
import { eraVerdictsTable } from './era-verdicts.js';
import { answerListTable } from './answer-list.js';

export interface SqliteStoreOptions {
  /**
   * SQLite `synchronous` level in WAL mode. `'FULL'`: a commit is on disk when the call returns (power-loss
   * safe). `'NORMAL'`: SIGKILL-safe, faster, may lose the newest commits on power loss.
   * @default 'FULL'
   */
  synchronous?: 'FULL' | 'NORMAL';
  /**
   * How long a statement waits for another connection's lock before failing with `STORE_IO`, in ms.
   * @default 5000
   */
  busyTimeoutMs?: number;
  /**
   * Run `PRAGMA quick_check` when opening (time grows with the file size) and fail with `STORE_CORRUPT`
   * unless it reports `ok`. Without it, a damaged header is still detected at open; damaged pages are
   * detected when read.
   * @default false
   */
  verify?: boolean;
}

/** The SQLite store: a {@link Store} plus what it knows about its file. */
export interface SqliteStore extends Store {
  listAnswers: RememberedAnswerList['listAnswers'];
  recallEntry: RememberedAnswerList['recallEntry'];
  setAnswerMode: RememberedAnswerList['setAnswerMode'];
  forgetAnswer: RememberedAnswerList['forgetAnswer'];
  getEraVerdict: EraVerdictStore['getEraVerdict'];
  putEraVerdict: EraVerdictStore['putEraVerdict'];
  deleteEraVerdict: EraVerdictStore['deleteEraVerdict'];
  /** Absolute path of the database file, or `':memory:'`. */
  readonly file: string;
  /** Schema version of the open database (always the latest this code knows). */
  readonly schemaVersion: number;
  /** Runs `fn` in one `BEGIN IMMEDIATE` transaction (nested calls become savepoints); rolls back if it throws. */
  transaction<T>(fn: () => T): T;
  /** The connection's effective settings, read back from SQLite (for diagnostics and tests). */
  settings(): { journalMode: string; synchronous: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA'; foreignKeys: boolean; busyTimeoutMs: number };
  /** `PRAGMA integrity_check` result rows; `['ok']` for a healthy file. */
  integrityCheck(): string[];
}

/**
 * Opens (creating it and its parent directories if needed) the SQLite store at `path` and brings its
 * schema to the latest version. Pragmas: `journal_mode=WAL`, `synchronous` per options,
 * `foreign_keys=ON`, `busy_timeout` per options.
 * @param path File path, or `':memory:'` for a private in-memory database (tests).
 * @throws StoreError `STORE_IO` (directory or file cannot be created/opened, lock timeout),
 *   `STORE_CORRUPT` (not a SQLite database, or `verify` failed), `STORE_VERSION` (written by a newer parley).
 */
export function openSqliteStore(path: string | ':memory:', opts: SqliteStoreOptions = {}): SqliteStore {
  const file = path === ':memory:' ? path : resolve(path);
  const synchronous = opts.synchronous ?? 'FULL';
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') throw new TypeError(`openSqliteStore: synchronous must be 'FULL' or 'NORMAL'`);
  const busyTimeoutMs = opts.busyTimeoutMs ?? 5000;
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) throw new TypeError('openSqliteStore: busyTimeoutMs must be a non-negative integer (ms)');

  let db: Database.Database;
  try {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    db = new Database(file, { timeout: busyTimeoutMs });
  } catch (err) {
    throw toStoreError(err, file, 'open the store');
  }
  try {
    db.pragma('journal_mode = WAL'); // first read of the header: a non-database fails here
    db.pragma(`synchronous = ${synchronous}`); // checked literal above; PRAGMA takes no parameters
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    if (opts.verify) {
      const rows = db.pragma('quick_check', { simple: false }) as Array<{ quick_check: string }>;
      if (rows.length !== 1 || rows[0].quick_check !== 'ok') {
        throw new StoreError('STORE_CORRUPT', file, `${file} failed PRAGMA quick_check (${rows.slice(0, 3).map((r) => r.quick_check).join('; ')}). Move the file aside and start again, or restore a backup.`);
      }
    }
    migrate(db, file);
  } catch (err) {
    db.close();
    throw toStoreError(err, file, 'open the store');
  }
  return wrap(db, file);
}

function wrap(db: Database.Database, file: string): SqliteStore {
  const audit = auditTable(db);
  const answers = answersTable(db);
  const presets = presetsTable(db);
  const roots = rootsTable(db);
  const verdicts = eraVerdictsTable(db);
  const answerList = answerListTable(db);
  let closed = false;

  function run<T>(action: string, fn: () => T): T {
    if (closed) throw new StoreError('STORE_CLOSED', file, `Cannot ${action}: the store on ${file} is closed. Open it again with openSqliteStore().`);
    try {
      return fn();
    } catch (err) {
      throw toStoreError(err, file, action);
    }
  }

  return {
    file,
    schemaVersion: SCHEMA_VERSION,
    appendAudit: (rec) => run('append an audit record', () => audit.append(rec)),
    queryAudit: (q) => run('query the audit log', () => audit.query(q)),
    remember: (a) => run('remember an answer', () => answers.remember(a)),
    recall: (scope, server, hash) => run('recall an answer', () => answers.recall(scope, server, hash)),
    forget: (scope, server) => run('forget answers', () => answers.forget(scope, server)),
    listAnswers: (scope) => run('list remembered answers', () => answerList.list(scope)),
    recallEntry: (scope, server, hash) => run('recall an answer', () => answerList.recall(scope, server, hash)),
    setAnswerMode: (scope, server, hash, auto, label) => run('set a remembered answer mode', () => answerList.setMode(scope, server, hash, auto, label)),
    forgetAnswer: (scope, server, hash) => run('forget an answer', () => answerList.forgetOne(scope, server, hash)),
    savePreset: (p) => run('save a preset', () => presets.save(p)),
    loadPreset: (scope, name) => run('load a preset', () => presets.load(scope, name)),
    listPresets: (scope) => run('list presets', () => presets.list(scope)),
    deletePreset: (scope, name) => run('delete a preset', () => presets.delete(scope, name)),
    putRoot: (r) => run('save a root', () => roots.put(r)),
    deleteRoot: (scope, uri) => run('delete a root', () => roots.delete(scope, uri)),
    listRoots: (scope) => run('list roots', () => roots.list(scope)),
    getEraVerdict: (defHash) => run('read an era verdict', () => verdicts.getEraVerdict(defHash)),
    putEraVerdict: (v) => run('save an era verdict', () => verdicts.putEraVerdict(v)),
    deleteEraVerdict: (defHash) => run('delete an era verdict', () => verdicts.deleteEraVerdict(defHash)),
    transaction: (fn) => run('run a transaction', () => db.transaction(fn).immediate()),
    settings: () =>
      run('read settings', () => ({
        journalMode: String(db.pragma('journal_mode', { simple: true })),
        synchronous: (['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const)[db.pragma('synchronous', { simple: true }) as number],
        foreignKeys: db.pragma('foreign_keys', { simple: true }) === 1,
        busyTimeoutMs: db.pragma('busy_timeout', { simple: true }) as number,
      })),
    integrityCheck: () =>
      run('check integrity', () => (db.pragma('integrity_check', { simple: false }) as Array<{ integrity_check: string }>).map((r) => r.integrity_check)),
    close() {
      if (closed) return; // idempotent
      closed = true;
      try {
        db.close();
      } catch (err) {
        throw toStoreError(err, file, 'close the store');
      }
    },
  };
}
