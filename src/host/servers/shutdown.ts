/**
 * Bounded shutdown of one connection.
 * @module
 */
import type { Connection } from './connection.js';
import { descendants } from './process-tree.js';

/**
 * Shutdown bounds, ms: after closing the client (which ends the child's stdin) wait `graceMs`, send
 * SIGTERM, wait `killAfterMs`, send SIGKILL and wait up to `killAfterMs` more for the child to be
 * reaped. HTTP connections are bounded by `graceMs + killAfterMs`.
 */
export const DEFAULT_STOP = { graceMs: 2_000, killAfterMs: 2_000 };

/**
 * Closes `conn`; resolves within about `graceMs + 2 × killAfterMs` (the last `killAfterMs` only for a
 * child that ignored SIGTERM), normally once the child has exited, so a caller sees no process left.
 * The signals also reach the processes the child started (a launcher's real server, see
 * ./process-tree.ts). Never rejects.
 */
export async function closeBounded(conn: Connection, { graceMs, killAfterMs }: typeof DEFAULT_STOP): Promise<void> {
  const pid = conn.pid;
  const tree = pid === null ? [] : descendants(pid);
  const closing = conn.close();
  if (pid === null) return void (await settlesWithin(closing, graceMs + killAfterMs));
  const all = [pid, ...tree];
  if (await settlesWithin(closing, graceMs)) return void signalAll(tree, 'SIGTERM');
  signalAll(all, 'SIGTERM');
  if (await settlesWithin(closing, killAfterMs)) return;
  signalAll(all, 'SIGKILL');
  // SIGKILL cannot be refused, but the child is only gone once it is reaped (the transport's close).
  await settlesWithin(closing, killAfterMs);
}

/** Signals each pid that is still alive (a stale pid of ours exited: ESRCH is ignored). */
function signalAll(pids: number[], sig: NodeJS.Signals): void {
  for (const p of pids) signal(p, sig);
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    delay(ms).then(() => false),
  ]);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
}
