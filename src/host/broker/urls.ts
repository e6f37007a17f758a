/**
 * Registry of 2025-11-25 URL-mode `elicitationId`s, per server: pending → consented → completed
 * (or declined). Completions (`notifications/elicitation/complete`) for unknown or already-completed
 * ids are ignored (2025-11-25 client/elicitation §Completion Notifications: clients MUST ignore them).
 * Ids are opaque and unique only within their server, so the key is (server, elicitationId).
 *
 * Bounded: at most {@link MAX_URL_ELICITATIONS} ids are kept (one registry per broker, i.e. per user of a
 * gateway); registering one more forgets the oldest finished one (completed or declined), else the
 * oldest. A forgotten id's completion is then ignored as unknown, and a wait on it ends at its timeout.
 * @module
 */

/** Most URL-mode elicitation ids one registry keeps (see the module comment). */
export const MAX_URL_ELICITATIONS = 1_000;

export type UrlElicitationState = 'pending' | 'consented' | 'declined' | 'completed';

interface Entry {
  state: UrlElicitationState;
  waiters: Array<() => void>;
  /** The broker's id of the request that carried the elicitationId, when given. */
  requestId?: string;
}

export class UrlElicitationRegistry {
  private readonly entries = new Map<string, Entry>();
  private key(server: string, id: string): string {
    return JSON.stringify([server, id]);
  }

  /** How many ids are kept. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Registers a new id as pending, with the broker's id of the request that carried it (`requestId`,
   * optional). Returns false if (server, id) is already known (duplicate).
   */
  add(server: string, id: string, requestId?: string): boolean {
    const k = this.key(server, id);
    if (this.entries.has(k)) return false;
    if (this.entries.size >= MAX_URL_ELICITATIONS) this.forgetOne();
    this.entries.set(k, { state: 'pending', waiters: [], ...(requestId !== undefined ? { requestId } : {}) });
    return true;
  }

  /** The broker's id of the request that carried (server, id), if it was registered with one. */
  requestOf(server: string, id: string): string | undefined {
    return this.entries.get(this.key(server, id))?.requestId;
  }

  /** Forgets the oldest finished id, else the oldest (Maps iterate in insertion order). */
  private forgetOne(): void {
    let oldest: string | undefined;
    for (const [k, e] of this.entries) {
      oldest ??= k;
      if (e.state === 'completed' || e.state === 'declined') return void this.entries.delete(k);
    }
    if (oldest !== undefined) this.entries.delete(oldest);
  }

  /** Records the person's decision for a pending id. */
  decide(server: string, id: string, consented: boolean): void {
    const e = this.entries.get(this.key(server, id));
    if (e && e.state === 'pending') e.state = consented ? 'consented' : 'declined';
  }

  state(server: string, id: string): UrlElicitationState | undefined {
    return this.entries.get(this.key(server, id))?.state;
  }

  /**
   * Marks an id completed. Returns `'completed'`, or `'ignored-unknown'` / `'ignored-duplicate'`
   * when the notification must be ignored.
   */
  complete(server: string, id: string): 'completed' | 'ignored-unknown' | 'ignored-duplicate' {
    const e = this.entries.get(this.key(server, id));
    if (!e) return 'ignored-unknown';
    if (e.state === 'completed') return 'ignored-duplicate';
    e.state = 'completed';
    for (const w of e.waiters.splice(0)) w();
    return 'completed';
  }

  /**
   * Resolves `true` once (server, id) is completed, `false` after `timeoutMs` or when `signal` aborts
   * (the caller then offers manual retry/cancel, as the spec recommends). Unknown ids resolve `false`.
   */
  waitForCompletion(server: string, id: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const e = this.entries.get(this.key(server, id));
    if (!e) return Promise.resolve(false);
    if (e.state === 'completed') return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (v: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const i = e.waiters.indexOf(onDone);
        if (i >= 0) e.waiters.splice(i, 1);
        resolve(v);
      };
      const onDone = () => done(true);
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      e.waiters.push(onDone);
      if (signal?.aborted) return done(false);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
