/**
 * The embedded SQLite implementation of {@link Store}, on better-sqlite3 (synchronous driver, Promise
 * interface).
 *
 * Durability: WAL journal with `synchronous=NORMAL` by default. Every commit hands its WAL frames to the
 * OS with write() before its promise resolves, so a record whose `appendAudit` promise resolved survives
 * a SIGKILL of the process (the kernel keeps the file's pages); what NORMAL gives up is only the newest
 * commits on an OS crash or power loss, which `synchronous: 'FULL'` covers with an fsync of the WAL per
 * group commit. A transaction that had not committed is rolled back on the next open and never appears
 * half-written.
 *
 * Group commit: `appendAudit` queues the record and resolves once it is committed; every record queued
 * during one event-loop turn is written in ONE transaction (one fsync) at `setImmediate`, so a flood of
 * audit rows costs one commit per turn instead of one per row (docs/store.md "Group commit"). A call that
 * reads or changes the audit table (query, purge, retention, a transaction) first commits the queue, so
 * it sees every append made before it; other tables' calls leave the queue to its turn. With `synchronous=FULL`
 * that fsync runs on libuv's thread pool rather than the event loop: the batch commits without a sync
 * (SIGKILL-safe at once), then the WAL file is fsynced and only then do the batch's promises resolve, so
 * a resolved append is as durable as a FULL commit while the process keeps serving meanwhile.
 *
 * Deferred rows (`appendAudit(rec, { defer: true })`, rows nobody waits on): queued like the others but
 * without a commit of their own; they are written in the transaction of the next ordinary append (or
 * audit read), and at the latest `deferMs` (default 50 ms) after the first of them was queued. The queue
 * keeps append order, so ids ascend in append order and a committed row implies every row appended
 * before it is committed. A SIGKILL can lose only deferred rows queued less than `deferMs` before it
 * with no ordinary commit after them; never a resolved append, never a row an answer the broker
 * confirmed depends on (it waits for its rows' commit, `Auditor.settled`). `close()` commits them.
 * @module
 */
import type Database from 'better-sqlite3';
import { createPrivateFile, sqliteDriver } from './drivers.js';
import { closeSync, fsync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AuditRetention, EraVerdict, Preset, PurgeResult, RememberedAnswerList, Store } from './types.js';
import { StoreError, toStoreError } from './errors.js';
import { migrate, SCHEMA_VERSION } from './migrations.js';
import { auditParams, auditTable, type AuditParams } from './audit.js';
import { answersTable } from './answers.js';
import { presetsTable } from './presets.js';
import { rootsTable } from './roots.js';
import { eraVerdictsTable } from './era-verdicts.js';
import { answerListTable } from './answer-list.js';
import { signInsTable } from './sign-ins.js';
import { requireText } from './scope.js';
import { retentionPolicy, type RetentionPolicy } from './retention.js';

export interface SqliteStoreOptions {
  /**
   * SQLite `synchronous` level in WAL mode. `'NORMAL'`: a commit is written to the OS before the call
   * returns, so it survives SIGKILL; the newest commits may be lost on an OS crash or power loss.
   * `'FULL'`: also fsyncs the WAL before an append resolves (power-loss safe; one fsync per group commit,
   * off the event loop). The CLI reads `$PARLEY_STORE_SYNC`.
   * @default 'NORMAL'
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
  /** Audit retention; see {@link AuditRetention} for the defaults. */
  retention?: AuditRetention;
  /**
   * Most audit records committed in one group-commit transaction; more wait for the next turn.
   * @default 1000
   */
  maxBatch?: number;
  /**
   * `false`: every `appendAudit` commits at once on its own, synchronously on the calling thread (the
   * behaviour before group commit; kept for the `flood` benchmark's comparison). @default true
   */
  groupCommit?: boolean;
  /**
   * Longest a deferred audit row (`appendAudit(rec, { defer: true })`) waits for an ordinary commit to
   * ride along with before it is committed alone, in ms (docs/store.md "Deferred rows").
   * @default 50
   */
  deferMs?: number;
}

/** The SQLite store: a {@link Store} plus what it knows about its file. */
export interface SqliteStore extends Store {
  readonly engine: 'sqlite';
  listAnswers: RememberedAnswerList['listAnswers'];
  recallEntry: RememberedAnswerList['recallEntry'];
  setAnswerMode: RememberedAnswerList['setAnswerMode'];
  forgetAnswer: RememberedAnswerList['forgetAnswer'];
  /** Absolute path of the database file, or `':memory:'`. */
  readonly file: string;
  /** The connection's effective settings, read back from SQLite (for diagnostics and tests). */
  settings(): Promise<{
    journalMode: string;
    synchronous: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
    foreignKeys: boolean;
    busyTimeoutMs: number;
  }>;
  /** `PRAGMA integrity_check` result rows; `['ok']` for a healthy file. */
  integrityCheck(): Promise<string[]>;
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
  const synchronous = opts.synchronous ?? 'NORMAL';
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') throw new TypeError(`openSqliteStore: synchronous must be 'FULL' or 'NORMAL'`);
  const busyTimeoutMs = opts.busyTimeoutMs ?? 5000;
  retentionPolicy(opts.retention); // argument check before any file is touched
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0)
    throw new TypeError('openSqliteStore: busyTimeoutMs must be a non-negative integer (ms)');
  if (opts.deferMs !== undefined && (!Number.isInteger(opts.deferMs) || opts.deferMs < 0 || opts.deferMs > 60_000))
    throw new TypeError('openSqliteStore: deferMs must be an integer from 0 to 60000 (ms)');

  let db: Database.Database;
  try {
    if (file !== ':memory:') createPrivateFile(file);
    db = new (sqliteDriver())(file, { timeout: busyTimeoutMs });
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
        throw new StoreError(
          'STORE_CORRUPT',
          file,
          `${file} failed PRAGMA quick_check (${rows
            .slice(0, 3)
            .map((r) => r.quick_check)
            .join('; ')}). Move the file aside and start again, or restore a backup.`,
        );
      }
    }
    migrate(db, file);
  } catch (err) {
    db.close();
    throw toStoreError(err, file, 'open the store');
  }
  return wrap(db, file, opts);
}

function wrap(db: Database.Database, file: string, opts: SqliteStoreOptions): SqliteStore {
  const audit = auditTable(db);
  const answers = answersTable(db);
  const presets = presetsTable(db);
  const roots = rootsTable(db);
  const verdicts = eraVerdictsTable(db);
  const answerList = answerListTable(db);
  const signIns = signInsTable(db);
  const retention: RetentionPolicy = retentionPolicy(opts.retention);
  const maxBatch = opts.maxBatch ?? 1000;
  // Prepared once: better-sqlite3 compiles a wrapper per db.transaction() call.
  const insertBatch = db.transaction((rows: AuditParams[]) => audit.insert(rows));
  let closed = false;
  /** Set while a `transaction()` is open: every other call waits for it. */
  let txDone: Promise<void> | undefined;

  // Group commit: records queued this turn, committed together.
  let queue: Array<{ p: AuditParams; resolve: (id: number) => void; reject: (e: unknown) => void }> = [];
  let scheduled: NodeJS.Immediate | undefined;
  // Deferred rows: queued without `urgent`; they ride along with the next ordinary commit, or commit
  // when `deferTimer` fires (at most deferMs after the first of them was queued).
  const deferMs = opts.deferMs ?? 50;
  let urgent = false;
  let deferTimer: NodeJS.Timeout | undefined;

  const closedError = (action: string) =>
    new StoreError('STORE_CLOSED', file, `Cannot ${action}: the store on ${file} is closed. Open it again with openSqliteStore().`);

  // FULL on a file: the group commit's fsync runs off the event loop (module comment). A synchronous
  // fsync here blocked every other request of a gateway for its duration (5-10 ms on the bench VM).
  const offLoop = (opts.synchronous ?? 'NORMAL') === 'FULL' && file !== ':memory:' && opts.groupCommit !== false;
  const relaxed = offLoop ? db.prepare('PRAGMA synchronous = NORMAL') : undefined;
  const strict = offLoop ? db.prepare('PRAGMA synchronous = FULL') : undefined;
  let walFd: number | undefined;
  /** Committed batches waiting for the next fsync; one fsync at a time covers all that committed before it. */
  let unsynced: Array<{ batch: typeof queue; ids: number[] }> = [];
  let syncing = false;
  const drained: Array<() => void> = [];

  function startSync(): void {
    syncing = true;
    const mine = unsynced;
    unsynced = [];
    const finish = (err: unknown) => {
      syncing = false;
      const mapped = err ? toStoreError(err, file, 'append an audit record') : undefined;
      for (const { batch, ids } of mine) batch.forEach((b, n) => (mapped ? b.reject(mapped) : b.resolve(ids[n])));
      if (unsynced.length) startSync();
      if (queue.length) schedule(); // appends that waited for this fsync: one commit for all of them
      if (!syncing) drained.splice(0).forEach((f) => f());
    };
    try {
      walFd ??= openSync(`${file}-wal`, 'r');
      fsync(walFd, finish);
    } catch (err) {
      queueMicrotask(() => finish(err));
    }
  }

  /** Resolves each record of a committed batch: at once, or after an fsync of the WAL (off the loop). */
  function confirm(batch: typeof queue, ids: number[]): void {
    if (!offLoop) return batch.forEach((b, n) => b.resolve(ids[n]));
    unsynced.push({ batch, ids });
    if (!syncing) startSync();
  }

  /** Commits every queued audit record (up to maxBatch per transaction) in one transaction each. */
  function flush(): void {
    scheduled = undefined;
    urgent = false;
    if (deferTimer) clearTimeout(deferTimer);
    deferTimer = undefined;
    while (queue.length > 0) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      let ids: number[];
      try {
        relaxed?.run();
        try {
          ids = insertBatch.immediate(batch.map((b) => b.p));
        } finally {
          strict?.run();
        }
      } catch (err) {
        const mapped = toStoreError(err, file, 'append an audit record');
        for (const b of batch) b.reject(mapped);
        continue;
      }
      confirm(batch, ids);
    }
  }

  /**
   * Commits the queue at the end of this turn; while an fsync is in flight, when it completes (its
   * callback calls this again): a batch committed meanwhile would wait for the next fsync anyway, and
   * one commit for all of them writes each touched page once.
   */
  function schedule(): void {
    if (!urgent) {
      // Only deferred rows are queued: wait for an ordinary append, at most deferMs (ref'd, like the
      // immediate below, so a process that ends by itself commits them first).
      if (queue.length && !deferTimer)
        deferTimer = setTimeout(() => {
          deferTimer = undefined;
          urgent = true;
          schedule();
        }, deferMs);
      return;
    }
    if (scheduled || queue.length === 0 || syncing) return;
    scheduled = setImmediate(() => {
      scheduled = undefined; // else the retry below after a transaction() would find it set and return
      if (txDone) void txDone.then(schedule, schedule);
      else if (!closed) flush();
    });
  }

  /**
   * Runs a synchronous table call after any open transaction; maps errors. `audit`: the call reads or
   * changes the audit table, so the queued appends are committed first. Other tables' calls (the
   * broker's remembered-answer read on every request) leave the queue to its group commit.
   */
  function run<T>(action: string, fn: () => T, audit = false): Promise<T> {
    if (txDone) return txDone.then(() => run(action, fn, audit));
    if (closed) return Promise.reject(closedError(action));
    try {
      if (audit && queue.length) flush();
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(toStoreError(err, file, action));
    }
  }

  function retain(): number {
    const now = Date.now();
    const cutoff = retention.maxAgeMs > 0 ? now - retention.maxAgeMs : undefined;
    return db.transaction(() => audit.retain(cutoff, retention.maxRows, now)).immediate();
  }

  const store: SqliteStore = {
    engine: 'sqlite',
    file,
    location: file,
    schemaVersion: SCHEMA_VERSION,
    appendAudit(rec, o) {
      if (closed) return Promise.reject(closedError('append an audit record'));
      let p: AuditParams;
      try {
        p = auditParams(rec);
      } catch (err) {
        return Promise.reject(err);
      }
      return new Promise<number>((resolve, reject) => {
        queue.push({ p, resolve, reject });
        if (o?.defer !== true) urgent = true;
        if (opts.groupCommit === false && !txDone) flush();
        else schedule();
      });
    },
    queryAudit: (q) => run('query the audit log', () => audit.query(q), true),
    remember: (a) => run('remember an answer', () => answers.remember(a)),
    recall: (scope, server, hash) => run('recall an answer', () => answers.recall(scope, server, hash)),
    forget: (scope, server) => run('forget answers', () => answers.forget(scope, server)),
    listAnswers: (scope) => run('list remembered answers', () => answerList.list(scope)),
    recallEntry: (scope, server, hash) => run('recall an answer', () => answerList.recall(scope, server, hash)),
    setAnswerMode: (scope, server, hash, auto, label) =>
      run('set a remembered answer mode', () => answerList.setMode(scope, server, hash, auto, label)),
    forgetAnswer: (scope, server, hash) => run('forget an answer', () => answerList.forgetOne(scope, server, hash)),
    recordSignIn: (u) => run('record an OAuth sign-in', () => signIns.record(u)),
    listSignIns: (tenant) => run('list OAuth sign-ins', () => signIns.list(tenant)),
    revokeSignIn: (tenant, subject, at) => run('revoke an OAuth sign-in', () => signIns.revoke(tenant, subject, at)),
    savePreset: (p) => run('save a preset', () => presets.save(p)),
    loadPreset: (scope, name) => run('load a preset', () => presets.load(scope, name)),
    listPresets: (scope) => run('list presets', () => presets.list(scope)),
    deletePreset: (scope, name) => run('delete a preset', () => presets.delete(scope, name)),
    putRoot: (r) => run('save a root', () => roots.put(r)),
    deleteRoot: (scope, uri) => run('delete a root', () => roots.delete(scope, uri)),
    listRoots: (scope) => run('list roots', () => roots.list(scope)),
    getEraVerdict: (defHash) => run('read an era verdict', () => verdicts.getEraVerdict(defHash)),
    putEraVerdict: (v: EraVerdict) => run('save an era verdict', () => verdicts.putEraVerdict(v)),
    deleteEraVerdict: (defHash) => run('delete an era verdict', () => verdicts.deleteEraVerdict(defHash)),
    purgeUser: (tenant, user) =>
      run(
        'purge a user',
        (): PurgeResult => {
          requireText(tenant, 'tenant', 'purgeUser');
          requireText(user, 'user', 'purgeUser');
          return db
            .transaction(() => ({
              audit: audit.purgeUser(tenant, user),
              answers: answers.forget({ tenant, user, session: null }),
            }))
            .immediate();
        },
        true,
      ),
    enforceRetention: () => run('apply audit retention', retain, true),
    async transaction<T>(fn: (tx: Pick<Store, 'savePreset' | 'loadPreset'>) => Promise<T>): Promise<T> {
      while (txDone) await txDone;
      if (closed) throw closedError('run a transaction');
      try {
        if (queue.length) flush();
        db.exec('BEGIN IMMEDIATE');
      } catch (err) {
        throw toStoreError(err, file, 'begin a transaction');
      }
      let done!: () => void;
      txDone = new Promise<void>((r) => (done = r));
      // Inside the transaction the table calls run directly (the gate above holds everyone else back).
      const direct = <R>(action: string, f: () => R): Promise<R> => {
        try {
          return Promise.resolve(f());
        } catch (err) {
          return Promise.reject(toStoreError(err, file, action));
        }
      };
      const tx = {
        savePreset: (p: Preset) => direct('save a preset', () => presets.save(p)),
        loadPreset: (scope: Preset['scope'], name: string) => direct('load a preset', () => presets.load(scope, name)),
      };
      try {
        const out = await fn(tx);
        db.exec('COMMIT');
        return out;
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw toStoreError(err, file, 'run a transaction');
      } finally {
        txDone = undefined;
        done();
      }
    },
    settings: () =>
      run('read settings', () => ({
        journalMode: String(db.pragma('journal_mode', { simple: true })),
        synchronous: (['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const)[db.pragma('synchronous', { simple: true }) as number],
        foreignKeys: db.pragma('foreign_keys', { simple: true }) === 1,
        busyTimeoutMs: db.pragma('busy_timeout', { simple: true }) as number,
      })),
    integrityCheck: () =>
      run('check integrity', () =>
        (db.pragma('integrity_check', { simple: false }) as Array<{ integrity_check: string }>).map((r) => r.integrity_check),
      ),
    async close() {
      if (closed) return; // idempotent
      while (txDone) await txDone;
      if (closed) return;
      try {
        if (queue.length) flush();
      } finally {
        closed = true;
        if (scheduled) clearImmediate(scheduled);
        clearTimeout(deferTimer);
        clearInterval(timer);
      }
      if (syncing) await new Promise<void>((r) => drained.push(r));
      if (walFd !== undefined) closeSync(walFd);
      try {
        db.close();
      } catch (err) {
        throw toStoreError(err, file, 'close the store');
      }
    },
  };
  // Retention: once at open, then every intervalMs (unref'd: it never keeps the process alive). Best
  // effort: a failure here (a lock held elsewhere, a damaged page) does not stop the open; the next run
  // retries, and a damaged page is reported by the read that meets it.
  try {
    retain();
  } catch {
    /* see above */
  }
  const timer =
    retention.intervalMs > 0 ? setInterval(() => void store.enforceRetention().catch(() => undefined), retention.intervalMs) : undefined;
  timer?.unref();
  return store;
}
