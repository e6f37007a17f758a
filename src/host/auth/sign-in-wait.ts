/**
 * When to try again a server whose start failed for want of authorization (sign-in required, declined,
 * refused, authorization failed), for one (tenant, user, server). Without it every use (each gateway
 * `tools/list`, each call) of a user who has not signed in connected to the server again, drew a `401`,
 * ran discovery and registration, and logged one more warning.
 *
 * The next use tries again only when something changed:
 * - a sign-in was stored for this (tenant, user, server) since the failure (a row with an access token
 *   whose `updatedAt` differs from the one read right after the failure: `parley auth login`, a sign-in
 *   through the gateway, another replica's sign-in); read from the credential store at each use, so a
 *   sign-in is picked up by the very next request, on every replica;
 * - or the back-off passed: {@link SignInRetry.firstMs} after the first failure, doubling with each
 *   failure in a row, at most {@link SignInRetry.maxMs}.
 * Concurrent uses share one store read, bounded by {@link SIGN_IN_CHECK_MS}. Spec: none (parley's policy); docs/auth.md §"When parley authorizes".
 * @module
 */
import type { CredentialKey, CredentialStore } from './credential-store.js';

/** Back-off of a start that failed for want of authorization, ms. */
export const SignInRetry = {
  /** Wait after the first failure, ms. */
  firstMs: 30_000,
  /** Longest wait (the doubling stops here), ms: 10 min. */
  maxMs: 600_000,
} as const;

/** Bound on the store read behind each check, ms: a store that does not answer counts as "no new sign-in". */
export const SIGN_IN_CHECK_MS = 5_000;

export class SignInWait {
  #failures = 0;
  #until = 0;
  #stamp: string | undefined;
  #check: Promise<boolean> | undefined;

  constructor(
    private readonly store: CredentialStore,
    private readonly key: CredentialKey,
    private readonly now: () => number,
    private readonly bounds: { firstMs: number; maxMs: number } = SignInRetry,
  ) {}

  /** Failures in a row. */
  get failures(): number {
    return this.#failures;
  }

  /** How long the next use waits after this failure, ms. */
  get delayMs(): number {
    return Math.min(this.bounds.firstMs * 2 ** Math.max(0, this.#failures - 1), this.bounds.maxMs);
  }

  /** Records a failed start: arms the back-off and notes what the store holds now. Never rejects. */
  async failed(): Promise<void> {
    this.#failures++;
    this.#until = this.now() + this.delayMs;
    this.#stamp = await this.#read().catch(() => undefined);
  }

  /** A start succeeded: the next failure waits {@link SignInRetry.firstMs} again. */
  succeeded(): void {
    this.#failures = 0;
    this.#until = 0;
    this.#stamp = undefined;
  }

  /**
   * Whether the next use should start the server again: the back-off passed, or a sign-in was stored
   * since the failure. A store that cannot be read answers `false` until the back-off passes.
   */
  mayRetry(): Promise<boolean> {
    if (this.now() >= this.#until) return Promise.resolve(true);
    this.#check ??= this.#read()
      .then(
        (s) => s !== undefined && s !== this.#stamp,
        () => false,
      )
      .finally(() => {
        this.#check = undefined;
      });
    return this.#check;
  }

  /** The stored row's write time when it holds an access token, else `undefined`; rejects after {@link SIGN_IN_CHECK_MS}. */
  async #read(): Promise<string | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the credential store did not answer within ${SIGN_IN_CHECK_MS} ms`)), SIGN_IN_CHECK_MS);
    });
    try {
      const row = await Promise.race([this.store.get(this.key), late]);
      return row?.secrets.tokens?.access_token ? `${row.updatedAt}` : undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}
