/**
 * Why a stdio server did not start, in words a person can act on. The SDK's own reason is often just
 * "Connection closed" (the child exited before the handshake finished) or `spawn x ENOENT`; the cause
 * is usually in what the server wrote to stderr ("DATABASE_URL is not set"). {@link explainStartFailure}
 * adds the exit code or signal, the last stderr lines of this start, and for a command that cannot be
 * spawned the fix.
 *
 * Bounds: at most {@link START_STDERR_LINES} non-blank lines of stderr, each cut at
 * {@link START_STDERR_LINE_CHARS} characters (with `…`). The whole stderr stays in the server's log
 * (`stderr-ring.ts`, the console's "Recent stderr").
 * @module
 */
import { StderrRing } from './stderr-ring.js';

/** Lines of stderr a start failure quotes (the last ones written during that start). */
export const START_STDERR_LINES = 3;
/** Characters of one quoted stderr line. */
export const START_STDERR_LINE_CHARS = 300;

/** The stderr one start wrote (bounded: 50 lines, 8 KiB), for {@link explainStartFailure}. */
export class StartStderr {
  #ring = new StderrRing(50, 8192);

  /** Forgets what was kept: a new process of the same start (the retry after a probe) begins. */
  reset(): void {
    this.#ring = new StderrRing(50, 8192);
  }

  write(chunk: string): void {
    this.#ring.write(chunk);
  }

  /** The last {@link START_STDERR_LINES} non-blank lines, each cut at {@link START_STDERR_LINE_CHARS}. */
  tail(): string[] {
    this.#ring.end();
    return this.#ring
      .lines()
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .slice(-START_STDERR_LINES)
      .map((l) => (l.length > START_STDERR_LINE_CHARS ? `${l.slice(0, START_STDERR_LINE_CHARS)}…` : l));
  }
}

/** What {@link explainStartFailure} needs of the stdio transport (`ParleyStdioTransport`). */
export interface ExitedChild {
  readonly exited: boolean;
  readonly exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;
}

/** `the server process exited with code N` / `the server process was ended by SIGNAL`, or `undefined` while it runs. */
export function exitWords(child: ExitedChild | undefined): string | undefined {
  const st = child?.exited ? child.exitStatus : undefined;
  if (st?.signal) return `the server process was ended by ${st.signal}`;
  if (st && st.code !== null) return `the server process exited with code ${st.code}`;
  return undefined;
}

/** `its stderr ended with: "…" | "…"` (the {@link StartStderr.tail}), or `undefined` when nothing was written. */
export function stderrWords(stderr: StartStderr): string | undefined {
  const tail = stderr.tail();
  return tail.length > 0 ? `its stderr ended with: ${tail.map((l) => JSON.stringify(l)).join(' | ')}` : undefined;
}

/**
 * Rewrites `err.message` in place (its class and `code` are kept) to say why the start failed:
 * - `spawn <cmd> ENOENT` / `EACCES`: the command was not found / is not executable, and the fix;
 * - the child exited: `the server process exited with code N` (or `was ended by SIGNAL`) before the
 *   MCP handshake finished;
 * - then, when the start wrote to stderr: `; its stderr ended with: "…" | "…"`.
 * Waits one event-loop turn first so stderr that raced the exit is read. Returns `err`.
 */
export async function explainStartFailure(err: unknown, child: ExitedChild | undefined, stderr: StartStderr): Promise<unknown> {
  if (!(err instanceof Error)) return err;
  await new Promise((r) => setImmediate(r));
  const parts: string[] = [err.message];
  const e = err as NodeJS.ErrnoException & { path?: string };
  if (typeof e.syscall === 'string' && e.syscall.startsWith('spawn') && (e.code === 'ENOENT' || e.code === 'EACCES')) {
    const cmd = e.path ?? e.syscall.slice('spawn '.length);
    parts.push(
      e.code === 'ENOENT'
        ? `: the command "${cmd}" was not found (fix the server's "command", give its full path, or add its folder to PATH)`
        : `: the command "${cmd}" is not executable (fix its permissions, e.g. chmod +x, or run it through its interpreter)`,
    );
  } else if ((e as { code?: unknown }).code !== 'START_TIMEOUT') {
    const exit = exitWords(child);
    if (exit) parts.push(`: ${exit} before the MCP handshake finished`);
  }
  const said = stderrWords(stderr);
  if (said) parts.push(`; ${said}`);
  err.message = parts.join('');
  return err;
}

/**
 * For a remote server: appends the innermost cause the SDK's message leaves out (at most 5 causes
 * deep), in place, so "Version negotiation probe failed: fetch failed" says why the fetch failed:
 * `…: fetch failed: connect ECONNREFUSED 127.0.0.1:8765` or `getaddrinfo ENOTFOUND host`. Returns `err`.
 */
export function explainRemoteFailure(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  let inner: unknown = err.cause;
  let deepest: Error | undefined;
  for (let depth = 0; inner instanceof Error && depth < 5; depth++) {
    deepest = inner;
    inner = inner.cause;
  }
  if (deepest && deepest.message && !err.message.includes(deepest.message)) err.message = `${err.message}: ${deepest.message}`;
  return err;
}
