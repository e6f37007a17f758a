/**
 * Live-server states and events of the {@link ServerManager}.
 * @module
 */
import type { Era } from './connection.js';
import type { EraEvent } from './era-verdict.js';

export type ServerState =
  | { status: 'stopped' }
  | { status: 'starting' /** 1-based start attempt since the last success. */; attempt: number }
  | {
      status: 'running';
      era: Era;
      revision: string;
      /** Epoch ms. */
      since: number;
      /** How long this start (this attempt, a restart too) took, from 'starting' to 'running', ms. */
      startMs: number;
    }
  | {
      status: 'error';
      message: string;
      /** `START_FAILED` connect/negotiate error; `START_TIMEOUT` startupMs exceeded; `CRASHED` closed while running. */
      code: 'START_FAILED' | 'START_TIMEOUT' | 'CRASHED';
      /** Consecutive failures so far. */
      attempts: number;
      /** Epoch ms of the scheduled restart; absent once `maxAttempts` is reached. */
      nextRetryAt?: number;
      /**
       * Set when the start failed because the user must sign in and nobody could be asked here
       * (`SignInError` `SIGN_IN_REQUIRED`, docs/auth.md): a gateway may then ask through its client.
       */
      signInRequired?: true;
    };

export type ServerStatus = ServerState['status'];

export interface ServerEvents {
  state: { server: string; state: ServerState };
  /** One complete stderr line of a stdio server (also kept in the bounded ring, see `stderr-ring.ts`). */
  stderr: { server: string; line: string };
  /** `notifications/{tools,resources,prompts}/list_changed`; the manager's caches are already invalidated. */
  listChanged: { server: string; kind: 'tools' | 'resources' | 'prompts' };
  /** `notifications/message` (server logging). */
  log: { server: string; level: string; logger?: string; data: unknown };
  /** After each successful start: the era and how it was reached (probe, cached verdict, corrected verdict). */
  era: EraEvent;
}

/** Thrown by `ensureRunning` (and the passthroughs) when a server is in `error` and not yet due for restart. */
export class ServerUnavailableError extends Error {
  readonly code = 'SERVER_UNAVAILABLE';
  constructor(
    readonly server: string,
    readonly state: ServerState,
  ) {
    super(
      state.status === 'error'
        ? `Server "${server}" is unavailable: ${state.message} (${state.code}, ${state.attempts} failed attempt(s)` +
            (state.nextRetryAt
              ? `; next restart at ${new Date(state.nextRetryAt).toISOString()})`
              : '; given up: parley does not restart it by itself; whoever runs parley can, with Restart in the console or by restarting parley)')
        : `Server "${server}" is ${state.status}.`,
    );
  }
}

/** Thrown for a server name that is not in the definitions. */
export class UnknownServerError extends Error {
  readonly code = 'UNKNOWN_SERVER';
  constructor(
    readonly server: string,
    known: string[],
  ) {
    super(`Unknown server "${server}". Configured servers: ${known.length ? known.join(', ') : '(none)'}.`);
  }
}
