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

/** The newest modification time (ms since the epoch) of any file under `dir`; 0 when it does not exist. */
function newestMtimeMs(dir: string): number {
  let newest = 0;
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of entries) {
    const path = join(dir, name);
    const st = statSync(path);
    newest = Math.max(newest, st.isDirectory() ? newestMtimeMs(path) : st.mtimeMs);
  }
  return newest;
}

/**
 * True when dist/ was written after the last change under src/ and servers/ (`npm test` builds
 * first). Decided once per test process.
 */
export const DIST_CURRENT =
  newestMtimeMs(join(REPO, 'dist')) >= Math.max(newestMtimeMs(join(REPO, 'src')), newestMtimeMs(join(REPO, 'servers')));

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
