// Bounded waits for tests. A bound is wall-clock time, never a count of polls: `for (i < 50) sleep(20)`
// waits 1 s on a quiet machine and still 1 s when every step of the awaited work runs 3× slower (CI,
// a loaded 2-core machine). The waits return instead of throwing, so the test's own assertion
// (with its own message) decides.

/** Default bound for anything that involves a child process or an HTTP round trip, ms. */
export const WAIT_MS = 15_000;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Calls `probe` every `everyMs` (default 20) until `ok(value)` holds or `ms` (default {@link WAIT_MS})
 * have passed; resolves with the last value either way. `probe` may be async (one call at a time).
 */
export async function pollUntil<T>(
  probe: () => T | Promise<T>,
  ok: (v: T) => boolean,
  o: { ms?: number; everyMs?: number } = {},
): Promise<T> {
  const end = Date.now() + (o.ms ?? WAIT_MS);
  for (;;) {
    const v = await probe();
    if (ok(v) || Date.now() >= end) return v;
    await sleep(o.everyMs ?? 20);
  }
}

/** Waits until `cond()` is true (bounded like {@link pollUntil}); resolves with its last value. */
export function waitUntil(cond: () => boolean, o: { ms?: number; everyMs?: number } = {}): Promise<boolean> {
  return pollUntil(cond, (v) => v, o);
}

/**
 * `p`, or a rejection naming `what` once `ms` have passed. For "does not wait for the long bound": give
 * the slow alternative a bound far beyond `ms` (minutes) and race the call here, instead of timing it
 * with Date.now() (speed is measured in bench/, not in tests).
 */
export function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => (t = setTimeout(() => reject(new Error(`${what}: not settled within ${ms} ms`)), ms)));
  return Promise.race([p, limit]).finally(() => clearTimeout(t));
}
