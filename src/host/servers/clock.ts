/**
 * Injectable time source so tests can shorten or drive backoff and tool-call clocks.
 * @module
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Monotonic milliseconds (any origin), for measuring elapsed time: unlike `now()` it never jumps
   * when the wall clock is set. Optional: a clock without it is measured with `now()`.
   */
  elapsed?(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real clock. Timers are `unref`'d so a pending restart never keeps the process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  elapsed: () => performance.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};
