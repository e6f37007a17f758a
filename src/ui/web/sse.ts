/**
 * Server-sent events for the console: one stream per open page, a heartbeat comment every
 * `heartbeatMs`, and `closeAll()` so the HTTP server can shut down promptly.
 * @module
 */

const enc = new TextEncoder();

/** Fan-out of named SSE events to every connected browser. */
export class SseHub {
  private readonly streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  private readonly timer: NodeJS.Timeout;

  /** @param heartbeatMs keep-alive comment period in ms. @default 15000 */
  constructor(heartbeatMs = 15_000) {
    this.timer = setInterval(() => this.write(': keep-alive\n\n'), heartbeatMs);
    this.timer.unref?.();
  }

  /** Number of connected browsers. */
  get size(): number {
    return this.streams.size;
  }

  /**
   * Opens a stream. `first` events go to this browser only (the snapshot); `signal` is the request's
   * abort signal (the browser went away).
   */
  open(first: Array<{ event: string; data: unknown }>, signal: AbortSignal): Response {
    let ctl: ReadableStreamDefaultController<Uint8Array> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        ctl = c;
        this.streams.add(c);
        c.enqueue(enc.encode('retry: 1000\n\n'));
        for (const e of first) c.enqueue(enc.encode(frame(e.event, e.data)));
      },
      cancel: () => {
        if (ctl) this.streams.delete(ctl);
      },
    });
    signal.addEventListener('abort', () => this.drop(ctl), { once: true });
    return new Response(body, {
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
    });
  }

  /** Sends one event to every browser (none open: nothing is serialised). */
  send(event: string, data: unknown): void {
    if (this.streams.size > 0) this.write(frame(event, data));
  }

  /** Ends every stream and stops the heartbeat. */
  closeAll(): void {
    clearInterval(this.timer);
    for (const c of [...this.streams]) this.drop(c);
  }

  private write(text: string): void {
    const bytes = enc.encode(text);
    for (const c of [...this.streams]) {
      try {
        c.enqueue(bytes);
      } catch {
        this.streams.delete(c);
      }
    }
  }

  private drop(c: ReadableStreamDefaultController<Uint8Array> | undefined): void {
    if (!c || !this.streams.delete(c)) return;
    try {
      c.close();
    } catch {
      // Already closed by the browser.
    }
  }
}

/** One SSE frame; JSON data never contains a raw newline. */
function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
