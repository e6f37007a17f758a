/**
 * The SQLite audit writer thread: audit appends of a file store are committed by a worker thread with
 * its own connection to the same WAL file, so a commit (an fsync with `synchronous=FULL`) never blocks
 * the event loop. Batches that arrive while a commit runs are committed together in the next one.
 * An append's promise resolves after its commit, as on the main thread: a record whose promise
 * resolved survives a SIGKILL. docs/store.md "Group commit".
 * @module
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { AuditParams } from './audit.js';
import { AUDIT_INSERT_SQL } from './audit.js';

/** The worker's code (plain CommonJS, so it runs the same from `dist/` and under tsx). */
const WORKER = `
const { parentPort, workerData: w } = require('node:worker_threads');
const db = new (require(w.driver))(w.file, { timeout: w.busyTimeoutMs });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = ' + w.synchronous);
db.pragma('busy_timeout = ' + w.busyTimeoutMs);
const insert = db.prepare(w.sql);
const commit = db.transaction((rows) => rows.map((p) => Number(insert.run(p).lastInsertRowid)));
let waiting = [];
function drain() {
  const batches = waiting;
  waiting = [];
  try {
    const ids = commit.immediate(batches.flatMap((b) => b.rows));
    let at = 0;
    for (const b of batches) parentPort.postMessage({ seq: b.seq, ids: ids.slice(at, (at += b.rows.length)) });
  } catch (err) {
    const error = { message: String((err && err.message) || err), code: err && err.code };
    for (const b of batches) parentPort.postMessage({ seq: b.seq, error });
  }
}
parentPort.on('message', (m) => {
  if (m === 'close') return db.close(), parentPort.close();
  waiting.push(m);
  if (waiting.length === 1) setImmediate(drain);
});
`;

type Reply = { seq: number; ids?: number[]; error?: { message: string; code?: string } };

export class AuditWriter {
  readonly #worker: Worker;
  readonly #inflight = new Map<number, { resolve: (ids: number[]) => void; reject: (e: unknown) => void }>();
  #seq = 0;
  #last: Promise<unknown> = Promise.resolve();
  #failed: Error | undefined;

  constructor(file: string, synchronous: 'FULL' | 'NORMAL', busyTimeoutMs: number) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.#worker = new Worker(WORKER, { eval: true, workerData: { driver, file, synchronous, busyTimeoutMs, sql: AUDIT_INSERT_SQL } });
    this.#worker.unref(); // ref'd only while a batch is in flight (see write)
    this.#worker.on('message', (r: Reply) => {
      const w = this.#inflight.get(r.seq);
      this.#inflight.delete(r.seq);
      if (this.#inflight.size === 0) this.#worker.unref();
      if (!w) return;
      if (r.ids) w.resolve(r.ids);
      else w.reject(Object.assign(new Error(r.error?.message ?? 'audit write failed'), { code: r.error?.code }));
    });
    const fail = (err: unknown) => {
      this.#failed = err instanceof Error ? err : new Error(`the audit writer thread stopped (${String(err)})`);
      for (const w of this.#inflight.values()) w.reject(this.#failed);
      this.#inflight.clear();
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', (code) => fail(new Error(`the audit writer thread exited (code ${code})`)));
  }

  /** Whether the thread can take writes (it failed or was closed otherwise: write on the main thread). */
  get alive(): boolean {
    return this.#failed === undefined;
  }

  /** Commits `rows` in the thread; resolves with their ids, in order, after the commit. */
  write(rows: AuditParams[]): Promise<number[]> {
    if (this.#failed) return Promise.reject(this.#failed);
    const seq = ++this.#seq;
    const done = new Promise<number[]>((resolve, reject) => this.#inflight.set(seq, { resolve, reject }));
    if (this.#inflight.size === 1) this.#worker.ref();
    this.#worker.postMessage({ seq, rows });
    this.#last = done.catch(() => undefined);
    return done;
  }

  /** Resolves when every batch written so far has committed or failed. */
  drained(): Promise<unknown> {
    return this.#inflight.size === 0 ? Promise.resolve() : this.#last;
  }

  /** Commits what is in flight, closes the thread's connection and ends the thread. */
  async close(): Promise<void> {
    await this.drained();
    if (this.#failed) return;
    const exited = new Promise((r) => this.#worker.once('exit', r));
    this.#worker.ref();
    this.#worker.postMessage('close');
    await exited;
  }
}
