/**
 * Calls whose prompts only parley's console can answer: the upstream client declared no elicitation (or
 * not the prompt's mode). Such a client would wait in silence until its own timeout (30–60 s), and desktop
 * clients hide the gateway's stderr, where the console address is printed. So while a prompt of the call
 * waits in the console:
 *
 * - when the client sent a `progressToken`, `notifications/progress` every {@link HoldOptions.progressEveryMs}
 *   names the console's address (never its token); a client that resets its timeout on progress keeps
 *   waiting, up to {@link HoldOptions.progressHoldMs};
 * - without a `progressToken` the call is held {@link HoldOptions.holdMs}, shorter than common client
 *   timeouts;
 * - past that bound, the tool result says where to answer and to call the tool again with the same
 *   arguments: that call picks up the same downstream call (kept {@link HoldOptions.keepMs}) instead of
 *   starting another. Calling again before the person answered waits for that call, with progress for
 *   the prompt still open ({@link ConsoleHolds.start}; 2025 eras and 2026-07-28 clients alike).
 *
 * Spec: 2025-11-25 basic/utilities/progress (tokens, increasing progress, human-readable message).
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { PromptView } from '../host/index.js';

/** Bounds, ms. */
export interface HoldOptions {
  /** Interval of progress notifications while a console prompt waits. @default 5_000 */
  progressEveryMs?: number;
  /** How long a call without a `progressToken` waits for the console before answering "call again". @default 20_000 */
  holdMs?: number;
  /** The same, for a call with a `progressToken`. @default 600_000 */
  progressHoldMs?: number;
  /** How long a held downstream call is kept for pickup. @default 600_000 */
  keepMs?: number;
}

/** What one upstream call needs for progress: its token and a way to notify on its stream. */
export interface HoldContext {
  progressToken?: string | number;
  notify(n: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; message: string };
  }): Promise<void>;
  /** The exposed tool name (`<server>__<tool>`), for the "call again" text. */
  tool: string;
}

/** Which call a held downstream call is for: the same user calling the same exposed tool with equal arguments. */
export interface CallKey {
  user: string;
  tool: string;
  args: Record<string, unknown>;
}

/** Told by the bridge when a prompt of the call goes to the console, and when it is done there. */
export interface ConsoleWatch {
  opened(prompt: PromptView): void;
  closed(prompt: PromptView): void;
}

interface Kept {
  run: Promise<CallToolResult>;
  timer: NodeJS.Timeout;
  /** Set for a call started by {@link ConsoleHolds.start}: its prompts still open, for the pickup call. */
  down?: Down;
}

/** One downstream call started by {@link ConsoleHolds.start}, outliving the upstream request that started it. */
interface Down {
  run: Promise<CallToolResult>;
  ctl: AbortController;
  /** Its prompts open in the console now. */
  open: Set<PromptView>;
  /** The watch of the upstream request waiting for it now, if any. */
  current?: ConsoleWatch;
}

/** What {@link ConsoleHolds.start} returns. */
export interface StartedHold {
  /** Give it to the bridge (`UpstreamCall.console`) for as long as the downstream call runs. */
  watch: ConsoleWatch;
  /** The result, or the "answer in the console, then call again" result past the bound. */
  outcome: Promise<CallToolResult>;
  /** The downstream call (its result, once; also after a "call again" result). */
  run: Promise<CallToolResult>;
  /** True when this request started the downstream call, false when it picked up a held one. */
  started: boolean;
  /** Call when the upstream request is done: its progress stops and its cancel no longer reaches the call. */
  release(): void;
}

/** One gateway's held calls. */
export class ConsoleHolds {
  private readonly kept = new Map<string, Kept>();
  private readonly every: number;
  private readonly hold: number;
  private readonly progressHold: number;
  private readonly keepMs: number;

  /** @param address the console's address without its token, or `undefined` when there is no console. */
  constructor(
    private readonly address: () => string | undefined,
    o: HoldOptions = {},
  ) {
    this.every = o.progressEveryMs ?? 5_000;
    this.hold = o.holdMs ?? 20_000;
    this.progressHold = o.progressHoldMs ?? 600_000;
    this.keepMs = o.keepMs ?? 600_000;
  }

  /** Whether a console can answer (an address is known): only then do calls wait for it. */
  active(): boolean {
    return this.address() !== undefined;
  }

  /** The pickup key's text: user, exposed tool and arguments (key order does not matter). */
  private static text(c: CallKey): string {
    return JSON.stringify([c.user, c.tool, canonical(c.args)]);
  }

  /**
   * A held downstream call of `call`, removed from the kept ones; `undefined` when there is none. Costs
   * nothing while no call is kept (the usual case): the key is made only then.
   */
  take(call: CallKey): Promise<CallToolResult> | undefined {
    return this.takeKept(call)?.run;
  }

  private takeKept(call: CallKey): Kept | undefined {
    if (this.kept.size === 0) return undefined;
    const key = ConsoleHolds.text(call);
    const k = this.kept.get(key);
    if (!k) return undefined;
    clearTimeout(k.timer);
    this.kept.delete(key);
    return k;
  }

  /**
   * A call of a client that can show no prompt at all (a 2026-07-28 client that declared no elicitation:
   * nothing can be parked for it). Starts the downstream call with `start` — or picks up the one held for
   * `call` — and waits for it as {@link watch} does. The returned `watch` belongs to the downstream call:
   * a pickup call re-attaches to it, so a prompt still open in the console gets progress and the bound
   * again. `signal` (the upstream request's) cancels the downstream call only while this request waits.
   */
  start(call: CallKey, start: (signal: AbortSignal) => Promise<CallToolResult>, ctx: HoldContext, signal: AbortSignal): StartedHold {
    const kept = this.takeKept(call);
    const ctl = new AbortController();
    // A kept call of a 2025-era request (no Down) is picked up as it is: its prompts are not tracked.
    const d: Down = kept?.down ?? { ctl, run: kept ? kept.run : start(ctl.signal), open: new Set() };
    const run = d.run;
    const onCancel = () => d.ctl.abort(signal.reason);
    signal.addEventListener('abort', onCancel, { once: true });
    const mine = this.watch(call, run, ctx, d);
    d.current = mine.watch;
    for (const p of d.open) mine.watch.opened(p);
    return {
      run,
      started: !kept,
      outcome: mine.outcome,
      watch: {
        opened: (p) => {
          d.open.add(p);
          d.current?.opened(p);
        },
        closed: (p) => {
          d.open.delete(p);
          d.current?.closed(p);
        },
      },
      release: () => {
        signal.removeEventListener('abort', onCancel);
        mine.stop();
        if (d.current === mine.watch) d.current = undefined;
      },
    };
  }

  /**
   * Waits for `run`. Returns its result, or, when a console prompt of the call is still open past the
   * bound, keeps `run` for `call` and returns the "answer in the console, then call again" result.
   * @returns the watch for the bridge, and the outcome.
   */
  watch(
    call: CallKey,
    run: Promise<CallToolResult>,
    ctx: HoldContext,
    down?: Down,
  ): { watch: ConsoleWatch; outcome: Promise<CallToolResult>; stop(): void } {
    const open = new Set<PromptView>();
    let progress = 0;
    let ticker: NodeJS.Timeout | undefined;
    let bound: NodeJS.Timeout | undefined;
    let held: (r: CallToolResult) => void = () => undefined;
    const heldResult = new Promise<CallToolResult>((r) => (held = r));
    const stop = () => {
      clearInterval(ticker);
      clearTimeout(bound);
      ticker = bound = undefined;
    };
    const tell = () => {
      const p = [...open].at(-1);
      if (!p || ctx.progressToken === undefined) return;
      void ctx
        .notify({
          method: 'notifications/progress',
          params: { progressToken: ctx.progressToken, progress: ++progress, message: this.where(p) },
        })
        .catch(() => undefined);
    };
    const watch: ConsoleWatch = {
      opened: (p) => {
        open.add(p);
        if (!this.address()) return; // no console: the fallback fails at once, nothing to wait for
        if (ctx.progressToken !== undefined) {
          tell();
          ticker ??= setInterval(tell, this.every);
        }
        bound ??= setTimeout(
          () => {
            stop();
            this.keep(ConsoleHolds.text(call), run, down);
            held({
              isError: true,
              content: [
                {
                  type: 'text',
                  text: `parley: ${this.where([...open].at(-1) ?? p)} Then call ${ctx.tool} again with the same arguments to get the result (the call is kept ${Math.round(this.keepMs / 60_000)} min).`,
                },
              ],
            });
          },
          ctx.progressToken !== undefined ? this.progressHold : this.hold,
        );
      },
      closed: (p) => {
        open.delete(p);
        if (open.size === 0) stop();
      },
    };
    const outcome = Promise.race([run.finally(stop), heldResult]);
    return { watch, outcome, stop };
  }

  /** Drops every kept call (their downstream calls end by their own deadlines). */
  clear(): void {
    for (const k of this.kept.values()) clearTimeout(k.timer);
    this.kept.clear();
  }

  private where(p: PromptView): string {
    const fields = p.schema ? Object.keys(p.schema.properties) : [];
    const what = p.mode === 'url' ? 'consent to open a link' : fields.length ? `fields ${fields.join(', ')}` : 'a confirmation';
    return `${p.server} asks for ${what}, which this client cannot show. Answer it in parley's console at ${this.address()} (its address with the access token is in the file parley names on its stderr at start).`;
  }

  private keep(key: string, run: Promise<CallToolResult>, down?: Down): void {
    const old = this.kept.get(key);
    if (old) clearTimeout(old.timer);
    const timer = setTimeout(() => this.kept.delete(key), this.keepMs);
    timer.unref();
    this.kept.set(key, { run, timer, ...(down ? { down } : {}) });
    run.catch(() => undefined); // a held call that fails is reported to whoever picks it up
  }
}

/** `value` with object keys sorted, so equal arguments give one key. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  return value;
}
