// Peer processes for interop tests: the SDK peer servers of ./peers/sdk-server.mjs, server-everything
// over HTTP, and the paths of the reference servers and the toolkit's stdio fixture. Every start is
// bounded and a failed start kills what it spawned.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const path = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
export const SDK_SERVER = path('./peers/sdk-server.mjs');
export const EVERYTHING = path('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = path('../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
/** The toolkit demo server (test/fixtures/toolkit/peers.ts `demoServer`) over stdio; run with `--import tsx`. */
export const TOOLKIT_STDIO = path('../fixtures/toolkit/server.ts');

export type SdkPeerKind = 'v1' | 'v2-legacy' | 'v2-modern';

export interface HttpPeer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Stops a child: SIGTERM, then SIGKILL after `graceMs`. Resolves once it exited. */
export function stopChild(child: ChildProcess, graceMs = 2000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => (clearTimeout(t), resolve()));
    child.kill('SIGTERM');
  });
}

/**
 * Spawns `node <args>` and waits (at most `timeoutMs`, default 30000) until its stdout or stderr
 * matches `pattern`; resolves with the first capture group.
 */
export async function spawnListening(
  args: string[],
  pattern: RegExp,
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<{ child: ChildProcess; match: string }> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const child = spawn(process.execPath, args, { env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  try {
    const match = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`node ${args.join(' ')}: no ${pattern} within ${timeoutMs} ms; output: ${out}`)),
        timeoutMs,
      );
      const onData = (d: Buffer) => {
        out += d.toString();
        const m = pattern.exec(out);
        if (m) clearTimeout(timer), resolve(m[1]);
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once(
        'exit',
        (code) => (
          clearTimeout(timer), reject(Object.assign(new Error(`node ${args.join(' ')} exited with ${code}: ${out}`), { output: out }))
        ),
      );
    });
    // Keep draining so a chatty peer never blocks on a full pipe.
    child.stdout!.resume();
    child.stderr!.resume();
    return { child, match };
  } catch (e) {
    await stopChild(child);
    throw e;
  }
}

/** An SDK peer server (./peers/sdk-server.mjs) over Streamable HTTP on 127.0.0.1. */
export async function startSdkHttpPeer(kind: SdkPeerKind): Promise<HttpPeer> {
  const { child, match } = await spawnListening([SDK_SERVER, kind, '--http'], /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
  return { url: match, child, stop: () => stopChild(child) };
}

/** A free TCP port on 127.0.0.1 (for peers that only take a fixed PORT). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * server-everything in an HTTP mode. It reads PORT (0 is not usable: it would report port 0) and calls
 * `app.listen(PORT)` without a host, so it binds all interfaces (peers-and-tests.md §ii.1); tests only
 * ever connect to 127.0.0.1. A port taken between `freePort` and the listen is retried (3 attempts).
 * `url` is the Streamable HTTP endpoint (`/mcp`) or, for `sse`, the SSE endpoint (`/sse`).
 */
export async function startEverythingHttp(mode: 'streamableHttp' | 'sse' = 'streamableHttp'): Promise<HttpPeer & { port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      const { child } = await spawnListening([EVERYTHING, mode], /(?:listening on port|running on port) (\d+)/, {
        env: { PORT: String(port) },
      });
      return { port, url: `http://127.0.0.1:${port}${mode === 'sse' ? '/sse' : '/mcp'}`, child, stop: () => stopChild(child) };
    } catch (e) {
      if (attempt >= 3 || !/EADDRINUSE|already in use/.test(String((e as { output?: string }).output ?? ''))) throw e;
    }
  }
}

/**
 * A `fetch` for an SDK client's Streamable HTTP transport, and a promise that settles once the
 * transport's standalone GET stream is open: a 2025-era session's unsolicited notifications
 * (list_changed) travel only there, and one sent before it exists is lost.
 */
export function watchGetStream(): { fetch: typeof fetch; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const watching: typeof fetch = async (input, init) => {
    const r = await fetch(input, init);
    if ((init?.method ?? 'GET') === 'GET' && r.ok) open();
    return r;
  };
  return { fetch: watching, opened };
}
