// Driving a terminal in tmux for the terminal tests: send keys, read the pane, wait for text.
import { execFileSync } from 'node:child_process';

/** Runs `tmux …` and returns its stdout (5 s bound per call). */
export const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8', timeout: 5_000 });

/** The pane of session `s`, wrapped lines joined, with 200 lines of history. */
export const screen = (s: string) => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', s);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls the pane until `re` matches; throws with the screen after `ms` (default 90 s). */
export async function waitFor(s: string, re: RegExp, ms = 90_000): Promise<string> {
  const end = Date.now() + ms;
  let last = '';
  while (Date.now() < end) {
    last = screen(s);
    if (re.test(last)) return last;
    await sleep(200);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${re}; screen:\n${last}`);
}
