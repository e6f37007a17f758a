// Runs the parley CLI, with a bound, and captures its output: the build when it is current, else the
// source under tsx (see CLI below).
//
// Every run is isolated from the machine it runs on: the CLI merges the project files of its working
// directory (parley.json, .mcp.json, .vscode/mcp.json) and the user file under $XDG_CONFIG_HOME or
// $HOME/.config into whatever --config names, so a developer's own files would change what a test
// sees. Unless a test passes `cwd`, a run gets an empty temporary folder as its working directory, HOME,
// XDG_CONFIG_HOME and XDG_STATE_HOME (where `parley serve` keeps its database by default).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The newest modification time (ms since the epoch) of `path` and, for a folder, of everything under
 * it, folders included: deleting or renaming a file changes only its folder's time. 0 when it does
 * not exist.
 */
function newestMtimeMs(path: string): number {
  let st;
  try {
    st = statSync(path);
  } catch {
    return 0;
  }
  let newest = st.mtimeMs;
  if (st.isDirectory()) for (const name of readdirSync(path)) newest = Math.max(newest, newestMtimeMs(join(path, name)));
  return newest;
}

/**
 * True when `repo`'s dist/ was written after the last change to what the build reads: the files and
 * folders under src/ and servers/ (a deleted source file leaves its stale .js behind, and only its
 * folder's time says so) and the tsconfig files.
 */
export function distCurrent(repo: string): boolean {
  const inputs = ['src', 'servers', 'tsconfig.json', 'tsconfig.build.json'].map((p) => newestMtimeMs(join(repo, p)));
  return newestMtimeMs(join(repo, 'dist')) >= Math.max(...inputs);
}

/** {@link distCurrent} for this repository (`npm test` builds first). Decided once per test process. */
export const DIST_CURRENT = distCurrent(REPO);

/**
 * The node arguments that run `entry`, a .ts file under src/ or servers/ given relative to the
 * repository (append its own arguments): the built .js under dist/ when DIST_CURRENT, which starts in
 * about a third of tsx's time; otherwise the source under tsx, so a run after an edit without a build
 * still tests the edit.
 */
export function nodeArgs(entry: string): string[] {
  return DIST_CURRENT ? [join(REPO, 'dist', entry.replace(/\.ts$/, '.js'))] : ['--import', import.meta.resolve('tsx'), join(REPO, entry)];
}

/** The node arguments that start the parley CLI (see nodeArgs). */
export const CLI: readonly string[] = nodeArgs('src/cli/main.ts');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment entries that point HOME and the XDG config and state folders at `dir` (no user parley.json, no shared gateway.db). */
export function isolatedEnv(dir: string): { HOME: string; XDG_CONFIG_HOME: string; XDG_STATE_HOME: string } {
  return { HOME: dir, XDG_CONFIG_HOME: join(dir, '.config'), XDG_STATE_HOME: join(dir, '.local', 'state') };
}

/**
 * Runs `parley <args>`; kills it after `timeoutMs` (default 60000 ms: one run took ~3 s here with the
 * whole suite running, tsx compiling the CLI on a cold cache included; CI machines can be 3× slower).
 */
export function runParley(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string; cwd?: string } = {},
): Promise<CliRun> {
  const home = mkdtempSync(join(tmpdir(), 'parley-cli-home-'));
  const done = () => rmSync(home, { recursive: true, force: true });
  return new Promise<CliRun>((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], {
      env: { ...process.env, ...isolatedEnv(home), ...opts.env },
      cwd: opts.cwd ?? home,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`parley ${args.join(' ')} did not finish in ${opts.timeoutMs ?? 60_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  }).finally(done);
}

/**
 * Resolves when `child` has exited, at once when it already has: `child.once('exit')` alone never
 * fires for a process that exited before the listener was added.
 */
export function exitOf(child: import('node:child_process').ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

/** Whether a process with this id is running (signal 0 reaches it). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
