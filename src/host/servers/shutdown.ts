/**
 * Bounded shutdown of one connection.
 * @module
 */
import type { Connection } from './connection.js';

/**
 * Shutdown bounds, ms: after closing the client (which ends the child's stdin) wait `graceMs`, send
 * SIGTERM, wait `killAfterMs`, send SIGKILL. HTTP connections are bounded by the sum.
 */
export const DEFAULT_STOP = { graceMs: 2_000, killAfterMs: 2_000 };

/** Closes `conn`; resolves within about `graceMs + killAfterMs`. Never rejects. */
export async function closeBounded(conn: Connection, { graceMs, killAfterMs }: typeof DEFAULT_STOP): Promise<void> {
  const pid = conn.pid;
  const closing = conn.close();
  if (pid === null) return void (await settlesWithin(closing, graceMs + killAfterMs));
  if (await settlesWithin(closing, graceMs)) return;
  signal(pid, 'SIGTERM');
  if (await settlesWithin(closing, killAfterMs)) return;
  signal(pid, 'SIGKILL');
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([p.then(() => true, () => true), delay(ms).then(() => false)]);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
}
