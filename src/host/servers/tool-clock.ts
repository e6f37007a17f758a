/**
 * Pausable tool-call deadlines (the host side of `protocol.md` §4.3: the client's `tools/call` timeout
 * must cover the time a person spends answering a nested elicitation).
 *
 * Each tool call gets a {@link ToolClock} with two budgets:
 * - `toolCallMs`: the call's own running time; **paused** while any `elicit` handler call of the same
 *   server is in flight (a nested counter in {@link PauseGate}: the clock runs again only when the
 *   last overlapping elicitation finishes);
 * - `maxTotalMs`: wall-clock cap including human time; never paused.
 * On expiry the clock aborts its `signal` with a {@link ToolCallTimeoutError} (and with the caller's reason
 * when the caller's signal aborts first); the SDK request is given a huge timeout of its own so its 60 s
 * default never fires first.
 * @module
 */
import type { Clock } from './clock.js';

/** Thrown (and used as abort reason) when a tool call runs out of either budget. */
export class ToolCallTimeoutError extends Error {
  readonly code = 'TOOL_CALL_TIMEOUT';
  constructor(
    readonly server: string,
    readonly tool: string,
    readonly budget: 'toolCallMs' | 'maxTotalMs',
    readonly ms: number,
  ) {
    super(
      `Tool call ${server}/${tool} timed out: ${budget} = ${ms} ms ` +
        (budget === 'toolCallMs' ? '(running time, excluding time waiting on a person)' : '(total, including time waiting on a person)') +
        `. Raise timeouts.${budget} for server "${server}" if the tool legitimately needs longer.`,
    );
  }
}

/**
 * One call's two budgets. Pausing and resuming touch no timer (an elicitation pauses every clock of its
 * server, so that would be a clear and a new timer per elicitation): the running-time timer stays
 * armed, and when it fires it re-arms itself for whatever running time is left, or does nothing while
 * paused (resume re-arms it then).
 */
export class ToolClock {
  readonly #ctl = new AbortController();
  /** Running-time budget left as of `#since` (when running) or now (when paused), ms. */
  #remaining: number;
  #since = 0;
  /** The running-time timer, or `undefined` when none is armed. */
  #timer: unknown;
  readonly #totalTimer: unknown;
  #paused = false;
  #done = false;

  /**
   * @param caller the caller's signal: when it aborts, {@link signal} aborts with its reason, so the call
   *   needs one signal (a listener here; `AbortSignal.any` costs ~20 µs and a weak reference per call on Node 20).
   */
  constructor(
    private readonly clock: Clock,
    private readonly info: { server: string; tool: string; toolCallMs: number; maxTotalMs: number },
    startPaused: boolean,
    private readonly caller?: AbortSignal,
  ) {
    this.#remaining = info.toolCallMs;
    this.#totalTimer = clock.setTimeout(() => this.#expire('maxTotalMs', info.maxTotalMs), info.maxTotalMs);
    if (startPaused) this.#paused = true;
    else this.#run();
    if (caller?.aborted) this.#ctl.abort(caller.reason);
    else caller?.addEventListener('abort', this.#follow, { once: true });
  }

  readonly #follow = () => this.#ctl.abort(this.caller?.reason);

  get signal(): AbortSignal {
    return this.#ctl.signal;
  }

  /** Remaining running-time budget in ms (for diagnostics). */
  remainingMs(): number {
    return this.#paused || this.#done ? this.#remaining : Math.max(0, this.#remaining - (this.#elapsed() - this.#since));
  }

  pause(): void {
    if (this.#paused || this.#done) return;
    this.#remaining -= this.#elapsed() - this.#since;
    this.#paused = true;
  }

  resume(): void {
    if (!this.#paused || this.#done) return;
    this.#paused = false;
    this.#since = this.#elapsed();
    if (this.#timer === undefined) this.#arm();
  }

  /** Stops both timers and stops following the caller's signal; call when the tool call settles. */
  dispose(): void {
    this.#done = true;
    this.caller?.removeEventListener('abort', this.#follow);
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.clock.clearTimeout(this.#totalTimer);
  }

  /** Monotonic ms: a wall-clock step (NTP) must not stretch or cut a budget. */
  #elapsed(): number {
    return this.clock.elapsed ? this.clock.elapsed() : this.clock.now();
  }

  #run(): void {
    this.#since = this.#elapsed();
    this.#arm();
  }

  #arm(): void {
    this.#timer = this.clock.setTimeout(() => this.#tick(), Math.max(0, this.#remaining - (this.#elapsed() - this.#since)));
  }

  /** The running-time timer fired: expire, or re-arm for the time still left (none while paused). */
  #tick(): void {
    this.#timer = undefined;
    if (this.#done || this.#paused) return;
    if (this.#remaining - (this.#elapsed() - this.#since) <= 0) this.#expire('toolCallMs', this.info.toolCallMs);
    else this.#arm();
  }

  #expire(budget: 'toolCallMs' | 'maxTotalMs', ms: number): void {
    if (this.#done) return;
    this.dispose();
    this.#ctl.abort(new ToolCallTimeoutError(this.info.server, this.info.tool, budget, ms));
  }
}

/** Per-server nested pause counter over that server's running tool clocks. */
export class PauseGate {
  #depth = 0;
  readonly #clocks = new Set<ToolClock>();

  get paused(): boolean {
    return this.#depth > 0;
  }

  /** Tool calls of this server currently in flight. */
  get inFlight(): number {
    return this.#clocks.size;
  }

  /** Registers a clock; returns the function that unregisters and disposes it. */
  track(clock: ToolClock): () => void {
    this.#clocks.add(clock);
    return () => {
      this.#clocks.delete(clock);
      clock.dispose();
    };
  }

  /** Runs `fn` (a person answering) with every clock of this server paused; settles as `fn` does. */
  async during<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#depth++ === 0) for (const c of this.#clocks) c.pause();
    try {
      return await fn();
    } finally {
      if (--this.#depth === 0) for (const c of this.#clocks) c.resume();
    }
  }
}
