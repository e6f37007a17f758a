/**
 * The processes a server's child started, so a stop reaches them too. A launcher such as `npx`, `uvx` or a
 * shell script runs the real server as ITS child; stopping only the launcher leaves the server holding the
 * stdio pipes, which keeps parley's own process alive until that orphan exits (about a minute for
 * server-everything through npx).
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Upper bound on processes scanned, so a huge process table cannot stall a stop. */
const MAX_SCAN = 65_536;

/** Parent pid from a `/proc/<pid>/stat` line (the command may contain spaces and parentheses). */
function parentOf(stat: string): number {
  const close = stat.lastIndexOf(')');
  return Number(stat.slice(close + 2).split(' ', 2)[1]);
}

/**
 * Every descendant of `pid` (children, grandchildren, …), read from `/proc` on Linux; `[]` elsewhere or when
 * `/proc` is unreadable. A snapshot: take it while the launcher is still alive (its orphans are re-parented).
 */
export function descendants(pid: number): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  let scanned = 0;
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    if (++scanned > MAX_SCAN) break;
    let ppid: number;
    try {
      ppid = parentOf(readFileSync(`/proc/${name}/stat`, 'latin1'));
    } catch {
      continue; // exited meanwhile
    }
    const list = children.get(ppid);
    if (list) list.push(Number(name));
    else children.set(ppid, [Number(name)]);
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length) {
    for (const c of children.get(queue.shift()!) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}
