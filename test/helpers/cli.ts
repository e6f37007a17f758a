// Runs the parley CLI from source (tsx), with a bound, and captures its output.
import { spawn } from 'node:child_process';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}
/** Runs `parley <args>`; kills it after `timeoutMs` (default 20000 ms). */
export function runParley(args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string; cwd?: string } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), new URL('../../src/cli/main.ts', import.meta.url).pathname, ...args], { env: { ...process.env, ...opts.env }, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`parley ${args.join(' ')} did not finish in ${opts.timeoutMs ?? 20000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 20000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}
