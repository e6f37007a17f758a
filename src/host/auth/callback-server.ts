/**
 * The loopback redirect target of interactive sign-in (RFC 8252 §7.3): an HTTP listener on
 * `127.0.0.1:<random port>`, path {@link CALLBACK_PATH}. One listener serves every sign-in of a host;
 * each sign-in waits for its own `state`.
 *
 * Rules (a callback is attacker-reachable from any web page the person visits):
 * - Only `GET` on {@link CALLBACK_PATH}, with `Host` equal to the listener's own `127.0.0.1:<port>`
 *   (DNS rebinding); anything else gets 404/405/421 and changes nothing.
 * - The `state` must match a sign-in in progress, compared in constant time; a missing, unknown or reused
 *   `state` gets 400 and the sign-in keeps waiting (it is refused, not failed).
 * - The request target is capped at {@link MAX_CALLBACK_URL_CHARS}; the page shown never echoes a
 *   parameter (an `error_description` is attacker-controlled text).
 * - Every wait is bounded (`timeoutMs`) and abortable, and keeps the process alive while it lasts. The
 *   listener is `unref`'d: it never keeps the process alive by itself, and `close()` ends it.
 * @module
 */
import { createServer, type Server } from 'node:http';
import { timingSafeEqual } from 'node:crypto';

export const CALLBACK_PATH = '/oauth/callback';
/** Longest accepted callback request target, characters. */
export const MAX_CALLBACK_URL_CHARS = 8192;

/** The wait for a callback ended without one. `code`: `SIGN_IN_TIMEOUT` or `SIGN_IN_ABORTED`. */
export class CallbackWaitError extends Error {
  override readonly name = 'CallbackWaitError';
  constructor(
    readonly code: 'SIGN_IN_TIMEOUT' | 'SIGN_IN_ABORTED',
    message: string,
  ) {
    super(message);
  }
}

interface Waiter {
  state: string;
  resolve(params: URLSearchParams): void;
}

const page = (title: string, body: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font:16px system-ui;margin:3em"><h1>${title}</h1><p>${body}</p></body>`;

const sameState = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export class CallbackServer {
  #server: Server | undefined;
  #port = 0;
  #starting: Promise<void> | undefined;
  readonly #waiters = new Set<Waiter>();
  /** Requests refused (bad state, wrong host, …), for diagnostics and tests. */
  refused = 0;

  /** Port once listening, else 0. */
  get port(): number {
    return this.#port;
  }

  /** `http://127.0.0.1:<port>/oauth/callback`. @throws Error before {@link listen} resolved. */
  get redirectUrl(): string {
    if (!this.#port) throw new Error('CallbackServer: listen() first');
    return `http://127.0.0.1:${this.#port}${CALLBACK_PATH}`;
  }

  /** Starts listening (once; later calls share the first). */
  listen(): Promise<void> {
    this.#starting ??= new Promise<void>((resolve, reject) => {
      const server = createServer((req, res) => this.#handle(req.method ?? '', req.url ?? '', req.headers.host, res));
      server.maxHeadersCount = 50;
      server.headersTimeout = 10_000;
      server.requestTimeout = 10_000;
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.unref();
        this.#server = server;
        this.#port = (server.address() as { port: number }).port;
        resolve();
      });
    });
    return this.#starting;
  }

  /**
   * Waits for the callback carrying `state`. Resolves with its query parameters (`code`, `iss`, or
   * `error`). Rejects with {@link CallbackWaitError} after `timeoutMs` or when `signal` aborts.
   */
  expect(state: string, timeoutMs: number, signal?: AbortSignal): Promise<URLSearchParams> {
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        state,
        resolve: (p) => {
          done();
          resolve(p);
        },
      };
      const onAbort = () => {
        done();
        reject(new CallbackWaitError('SIGN_IN_ABORTED', 'sign-in abandoned (the request was cancelled)'));
      };
      if (signal?.aborted) return onAbort();
      this.#waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(() => {
        done();
        reject(new CallbackWaitError('SIGN_IN_TIMEOUT', `no sign-in completed within ${timeoutMs} ms`));
      }, timeoutMs);
      // Not unref'd: a sign-in in progress keeps the process alive (bounded by `timeoutMs`). Unref'd,
      // `parley auth login` on a SQLite store (nothing else holding the event loop) exited 0 before
      // the browser came back, storing nothing.
    });
  }

  /** Sign-ins waiting for their callback. */
  get waiting(): number {
    return this.#waiters.size;
  }

  #handle(method: string, target: string, host: string | undefined, res: import('node:http').ServerResponse): void {
    const reply = (status: number, title: string, body: string) => {
      res.writeHead(status, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
      });
      res.end(page(title, body));
    };
    if (host !== `127.0.0.1:${this.#port}`) {
      this.refused++;
      return reply(421, 'Wrong address', 'This address does not serve sign-ins.');
    }
    if (target.length > MAX_CALLBACK_URL_CHARS) {
      this.refused++;
      return reply(414, 'Refused', 'The sign-in answer is too long.');
    }
    const url = new URL(target, `http://127.0.0.1:${this.#port}`);
    if (url.pathname !== CALLBACK_PATH) return reply(404, 'Not found', 'Nothing here.');
    if (method !== 'GET') {
      this.refused++;
      return reply(405, 'Refused', 'Only GET.');
    }
    const state = url.searchParams.get('state') ?? '';
    const waiter = state ? [...this.#waiters].find((w) => sameState(w.state, state)) : undefined;
    if (!waiter) {
      this.refused++;
      return reply(
        400,
        'Sign-in refused',
        'This sign-in answer does not belong to a sign-in parley started (unknown or expired state). Nothing was done.',
      );
    }
    waiter.resolve(url.searchParams);
    if (url.searchParams.has('error'))
      return reply(
        200,
        'Sign-in not completed',
        'The authorization server did not grant access. You can close this tab; parley shows what happened.',
      );
    reply(200, 'Signed in', 'You can close this tab and return to parley.');
  }

  /** Stops listening; waits in progress keep their own bounds. */
  async close(): Promise<void> {
    const s = this.#server;
    this.#server = undefined;
    this.#starting = undefined;
    this.#port = 0;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }
}
