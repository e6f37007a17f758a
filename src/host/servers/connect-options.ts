/**
 * The options of `Connection.open` and the era type, in a file of their own so that the modules
 * `Connection` uses (transports, input bridge, era verdicts) can name them without importing it.
 * @module
 */
import type { Implementation } from '@modelcontextprotocol/client';
import type { ServerDef } from '../config/types.js';
import type { AuthContext } from '../auth/session.js';
import type { InputHandlers } from './handlers.js';
import type { PauseGate } from './tool-clock.js';

/** The protocol era a connection speaks: `'legacy'` = 2025-06-18 / 2025-11-25, `'modern'` = 2026-07-28. */
export type Era = 'legacy' | 'modern';

export interface ConnectionHooks {
  onStderr(chunk: string): void;
  /** The connection ended without {@link Connection.close} being called (crash, exit, network). */
  onUnexpectedClose(reason: string): void;
  onListChanged(kind: 'tools' | 'resources' | 'prompts'): void;
  onLog(params: { level: string; logger?: string; data: unknown }): void;
}

export interface ConnectOptions {
  name: string;
  def: ServerDef;
  handlers: InputHandlers;
  clientInfo: Implementation;
  parentEnv: Record<string, string | undefined>;
  pause: PauseGate;
  /**
   * Cached era verdict for this definition (see `era-verdict.ts`): `'legacy'` connects with plain
   * `initialize`, probing once if that fails; `'modern'` probes as without a verdict and only labels
   * the outcome. `undefined` = probe.
   */
  verdict?: Era;
  /** Connect + negotiate bound, ms. */
  startupMs: number;
  /** Bound on the `server/discover` probe, ms (capped by `startupMs`). @default `PROBE_TIMEOUT_MS` (connection.ts) */
  probeTimeoutMs?: number;
  /**
   * stdio: largest message (one stdout line, UTF-8 bytes) read; a longer one is answered or reported,
   * never read (`stdio-transport.ts`). @default `MAX_STDIO_MESSAGE_BYTES` (16 MiB)
   */
  maxMessageBytes?: number;
  hooks: ConnectionHooks;
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  /** Aborting gives up the start (kills a spawned child) and rejects with code `START_ABORTED`. */
  signal?: AbortSignal;
  /**
   * OAuth client side for `type: 'http'` servers (docs/auth.md). Without it a 401 fails the start.
   * Time spent signing in does not count against `startupMs` nor a tool call's clock.
   */
  auth?: AuthContext;
}
