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

/** Waits for `p`, or for `signal`'s abort, whichever comes first. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<{ aborted: true } | { aborted: false; value: T }> {
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.resolve({ aborted: true });
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve({ aborted: true });
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve({ aborted: false, value });
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) resolve({ aborted: true });
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
  // One signal for the presenter, aborted by the server's signal (forwarded, with its reason) or by the
  // answer timer; cheaper than a timeout controller plus AbortSignal.any (two more signals per request).
  const ctl = new AbortController();
  const signal = ctl.signal;
  const onServerAbort = () => ctl.abort(serverSignal.reason);
  if (serverSignal.aborted) onServerAbort();
  else serverSignal.addEventListener('abort', onServerAbort, { once: true });
  const timer = setTimeout(() => ctl.abort(), answerMs);
  try {
    let prompt = view;
    for (let round = 1; ; round++) {
      const r = await raceAbort(Promise.resolve().then(() => presenter.present(prompt, signal)), signal);
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
    clearTimeout(timer);
    serverSignal.removeEventListener('abort', onServerAbort);
  }
}
