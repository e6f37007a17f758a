/**
 * Cleanup after a call settles, for the host's per-request paths (input bridge, pause gate, calls in
 * flight).
 * @module
 */

/**
 * Calls `fn` and runs `done` once its result settles: after it resolves or rejects, and also when
 * `fn` throws synchronously (then the returned promise rejects) or returns a plain value. Settles as
 * `fn` does. One `then` with two handlers: `Promise.prototype.finally` makes two more promises per
 * call, and an async function with try/finally one more, on every elicitation.
 */
export function whenSettled<T>(fn: () => T | Promise<T>, done: () => void): Promise<T> {
  let p: Promise<T>;
  try {
    p = Promise.resolve(fn());
  } catch (err) {
    done();
    return Promise.reject(err);
  }
  return p.then(
    (v) => (done(), v),
    (err: unknown) => {
      done();
      throw err;
    },
  );
}
