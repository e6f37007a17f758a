/**
 * Transport construction for stdio and legacy SSE, and the start-up deadline helper.
 * @module
 */
import { SSEClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { HttpServerDef, StdioServerDef } from '../config/types.js';
import { childEnv } from './child-env.js';
import type { ConnectOptions } from './connection.js';

/**
 * A `StdioClientTransport` that behaves identically, except that SDK 2.4's `'auto'` negotiation probes
 * `server/discover` *in place* on it instead of on a throw-away sibling process: the SDK uses the
 * sibling only for the base class exactly (`versionNegotiation` docs in the client typings; checked in
 * `readStdioServerParams`, which looks for the base prototype's own `_dispose`). Used when a modern
 * verdict is cached, so the one session child answers the probe (see `era-verdict.ts`).
 */
export class InPlaceProbeStdioTransport extends StdioClientTransport {}

/** The stdio transport for `def`; `inPlaceProbe` picks {@link InPlaceProbeStdioTransport}. */
export function stdioTransport(def: StdioServerDef, o: ConnectOptions, inPlaceProbe = false): StdioClientTransport {
  const Kind = inPlaceProbe ? InPlaceProbeStdioTransport : StdioClientTransport;
  const t = new Kind({
    command: def.command,
    args: def.args,
    env: childEnv(def, o.parentEnv),
    ...(def.cwd ? { cwd: def.cwd } : {}),
    stderr: 'pipe',
  });
  t.stderr?.on('data', (chunk: Buffer | string) => o.hooks.onStderr(chunk.toString()));
  return t;
}

export function sseTransport(def: HttpServerDef): SSEClientTransport {
  return new SSEClientTransport(new URL(def.url), { requestInit: { headers: def.headers } });
}

/** Races `fn` against `ms` and `signal`; on either, calls `onGiveUp` (kills what was spawned) and rejects. */
export async function withDeadline<T>(ms: number, message: string, signal: AbortSignal | undefined, onGiveUp: () => void, fn: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onGiveUp();
      reject(Object.assign(new Error(message), { code: 'START_TIMEOUT' }));
    }, ms);
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
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
