/**
 * Server-sent events for the console, on Hono's `streamSSE` (which frames each event): one stream per
 * open page, a keep-alive comment every `heartbeatMs`, and `closeAll()` so the HTTP server can shut
 * down promptly.
 * @module
 */
import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';

/** Reconnect delay a browser is told with the first event of each stream (`retry:`), ms. */
export const SSE_RETRY_MS = 1000;

/** One open stream: its writes are chained so that events reach the browser in the order sent. */
interface Open {
  stream: SSEStreamingApi;
  tail: Promise<unknown>;
  end(): void;
}

/** Fan-out of named SSE events to every connected browser. */
export class SseHub {
  private readonly streams = new Set<Open>();
  private readonly timer: NodeJS.Timeout;

  /** @param heartbeatMs keep-alive comment period in ms. @default 15000 */
  constructor(heartbeatMs = 15_000) {
    // A comment line: browsers ignore it; proxies and idle timers see traffic.
    this.timer = setInterval(() => this.each((s) => s.write(': keep-alive\n\n')), heartbeatMs);
    this.timer.unref?.();
  }

  /** Number of connected browsers. */
  get size(): number {
    return this.streams.size;
  }

  /**
   * Answers `c` with an event stream. `first` goes to this browser only, before any later event (the
   * snapshot), with `retry: 1000`. The stream ends when the browser goes away or on `closeAll()`.
   */
  open(c: Context, first: { event: string; data: unknown }): Response {
    const res = streamSSE(c, async (stream) => {
      // Runs synchronously up to its first await: the stream joins the hub with the snapshot queued
      // first, in the tick the snapshot was taken, so no event falls between the two.
      let end = (): void => undefined;
      const ended = new Promise<void>((resolve) => {
        end = resolve;
      });
      const o: Open = { stream, tail: Promise.resolve(), end };
      this.streams.add(o);
      this.queue(o, (s) => s.writeSSE({ event: first.event, data: JSON.stringify(first.data), retry: SSE_RETRY_MS }));
      stream.onAbort(end);
      c.req.raw.signal.addEventListener('abort', end, { once: true });
      await ended;
      this.streams.delete(o);
      // What was sent before the end still goes out (writes to a browser that left fail at once).
      await o.tail;
    });
    res.headers.set('content-type', 'text/event-stream; charset=utf-8');
    res.headers.set('x-accel-buffering', 'no');
    return res;
  }

  /** Sends one event to every browser (none open: nothing is serialised). */
  send(event: string, data: unknown): void {
    if (this.streams.size === 0) return;
    const text = JSON.stringify(data);
    this.each((s) => s.writeSSE({ event, data: text }));
  }

  /** Ends every stream and stops the heartbeat. */
  closeAll(): void {
    clearInterval(this.timer);
    for (const o of [...this.streams]) o.end();
  }

  private each(write: (s: SSEStreamingApi) => Promise<unknown>): void {
    for (const o of this.streams) this.queue(o, write);
  }

  private queue(o: Open, write: (s: SSEStreamingApi) => Promise<unknown>): void {
    o.tail = o.tail.then(() => write(o.stream)).catch(() => undefined);
  }
}
