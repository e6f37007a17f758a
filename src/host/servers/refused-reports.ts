/**
 * The limit on reports of messages from a server that parley could not pass on (each report is one audit
 * row and one notice for the person, through the broker's `malformedMessage`): at most
 * {@link REFUSED_PER_WINDOW} per {@link REFUSED_WINDOW_MS} window, one by one; the rest of a window are
 * counted and reported as one summary when it ends (or at `flush`, when the connection closes). Shared by
 * parley's stdio reader (`stdio-transport.ts`) and the SDK's HTTP transports (`connection.ts`), so a
 * server flooding malformed messages cannot flood the audit log or the person on either.
 * @module
 */

/** Refused messages reported one by one per window (then one summary report per window). */
export const REFUSED_PER_WINDOW = 10;

/** The window of {@link REFUSED_PER_WINDOW}, ms. */
export const REFUSED_WINDOW_MS = 5_000;

/** One connection's reports (see the module comment). */
export class RefusedReports {
  #windowStart = 0;
  #windowCount = 0;
  #unreported = 0;
  #summaryTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `report` gets each report's text and how many messages it stands for (1, or a summary's count); it
   * must not throw (a throw is swallowed).
   */
  constructor(private readonly report: (detail: string, count: number) => void) {}

  /** Reports `detail` now, or counts it for the window's summary. */
  add(detail: string): void {
    const now = Date.now();
    if (now - this.#windowStart >= REFUSED_WINDOW_MS) {
      this.flush();
      this.#windowStart = now;
      this.#windowCount = 0;
    }
    if (this.#windowCount >= REFUSED_PER_WINDOW) {
      this.#unreported++;
      this.#summaryTimer ??= setTimeout(() => this.flush(), this.#windowStart + REFUSED_WINDOW_MS - now).unref();
      return;
    }
    this.#windowCount++;
    this.#send(detail, 1);
  }

  /** The one summary report of the messages not reported one by one, if any. */
  flush(): void {
    if (this.#summaryTimer) clearTimeout(this.#summaryTimer);
    this.#summaryTimer = undefined;
    const n = this.#unreported;
    if (n === 0) return;
    this.#unreported = 0;
    this.#send(
      `${n} more message(s) parley could not pass on within ${REFUSED_WINDOW_MS} ms, not reported one by one (at most ${REFUSED_PER_WINDOW} are reported per ${REFUSED_WINDOW_MS} ms)`,
      n,
    );
  }

  #send(detail: string, count: number): void {
    try {
      this.report(detail, count);
    } catch {
      /* a hook must not break reading */
    }
  }
}
