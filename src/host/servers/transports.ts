/**
 * Transport construction for stdio and legacy SSE, and the start-up deadline helper.
 * @module
 */
import { SSEClientTransport } from '@modelcontextprotocol/client';
import type { HttpServerDef, StdioServerDef } from '../config/types.js';
import { childEnv } from './child-env.js';
import type { ConnectOptions } from './connect-options.js';
import { ParleyStdioTransport } from './stdio-transport.js';
import { MAX_HTTP_MESSAGE_CHARS, repairingFetch } from './wire-repair.js';

/**
 * The stdio transport for `def`: parley's own ({@link ParleyStdioTransport}: it reads stdout itself,
 * and the SDK's `'auto'` negotiation probes `server/discover` in place on it, on the one process).
 * Server stderr goes to `o.hooks.onStderr`; messages it cannot pass on go to the broker's
 * `malformedMessage` (person and audit).
 */
export function stdioTransport(def: StdioServerDef, o: ConnectOptions): ParleyStdioTransport {
  const t = new ParleyStdioTransport(
    {
      command: def.command,
      args: def.args,
      env: childEnv(def, o.parentEnv),
      ...(def.cwd ? { cwd: def.cwd } : {}),
      ...(o.maxMessageBytes !== undefined ? { maxMessageBytes: o.maxMessageBytes } : {}),
    },
    {
      refused: (detail, count) => o.handlers.malformedMessage?.(o.name, detail, count),
      log: (level, message) => o.log?.(level, `server "${o.name}": ${message}`),
    },
  );
  t.stderr.on('data', (chunk: Buffer | string) => o.hooks.onStderr(chunk.toString()));
  return t;
}

const cutOff = new WeakMap<object, Error>();

/** Why parley closed `transport` itself (an event over `MAX_HTTP_MESSAGE_CHARS`), or `undefined`. */
export function cutOffReason(transport: unknown): Error | undefined {
  return typeof transport === 'object' && transport !== null ? cutOff.get(transport) : undefined;
}

/**
 * The legacy HTTP+SSE transport for `def`. Its `fetch` (the event stream and the POSTs) goes through
 * {@link repairingFetch}: malformed server requests are repaired as on Streamable HTTP, and an event
 * over `MAX_HTTP_MESSAGE_CHARS` ends the stream and closes the transport (reported to its `onerror`):
 * its EventSource would reconnect and read the next endless event, and the legacy session is tied to the
 * stream anyway.
 */
export function sseTransport(def: HttpServerDef): SSEClientTransport {
  const t: SSEClientTransport = new SSEClientTransport(new URL(def.url), {
    requestInit: { headers: def.headers },
    fetch: repairingFetch(fetch, MAX_HTTP_MESSAGE_CHARS, (err) => {
      cutOff.set(t, err);
      t.onerror?.(err);
      void t.close();
    }),
  });
  return t;
}

/**
 * Stops a {@link withDeadline} clock while a person is busy (signing in to a protected server): the
 * start-up bound counts the server's time, not the person's. Nested `during` calls are fine.
 */
export class DeadlineHold {
  #depth = 0;
  #listener: ((held: boolean) => void) | undefined;
  /** Used by `withDeadline`. */
  attach(listener: (held: boolean) => void): () => void {
    this.#listener = listener;
    if (this.#depth > 0) listener(true);
    return () => {
      this.#listener = undefined;
    };
  }
  async during<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#depth++ === 0) this.#listener?.(true);
    try {
      return await fn();
    } finally {
      if (--this.#depth === 0) this.#listener?.(false);
    }
  }
}

/**
 * Races `fn` against `ms` and `signal`; on either, calls `onGiveUp` (kills what was spawned) and rejects.
 * While `hold` is held the clock stops (the remaining time is kept).
 */
export async function withDeadline<T>(
  ms: number,
  message: string,
  signal: AbortSignal | undefined,
  onGiveUp: () => void,
  fn: () => Promise<T>,
  hold?: DeadlineHold,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  let detach: (() => void) | undefined;
  const timeout = new Promise<never>((_, reject) => {
    let left = ms;
    let since = Date.now();
    const fire = () => {
      onGiveUp();
      reject(Object.assign(new Error(message), { code: 'START_TIMEOUT' }));
    };
    timer = setTimeout(fire, left);
    detach = hold?.attach((held) => {
      if (held) {
        clearTimeout(timer);
        left = Math.max(0, left - (Date.now() - since));
      } else {
        since = Date.now();
        timer = setTimeout(fire, left);
      }
    });
    onAbort = () => {
      onGiveUp();
      reject(Object.assign(new Error('start-up aborted (server stopped)'), { code: 'START_ABORTED' }));
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([fn(), timeout]);
  } finally {
    clearTimeout(timer);
    detach?.();
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
