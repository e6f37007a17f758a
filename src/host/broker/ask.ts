/**
 * The presenter loop of one input request: present, wait for the answer or for one of three stops,
 * validate, re-present with the issues (at most `maxRounds` rounds). Spec: 2025-11-25
 * client/elicitation §Form Mode Security (clients SHOULD validate responses), §Response Actions
 * (accept/decline/cancel distinct), cancellation.mdx (a cancelled request gets no response).
 * @module
 */
import type { Issue, RequestedSchema } from '../../schema/index.js';
import type { Presenter, PresenterAnswer, InputRequestView } from '../presenter.js';
import { validateContent } from './core.js';

export type AskOutcome =
  | { kind: 'answer'; answer: PresenterAnswer; rounds: number; durationMs: number }
  | { kind: 'cancelled-by-server'; durationMs: number }
  | { kind: 'timeout'; durationMs: number }
  | { kind: 'shutdown'; durationMs: number }
  | { kind: 'invalid'; issues: Issue[]; rounds: number; durationMs: number };

/** What ends a wait before the person answers. */
export interface AskStops {
  /** The server withdrew the request (`InputContext.signal`). */
  server: AbortSignal;
  /** The broker is closing. */
  shutdown: AbortSignal;
  /** Answer deadline, ms (at most 2^31−1: the broker clamps it). */
  answerMs: number;
}

const ACTIONS: ReadonlySet<string> = new Set(['accept', 'decline', 'cancel']);

/**
 * Runs the presenter loop. The presenter gets one signal, aborted by the server's signal, the answer
 * deadline or the broker's shutdown; the first to abort ends the wait and names the
 * outcome. Presenter errors (e.g. `UserInteractionRequiredError`) reject.
 */
export async function ask(
  presenter: Presenter,
  view: InputRequestView,
  schema: RequestedSchema | undefined,
  stops: AskStops,
  maxRounds: number,
  now: () => number,
): Promise<AskOutcome> {
  const started = now();
  // One controller for the three stops (not AbortSignal.any of three: a composite signal per waiting
  // prompt costs heap for as long as it waits). A ref'd timer, cleared below: AbortSignal.timeout's timer
  // is unref'd, so a prompt waiting on nothing else (a scripted presenter, a test) would let the process
  // exit before its deadline answered.
  const ctl = new AbortController();
  const signal = ctl.signal;
  const timer = setTimeout(() => ctl.abort(new DOMException('no answer in time', 'TimeoutError')), stops.answerMs);
  const onServer = () => ctl.abort(stops.server.reason);
  const onShutdown = () => ctl.abort(stops.shutdown.reason);
  if (stops.server.aborted) onServer();
  else if (stops.shutdown.aborted) onShutdown();
  stops.server.addEventListener('abort', onServer, { once: true });
  stops.shutdown.addEventListener('abort', onShutdown, { once: true });
  const stopped = (): AskOutcome => {
    const durationMs = now() - started;
    if (stops.server.aborted) return { kind: 'cancelled-by-server', durationMs };
    return { kind: stops.shutdown.aborted ? 'shutdown' : 'timeout', durationMs };
  };
  const aborted = new Promise<'aborted'>((resolve) => signal.addEventListener('abort', () => resolve('aborted'), { once: true }));
  try {
    let prompt = view;
    for (let round = 1; ; round++) {
      if (signal.aborted) return stopped();
      const presented = Promise.resolve().then(() => presenter.present(prompt, signal));
      const answer = await Promise.race([presented, aborted]);
      if (answer === 'aborted' || signal.aborted) {
        presented.catch(() => undefined); // a presenter that rejects on abort, as it should
        return stopped();
      }
      if (!answer || !ACTIONS.has((answer as { action?: unknown }).action as string))
        throw new TypeError(`Presenter answered ${JSON.stringify(answer)}; expected {action: "accept" | "decline" | "cancel"}.`);
      const durationMs = now() - started;
      if (answer.action !== 'accept' || view.mode === 'url' || !schema) return { kind: 'answer', answer, rounds: round, durationMs };
      const content = answer.content ?? {};
      const checked = validateContent(schema, content);
      if (checked.ok) return { kind: 'answer', answer: { ...answer, content: checked.value }, rounds: round, durationMs };
      if (round >= maxRounds) return { kind: 'invalid', issues: checked.issues, rounds: round, durationMs };
      prompt = {
        ...view,
        prefill: { ...view.prefill, ...(content as InputRequestView['prefill']) },
        issues: checked.issues,
        round: round + 1,
      };
    }
  } catch (err) {
    if (signal.aborted) return stopped(); // the presenter failed because its prompt was closed
    throw err;
  } finally {
    clearTimeout(timer);
    stops.server.removeEventListener('abort', onServer);
    stops.shutdown.removeEventListener('abort', onShutdown);
  }
}
