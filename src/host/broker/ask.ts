/**
 * The presenter loop of one input request: present, bound the wait, validate, re-present with the
 * issues (at most `maxRounds` rounds), and settle. Spec: 2025-11-25 client/elicitation §Form Mode
 * Security (clients SHOULD validate responses), §Response Actions (accept/decline/cancel distinct),
 * cancellation.mdx (a cancelled request gets no response).
 * @module
 */
import type { Issue, RequestedSchema } from '../../schema/index.js';
import type { PresenterAnswer, InputRequestView } from '../presenter.js';
import type { Presenter } from '../presenter.js';
import type { InputContext } from '../servers/handlers.js';
import { validateContent } from './core.js';
import { List, type ListNode } from '../list.js';

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
 * runtime's `onAbort` callback when given, else as its own EventTarget listener (`handleEvent`), and
 * then calls `wake` (set by the ask's `Rounds`).
 */
class AnswerSignal {
  private readonly ctl: AbortController | undefined;
  /** When the answer timer fires, `performance.now()` ms. */
  deadline = 0;
  /** The answer timer fired (as opposed to the server withdrawing the request). */
  timedOut = false;
  /** Settles the ask as aborted (timeout or withdrawal). */
  wake: (() => void) | undefined;
  private readonly queue: Deadlines;
  /** Its place among the waiting deadlines. */
  readonly place: ListNode<AnswerSignal>;
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
    this.place = this.queue.add(this);
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
    this.queue.delete(this.place);
    if (this.listening) this.server.removeEventListener('abort', this);
    else this.ctx.onAbort!(undefined);
  }
}

/**
 * The answer deadlines of every ask with the same `answerMs`, on one timer. Asks with one `answerMs`
 * end in the order they started, so the list (insertion order) is deadline order and the timer only
 * ever waits for the first. Adding and removing an ask touches no timer (a timer per ask was a timer
 * list created and torn down per elicitation): the timer is only ref'd while asks are waiting, so it
 * never keeps a process alive by itself, and when it fires early (its first ask ended) it re-arms for
 * the new first.
 */
/** Longest delay `setTimeout` takes (ms); a longer one fires after 1 ms. Longer deadlines re-arm in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

class Deadlines {
  private static readonly byMs = new Map<number, Deadlines>();
  static for(ms: number): Deadlines {
    let q = Deadlines.byMs.get(ms);
    if (!q) Deadlines.byMs.set(ms, (q = new Deadlines(ms)));
    return q;
  }

  private readonly waiting = new List<AnswerSignal>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private constructor(private readonly ms: number) {}

  /** Starts `a`'s deadline; returns its place, for {@link delete}. */
  add(a: AnswerSignal): ListNode<AnswerSignal> {
    a.deadline = performance.now() + this.ms;
    const node = this.waiting.add(a);
    if (!this.timer) this.timer = setTimeout(sweep, Math.min(this.ms, MAX_TIMER_MS), this);
    else if (this.waiting.size === 1) this.timer.ref();
    return node;
  }
  delete(node: ListNode<AnswerSignal>): void {
    if (this.waiting.remove(node) && this.waiting.size === 0) this.timer?.unref();
  }
  sweep(): void {
    this.timer = undefined;
    const now = performance.now();
    for (let a = this.waiting.first; a !== undefined; a = this.waiting.first) {
      if (a.deadline > now) {
        this.timer = setTimeout(sweep, Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(a.deadline - now))), this);
        return;
      }
      this.waiting.remove(a.place);
      a.timeUp();
    }
  }
}

function sweep(q: Deadlines): void {
  q.sweep();
}

/**
 * Runs the presenter loop. The presenter's signal aborts when the server withdraws the request
 * (`ctx.signal`) or when `answerMs` elapses; given `ctx.abort` (the runtime's handle on `ctx.signal`),
 * the presenter gets `ctx.signal` itself and a timeout aborts it. Presenter errors (e.g.
 * `UserInteractionRequiredError`) propagate as the rejection; nothing is thrown synchronously.
 *
 * One promise and one `then` per round, settled by whichever comes first: the presenter's answer or
 * the abort. (An async function with a loop and a race promise per round allocated ~2 KB per
 * elicitation, most of the broker's garbage.)
 */
export function ask(
  presenter: Presenter,
  view: InputRequestView,
  schema: RequestedSchema | undefined,
  ctx: AskSignals,
  answerMs: number,
  maxRounds: number,
  now: () => number,
): Promise<AskOutcome> {
  let wait: AnswerSignal | undefined;
  let rounds: Rounds;
  try {
    wait = new AnswerSignal(ctx, answerMs);
    rounds = new Rounds(presenter, view, schema, wait, maxRounds, now);
  } catch (err) {
    // e.g. the context's `onAbort` hook threw: the broker has listed the request as waiting and only
    // takes it off in the promise's handlers, so this too must be a rejection.
    try {
      wait?.dispose();
    } catch {
      /* the same broken hook */
    }
    return Promise.reject(err);
  }
  rounds.present(view);
  return rounds.done;
}

const ignore = (): void => undefined;

/** The rounds of one `ask`: present, wait for the answer or the abort, validate, present again with the issues. */
class Rounds {
  readonly done: Promise<AskOutcome>;
  private resolve!: (o: AskOutcome) => void;
  private reject!: (err: unknown) => void;
  private settled = false;
  private round = 1;
  private readonly started: number;

  constructor(
    private readonly presenter: Presenter,
    private readonly view: InputRequestView,
    private readonly schema: RequestedSchema | undefined,
    private readonly wait: AnswerSignal,
    private readonly maxRounds: number,
    private readonly now: () => number,
  ) {
    this.started = now();
    this.done = new Promise<AskOutcome>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    wait.wake = this.onAbort;
  }

  present(prompt: InputRequestView): void {
    let presented: PresenterAnswer | Promise<PresenterAnswer>;
    try {
      presented = this.presenter.present(prompt, this.wait.signal);
    } catch (err) {
      return this.onError(err); // a presenter that throws synchronously is treated like one that rejects
    }
    if (this.wait.signal.aborted) {
      Promise.resolve(presented).catch(ignore);
      return this.onAbort();
    }
    Promise.resolve(presented).then(this.onAnswer, this.onError);
  }

  private readonly onAbort = (): void => {
    if (this.settled) return;
    const durationMs = this.now() - this.started;
    this.finish(this.wait.timedOut ? { kind: 'timeout', durationMs } : { kind: 'cancelled-by-server', durationMs });
  };

  private readonly onError = (err: unknown): void => {
    if (this.settled) return;
    if (this.wait.signal.aborted) return this.onAbort();
    this.settled = true;
    this.wait.dispose();
    this.reject(err);
  };

  private readonly onAnswer = (answer: PresenterAnswer): void => {
    if (this.settled) return;
    let out: AskOutcome | InputRequestView;
    try {
      out = this.judge(answer);
    } catch (err) {
      return this.onError(err);
    }
    if ('kind' in out) this.finish(out);
    else this.present(out);
  };

  private finish(out: AskOutcome): void {
    this.settled = true;
    this.wait.dispose();
    this.resolve(out);
  }

  /** The outcome of an answer, or the prompt of the next round when it is invalid and rounds are left. */
  private judge(answer: PresenterAnswer): AskOutcome | InputRequestView {
    const round = this.round;
    const durationMs = this.now() - this.started;
    if (!answer || !ACTIONS.has((answer as { action?: unknown }).action as string))
      throw new TypeError(`Presenter answered ${JSON.stringify(answer)}; expected {action: "accept" | "decline" | "cancel"}.`);
    const { view, schema } = this;
    if (answer.action !== 'accept' || view.mode === 'url' || !schema) return { kind: 'answer', answer, rounds: round, durationMs };
    const content = answer.content ?? {};
    const checked = validateContent(schema, content);
    if (checked.ok)
      return {
        kind: 'answer',
        answer: checked.value === answer.content ? answer : { ...answer, content: checked.value },
        rounds: round,
        durationMs,
      };
    if (round >= this.maxRounds) return { kind: 'invalid', issues: checked.issues, rounds: round, durationMs };
    this.round = round + 1;
    return { ...view, prefill: { ...view.prefill, ...(content as InputRequestView['prefill']) }, issues: checked.issues, round: round + 1 };
  }
}
