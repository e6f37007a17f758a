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
import { validateContent } from './core.js';

export type AskOutcome =
  | { kind: 'answer'; answer: PresenterAnswer; rounds: number; durationMs: number }
  | { kind: 'cancelled-by-server'; durationMs: number }
  | { kind: 'timeout'; durationMs: number }
  | { kind: 'invalid'; issues: Issue[]; rounds: number; durationMs: number };

const ACTIONS: ReadonlySet<string> = new Set(['accept', 'decline', 'cancel']);

/**
 * The presenter's signal for one request: aborted by the server's signal (forwarded, with its reason)
 * or by the answer timer. One signal and no closures per request: it is its own listener on the server
 * signal (`handleEvent`) and the timer's argument; the current round's wait registers `wake` instead
 * of a second listener.
 */
class AnswerSignal {
  private readonly ctl = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  /** Settles the current round's wait as aborted. */
  wake: (() => void) | undefined;

  constructor(private readonly server: AbortSignal, answerMs: number) {
    if (server.aborted) this.abort(server.reason);
    else server.addEventListener('abort', this, { once: true });
    this.timer = setTimeout(timeUp, answerMs, this);
  }
  get signal(): AbortSignal {
    return this.ctl.signal;
  }
  /** Aborts the presenter's signal (`reason` undefined: an `AbortError` DOMException) and wakes the wait. */
  abort(reason?: unknown): void {
    this.ctl.abort(reason);
    this.wake?.();
  }
  /** EventListener of the server's signal. */
  handleEvent(): void {
    this.abort(this.server.reason);
  }
  dispose(): void {
    clearTimeout(this.timer);
    this.server.removeEventListener('abort', this);
  }
}

function timeUp(a: AnswerSignal): void {
  a.abort();
}

/** Waits for `p`, or for the abort of `a.signal`, whichever comes first. */
function raceAbort<T>(p: Promise<T>, a: AnswerSignal): Promise<{ aborted: true } | { aborted: false; value: T }> {
  if (a.signal.aborted) {
    p.catch(() => undefined);
    return Promise.resolve({ aborted: true });
  }
  return new Promise((resolve, reject) => {
    a.wake = () => resolve({ aborted: true });
    p.then(
      (value) => resolve({ aborted: false, value }),
      (err) => {
        if (a.signal.aborted) resolve({ aborted: true });
        else reject(err);
      },
    );
  });
}

/**
 * Runs the presenter loop. The presenter's signal aborts when the server cancels (`serverSignal`) or
 * when `answerMs` elapses. Presenter errors (e.g. `UserInteractionRequiredError`) propagate.
 */
export async function ask(presenter: Presenter, view: PromptView, schema: RequestedSchema | undefined, serverSignal: AbortSignal, answerMs: number, maxRounds: number, now: () => number): Promise<AskOutcome> {
  const started = now();
  const wait = new AnswerSignal(serverSignal, answerMs);
  const signal = wait.signal;
  try {
    let prompt = view;
    for (let round = 1; ; round++) {
      const r = await raceAbort(Promise.resolve().then(() => presenter.present(prompt, signal)), wait);
      const durationMs = now() - started;
      if (r.aborted) return serverSignal.aborted ? { kind: 'cancelled-by-server', durationMs } : { kind: 'timeout', durationMs };
      const answer = r.value;
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
