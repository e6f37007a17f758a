/**
 * Roots before the first call. A 2025-era server may ask `roots/list` as soon as it is initialized
 * (server-filesystem does, from its `oninitialized` hook) and only then know which directories it may
 * use. If the host sent the first tool call straight after `notifications/initialized`, that call would
 * overtake the roots answer (the server reads both before it has applied the roots), and a one-shot
 * `parley call fs list_allowed_directories` would show an empty list.
 *
 * So after a legacy-era connect, before the server counts as running:
 * 1. a `ping` round trip: a server that asks `roots/list` while handling `notifications/initialized`
 *    has written that request before its `ping` answer (one ordered stream), so it has been seen;
 * 2. when it asked: wait until the answer has been sent, then a second `ping` (the server has read the
 *    answer), then until the server has been quiet (no message, no stderr) for
 *    {@link STARTUP_ROOTS.quietMs}, so it can apply the roots (realpath checks and the like).
 * The whole wait is bounded by {@link STARTUP_ROOTS.boundMs} (and by the start-up deadline). A server
 * that asks later than its `ping` answer is not waited for. 2026-07-28 has no such request outside a
 * call (roots come in `input_required` rounds), so modern connections skip this.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Bounds of the start-up roots wait, ms: `quietMs` 100 (silence that counts as settled), `boundMs` 1000 (whole wait). */
export const STARTUP_ROOTS = { quietMs: 100, boundMs: 1000 } as const;

/** What the start-up wait saw: no start-up `roots/list`, one answered and settled, or the bound hit. */
export type StartupRootsOutcome = 'none' | 'settled' | 'bounded';

/** Counts `roots/list` requests and server activity while a connection starts. */
export class StartupRoots {
  #asked = 0;
  #pending = new Set<Promise<unknown>>();
  #lastActivity = Date.now();
  #done = false;

  /** Records one `roots/list` answer in progress (ignored once the start-up wait is over). */
  track(answer: Promise<unknown>): void {
    if (this.#done) return;
    this.#asked++;
    const p = answer.catch(() => undefined).finally(() => this.#pending.delete(p));
    this.#pending.add(p);
  }

  /** Any sign of life from the server (a message, a stderr chunk). */
  touch(): void {
    this.#lastActivity = Date.now();
  }

  /**
   * Runs the wait described in the module docs. `ping` sends one MCP `ping` (its failure is ignored:
   * an error response still proves the round trip). Never rejects.
   */
  async settle(ping: () => Promise<unknown>, o: Partial<typeof STARTUP_ROOTS> = {}): Promise<StartupRootsOutcome> {
    const quietMs = o.quietMs ?? STARTUP_ROOTS.quietMs;
    const end = Date.now() + (o.boundMs ?? STARTUP_ROOTS.boundMs);
    const left = () => Math.max(0, end - Date.now());
    const bounded = <T>(p: Promise<T>) => Promise.race([p.catch(() => undefined), sleep(left(), undefined, { ref: false })]);
    try {
      await bounded(ping());
      await new Promise((r) => setImmediate(r)); // handlers of messages read with the pong run first
      if (this.#asked === 0) return 'none';
      await bounded(Promise.all([...this.#pending]));
      await bounded(ping());
      for (;;) {
        const quietFor = Date.now() - this.#lastActivity;
        if (quietFor >= quietMs) return 'settled';
        if (left() === 0) return 'bounded';
        await sleep(Math.min(quietMs - quietFor, left()), undefined, { ref: false });
      }
    } finally {
      this.#done = true;
      this.#pending.clear();
    }
  }
}
