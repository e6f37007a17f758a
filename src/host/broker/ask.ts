/**
 * The presenter loop of one input request: present, bound the wait, validate, re-present with the
 * issues (at most `maxRounds` rounds), and settle. Spec: 2025-11-25 client/elicitation §Form Mode
 * Security (clients SHOULD validate responses), §Response Actions (accept/decline/cancel distinct),
 * cancellation.mdx (a cancelled request gets no response).
 * @module
 */
import type { Issue, RequestedSchema } from '../../schema/index.js';
import type { PresenterAnswer, PromptView } from '../presenter.js';
import type { Presenter } from '../presenter.js';
import type { InputContext } from '../servers/handlers.js';
import { validateContent } from './core.js';

export type AskOutcome =
  | { kind: 'answer'; answer: PresenterAnswer; rounds: number; durationMs: number }
  | { kind: 'cancelled-by-server'; durationMs: number }
  | { kind: 'timeout'; durationMs: number }
  | { kind: 'invalid'; issues: Issue[]; rounds: number; durationMs: number };

const ACTIONS: ReadonlySet<string> = new Set(['accept', 'decline', 'cancel']);

/** What `ask` needs of the request's context (see `InputContext`). */
export type AskSignals = Pick<InputContext, 'signal' | 'abort' | 'onAbort'>;

/**
 * The presenter's signal for one request: aborted by the server's signal (with its reason) or by the
 * answer timer. With the runtime's `abort` handle on the server's signal, that signal itself is the
 * presenter's and the timer aborts it (no second AbortController per request; `timedOut` tells the
 * two causes apart); without it, a signal of its own. It hears of the server signal's abort through the
 * runtime's `onAbort` callback when given, else as its own EventTarget listener (`handleEvent`); the
 * current round's wait registers `wake`.
 */
class AnswerSignal {
  private readonly ctl: AbortController | undefined;
  /** When the answer timer fires, `performance.now()` ms. */
  deadline = 0;
  /** The answer timer fired (as opposed to the server withdrawing the request). */
  timedOut = false;
  /** Settles the current round's wait as aborted. */
  wake: (() => void) | undefined;
  private readonly queue: Deadlines;
  private readonly server: AbortSignal;
  private readonly listening: boolean;

  constructor(
    private readonly ctx: AskSignals,
    answerMs: number,
  ) {
    const server = (this.server = ctx.signal);
    if (!ctx.abort) this.ctl = new AbortController();
    this.listening = !ctx.onAbort;
    if (server.aborted) this.handleEvent();
    else if (ctx.onAbort) ctx.onAbort(() => this.handleEvent());
    else server.addEventListener('abort', this); // removed in dispose (no `once`: its options cost per call)
    this.queue = Deadlines.for(answerMs);
    this.queue.add(this);
  }
  get signal(): AbortSignal {
    return this.ctl ? this.ctl.signal : this.server;
  }
  /** The server's signal aborted. */
  handleEvent(): void {
    this.ctl?.abort(this.server.reason);
    this.wake?.();
  }
  /** The answer timer: aborts the presenter's signal with an `AbortError` DOMException. */
  timeUp(): void {
    if (this.signal.aborted) return;
    this.timedOut = true;
    const reason = new DOMException('no answer in time', 'AbortError');
    if (this.ctl) {
      this.ctl.abort(reason);
      this.wake?.();
    } else this.ctx.abort!(reason); // reaches handleEvent, which wakes the wait
  }
  dispose(): void {
    this.queue.delete(this);
    if (this.listening) this.server.removeEventListener('abort', this);
    else this.ctx.onAbort!(undefined);
  }
}

/**
 * The answer deadlines of every ask with the same `answerMs`, on one timer. Asks with one `answerMs`
 * end in the order they started, so the set (insertion order) is deadline order and the timer only
 * ever waits for the first. Adding and removing an ask touches no timer (a timer per ask was a timer
 * list created and torn down per elicitation): the timer is only ref'd while asks are waiting, so it
 * never keeps a process alive by itself, and when it fires early (its first ask ended) it re-arms for
 * the new first.
 */
class Deadlines {
  private static readonly byMs = new Map<number, Deadlines>();
  static for(ms: number): Deadlines {
    let q = Deadlines.byMs.get(ms);
    if (!q) Deadlines.byMs.set(ms, (q = new Deadlines(ms)));
    return q;
  }

  private readonly waiting = new Set<AnswerSignal>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private constructor(private readonly ms: number) {}

  add(a: AnswerSignal): void {
    a.deadline = performance.now() + this.ms;
    this.waiting.add(a);
    if (!this.timer) this.timer = setTimeout(sweep, this.ms, this);
    else this.timer.ref();
  }
  delete(a: AnswerSignal): void {
    if (this.waiting.delete(a) && this.waiting.size === 0) this.timer?.unref();
  }
  sweep(): void {
    this.timer = undefined;
    const now = performance.now();
    for (const a of this.waiting) {
      if (a.deadline > now) {
        this.timer = setTimeout(sweep, Math.max(1, Math.ceil(a.deadline - now)), this);
        return;
      }
      this.waiting.delete(a);
      a.timeUp();
    }
  }
}

function sweep(q: Deadlines): void {
  q.sweep();
}

/** What {@link raceAbort} settles with when the wait was aborted. */
const ABORTED: unique symbol = Symbol('aborted');
const ignore = (): void => undefined;

/** Waits for `p`, or for the abort of `a.signal`, whichever comes first (then {@link ABORTED}). */
function raceAbort<T>(p: Promise<T>, a: AnswerSignal): Promise<T | typeof ABORTED> {
  if (a.signal.aborted) {
    p.catch(ignore);
    return Promise.resolve(ABORTED);
  }
  return new Promise((resolve, reject) => {
    a.wake = () => resolve(ABORTED);
    p.then(resolve, (err: unknown) => (a.signal.aborted ? resolve(ABORTED) : reject(err)));
  });
}

/**
 * Runs the presenter loop. The presenter's signal aborts when the server withdraws the request
 * (`ctx.signal`) or when `answerMs` elapses; given `ctx.abort` (the runtime's handle on `ctx.signal`),
 * the presenter gets `ctx.signal` itself and a timeout aborts it. Presenter errors (e.g.
 * `UserInteractionRequiredError`) propagate.
 */
export async function ask(presenter: Presenter, view: PromptView, schema: RequestedSchema | undefined, ctx: AskSignals, answerMs: number, maxRounds: number, now: () => number): Promise<AskOutcome> {
  const started = now();
  const wait = new AnswerSignal(ctx, answerMs);
  const signal = wait.signal;
  try {
    let prompt = view;
    for (let round = 1; ; round++) {
      let presented: Promise<PresenterAnswer>;
      try {
        presented = Promise.resolve(presenter.present(prompt, signal));
      } catch (err) {
        presented = Promise.reject(err); // a presenter that throws synchronously is treated like one that rejects
      }
      const answer = await raceAbort(presented, wait);
      const durationMs = now() - started;
      if (answer === ABORTED) return wait.timedOut ? { kind: 'timeout', durationMs } : { kind: 'cancelled-by-server', durationMs };
      if (!answer || !ACTIONS.has((answer as { action?: unknown }).action as string))
        throw new TypeError(`Presenter answered ${JSON.stringify(answer)}; expected {action: "accept" | "decline" | "cancel"}.`);
      if (answer.action !== 'accept' || view.mode === 'url' || !schema) return { kind: 'answer', answer, rounds: round, durationMs };
      const checked = validateContent(schema, answer.content ?? {});
      if (checked.ok) return { kind: 'answer', answer: { ...answer, content: checked.value }, rounds: round, durationMs };
      if (round >= maxRounds) return { kind: 'invalid', issues: checked.issues, rounds: round, durationMs };
      prompt = { ...view, prefill: { ...view.prefill, ...(answer.content as PromptView['prefill']) }, issues: checked.issues, round: round + 1 };
    }
  } finally {
    wait.dispose();
  }
}
