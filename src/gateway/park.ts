/**
 * Parked calls: how the gateway serves a 2026-07-28 upstream client. The downstream call keeps
 * running inside the gateway; when it needs input, the upstream `tools/call` is answered
 * `input_required` with the prompts as `inputRequests` and a `requestState` naming the parked call
 * (a random 128-bit id, only valid for the user who made the call). The client's retry delivers
 * `inputResponses`; the gateway hands them to the waiting prompts and waits again for the next
 * prompt or the result. Spec: 2026-07-28 basic/patterns/mrtr.
 *
 * Bounds: a parked call whose retry does not come within `ttlMs` (default 300 000 ms) is abandoned:
 * its prompts are answered `cancel` and the downstream call is aborted. Prompts that arrive within
 * `batchMs` (default 20 ms) of each other go upstream in one round.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { CallToolResult, ElicitResult } from '@modelcontextprotocol/server';
import type { UpstreamElicitParams } from './bridge.js';

interface Need {
  key: string;
  params: UpstreamElicitParams;
  resolve: (r: ElicitResult) => void;
}

/** What one wait on a parked call ends with. */
export type ParkOutcome =
  | { kind: 'result'; result: CallToolResult }
  | { kind: 'error'; error: unknown }
  | { kind: 'input'; inputRequests: Record<string, { method: 'elicitation/create'; params: UpstreamElicitParams }> };

export interface ParkOptions {
  /** @default 300_000 ms */
  ttlMs?: number;
  /** @default 20 ms */
  batchMs?: number;
}

/** One downstream call held for a 2026-07-28 upstream client. */
export class ParkedCall {
  readonly id = randomUUID();
  readonly ctl = new AbortController();
  private waiting: Need[] = [];
  private asked = new Map<string, Need>();
  private wake?: () => void;
  private settled?: ParkOutcome;
  private timer?: NodeJS.Timeout;
  private seq = 0;

  /** True while a `next` waits: a second concurrent retry of the same round is refused. */
  busy = false;
  /** The exposed tool name this call was made for (a retry must name the same tool). */
  tool = '';
  /**
   * Number of `input_required` rounds sent so far; each round's `requestState` carries it, so a replayed
   * or late retry of an earlier round is refused instead of answering the current round's prompts.
   */
  round = 0;

  constructor(
    readonly user: string,
    private readonly onExpire: (p: ParkedCall) => void,
    private readonly o: Required<ParkOptions>,
  ) {}

  /** Starts the downstream call (given this call's abort signal). */
  run(start: (signal: AbortSignal) => Promise<CallToolResult>): void {
    start(this.ctl.signal).then(
      (result) => this.finish({ kind: 'result', result }),
      (error) => this.finish({ kind: 'error', error }),
    );
  }

  /** The bridge's `ask`: queues a prompt for the next `input_required` round. */
  ask(params: UpstreamElicitParams, signal: AbortSignal): Promise<ElicitResult> {
    return new Promise<ElicitResult>((resolve) => {
      const need: Need = { key: `e${++this.seq}`, params, resolve };
      const drop = () => {
        this.waiting = this.waiting.filter((n) => n !== need);
        this.asked.delete(need.key);
        resolve({ action: 'cancel' });
      };
      if (signal.aborted) return drop();
      signal.addEventListener('abort', drop, { once: true });
      need.resolve = (r) => (signal.removeEventListener('abort', drop), resolve(r));
      this.waiting.push(need);
      this.wake?.();
    });
  }

  /**
   * Applies a retry's `inputResponses` to the prompts of the last round; a missing or malformed entry
   * counts as `cancel`. Returns the keys that had no valid response.
   */
  answer(inputResponses: Record<string, unknown> | undefined): string[] {
    const missing: string[] = [];
    for (const [key, need] of this.asked) {
      const r = inputResponses?.[key] as { action?: unknown; content?: unknown } | undefined;
      const ok = r && (r.action === 'accept' || r.action === 'decline' || r.action === 'cancel');
      if (!ok) missing.push(key);
      need.resolve(
        ok
          ? ({
              action: r.action,
              ...(r.action === 'accept' ? { content: (r.content ?? {}) as ElicitResult['content'] } : {}),
            } as ElicitResult)
          : { action: 'cancel' },
      );
    }
    this.asked.clear();
    return missing;
  }

  /** Waits (bounded by `signal`) for the result or the next round of prompts, then arms the TTL. */
  async next(signal: AbortSignal): Promise<ParkOutcome> {
    clearTimeout(this.timer);
    this.busy = true;
    try {
      return await this.wait(signal);
    } finally {
      this.busy = false;
    }
  }

  private async wait(signal: AbortSignal): Promise<ParkOutcome> {
    const outcome = await new Promise<ParkOutcome>((resolve) => {
      const check = () => {
        if (this.settled) return done(this.settled);
        if (this.waiting.length) {
          // Let prompts that arrive together go up together.
          this.wake = undefined;
          setTimeout(() => {
            if (this.settled && !this.waiting.length) return done(this.settled);
            const batch = this.waiting.splice(0);
            for (const n of batch) this.asked.set(n.key, n);
            done({
              kind: 'input',
              inputRequests: Object.fromEntries(batch.map((n) => [n.key, { method: 'elicitation/create' as const, params: n.params }])),
            });
          }, this.o.batchMs);
        }
      };
      const onAbort = () => done({ kind: 'error', error: signal.reason ?? new Error('the upstream request was cancelled') });
      const done = (x: ParkOutcome) => {
        this.wake = undefined;
        signal.removeEventListener('abort', onAbort);
        resolve(x);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.wake = check;
      check();
    });
    if (outcome.kind === 'input') {
      this.round++;
      this.timer = setTimeout(() => this.expire(), this.o.ttlMs).unref();
    }
    return outcome;
  }

  /** Abandons the call: pending prompts get `cancel`, the downstream call is aborted. */
  expire(reason = 'the client did not retry the call in time'): void {
    clearTimeout(this.timer);
    for (const n of [...this.waiting, ...this.asked.values()]) n.resolve({ action: 'cancel' });
    this.waiting = [];
    this.asked.clear();
    this.ctl.abort(new Error(`parked call abandoned: ${reason}`));
    this.onExpire(this);
  }

  private finish(x: ParkOutcome): void {
    this.settled = x;
    this.wake?.();
  }
}

/** Parked calls of one gateway, by id. */
export class ParkingLot {
  private readonly calls = new Map<string, ParkedCall>();
  private readonly o: Required<ParkOptions>;
  constructor(o: ParkOptions = {}) {
    this.o = { ttlMs: o.ttlMs ?? 300_000, batchMs: o.batchMs ?? 20 };
  }
  get size(): number {
    return this.calls.size;
  }
  /** Parks a new call of `user`; `onExpire` runs when it is abandoned (TTL, cancel, shutdown). */
  open(user: string, onExpire?: () => void): ParkedCall {
    const p = new ParkedCall(user, (x) => (this.calls.delete(x.id), onExpire?.()), this.o);
    this.calls.set(p.id, p);
    return p;
  }
  /** The parked call `id` if it belongs to `user`. */
  get(id: string, user: string): ParkedCall | undefined {
    const p = this.calls.get(id);
    return p && p.user === user ? p : undefined;
  }
  close(p: ParkedCall): void {
    this.calls.delete(p.id);
  }
  /** Abandons every parked call (gateway shutdown). */
  closeAll(): void {
    for (const p of [...this.calls.values()]) p.expire('the gateway is shutting down');
  }
}
