/**
 * Liveness of the replicas this one forwards to (issue 13 item 5). While at least one forwarded request
 * or stream to an owner is open, the owner's MCP URL is probed: one HTTP `GET` every `everyMs`, each
 * bounded by `timeoutMs`. Any HTTP answer (401, 405, …) means its event loop runs. A refused
 * connection declares it down at once (it died); `misses` probes in a row without an answer declare it
 * down too (it hangs, e.g. SIGSTOP, or its machine is gone). Then every watcher of that URL is told, once.
 *
 * Bound: a dead owner is noticed within `everyMs` + a connection refusal; a hung one within
 * `misses × (everyMs + timeoutMs)`: 12 s with the defaults.
 * @module
 */

/** Probe settings, ms. */
export interface WatchOptions {
  /** Pause between probes. @default 1000 */
  everyMs?: number;
  /** Bound on one probe (until the response's headers). @default 3000 */
  timeoutMs?: number;
  /** Probes in a row without an answer that declare the owner down. @default 3 */
  misses?: number;
}

// Generous: a replica starting a user's stdio servers under load can stall its event loop for seconds,
// and a false "down" fails every forwarded call of its sessions.
export const DEFAULT_WATCH: Required<WatchOptions> = { everyMs: 1000, timeoutMs: 3000, misses: 3 };

/** Header marking a request one replica sends another; the receiver never forwards it again. */
export const HOP_HEADER = 'x-parley-hop';

const refused = (e: unknown) => {
  const c = (e as { cause?: { code?: string } })?.cause?.code;
  return c === 'ECONNREFUSED' || c === 'ECONNRESET';
};

/** Probes owner replicas while something is forwarded to them. */
export class OwnerWatch {
  private readonly o: Required<WatchOptions>;
  private readonly owners = new Map<string, { subs: Set<(why: string) => void>; stop: AbortController }>();

  constructor(o: WatchOptions = {}) {
    this.o = { ...DEFAULT_WATCH, ...o };
  }

  /** The bound on noticing a hung owner, ms (`misses × (everyMs + timeoutMs)`). */
  get hangBoundMs(): number {
    return this.o.misses * (this.o.everyMs + this.o.timeoutMs);
  }

  /**
   * Calls `onDown(reason)` once if the replica at `url` is declared down while watched.
   * @returns stops this watch (the probing stops with the last one)
   */
  watch(url: string, onDown: (why: string) => void): () => void {
    let w = this.owners.get(url);
    if (!w) {
      const fresh = { subs: new Set<(why: string) => void>(), stop: new AbortController() };
      this.owners.set(url, (w = fresh));
      void this.probe(url, fresh);
    }
    const own = w;
    own.subs.add(onDown);
    return () => {
      own.subs.delete(onDown);
      if (own.subs.size === 0 && this.owners.get(url) === own) {
        this.owners.delete(url);
        own.stop.abort();
      }
    };
  }

  /** Stops every probe without telling the watchers. */
  close(): void {
    for (const w of this.owners.values()) w.stop.abort();
    this.owners.clear();
  }

  private async probe(url: string, w: { subs: Set<(why: string) => void>; stop: AbortController }): Promise<void> {
    let missed = 0;
    const stopped = () => w.stop.signal.aborted;
    while (!stopped()) {
      // The pause's abort listener is removed when the pause ends: a watch lasts as long as a forwarded
      // stream (hours), and a listener kept per probe grew the signal by one closure a second.
      await new Promise<void>((r) => {
        const done = () => (clearTimeout(t), w.stop.signal.removeEventListener('abort', done), r());
        const t = setTimeout(done, this.o.everyMs);
        w.stop.signal.addEventListener('abort', done, { once: true });
      });
      if (stopped()) return;
      let why: string | undefined;
      // The probe's bound is a timer of our own, not AbortSignal.timeout: on Node 20 a timeout signal
      // inside AbortSignal.any is held only weakly, and once garbage-collected it never fires
      // (nodejs/node#57736), so a probe of a hung owner waited for undici's 300 s instead of timeoutMs.
      const bound = new AbortController();
      const timer = setTimeout(() => bound.abort(new Error(`no answer within ${this.o.timeoutMs} ms`)), this.o.timeoutMs);
      try {
        const res = await fetch(url, {
          method: 'GET',
          headers: { [HOP_HEADER]: '1', accept: 'application/json' },
          signal: AbortSignal.any([bound.signal, w.stop.signal]),
        });
        await res.body?.cancel().catch(() => undefined);
        missed = 0;
        continue;
      } catch (e) {
        if (stopped()) return;
        if (refused(e)) why = 'refused the connection (the process is gone)';
        else if (++missed >= this.o.misses)
          why = `did not answer ${missed} liveness probes in a row (each bounded by ${this.o.timeoutMs} ms; the process hangs or is overloaded)`;
      } finally {
        clearTimeout(timer);
      }
      if (why) {
        this.owners.delete(url);
        w.stop.abort();
        for (const s of [...w.subs]) s(why);
        return;
      }
    }
  }
}
