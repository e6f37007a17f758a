/**
 * `parley up`: the main job. Resolves configuration (`--config`, else project/user files, else the
 * embedded default), opens the SQLite store, starts every server in parallel with progress, and serves
 * the web console on 127.0.0.1 with a random token in its URL. Ctrl-C (SIGINT) or SIGTERM shuts down
 * cleanly: console closed, servers stopped (bounded), store closed.
 *
 * Flags: `--config <file>`, `--port <n>` (console port, 0 = any free one; default 0), `--store <url|path>`
 * (or `$PARLEY_STORE`; default `.parley/parley.db`), `--open` (open a browser, only when asked), `--no-console` (no web
 * console: prompts are answered from presets and remembered answers only, else declined with a
 * clear error), `--json` (one JSON object per log line on stdout).
 *
 * The console's token is never written to a log: its full address goes to a file of mode 0600 beside
 * the database (`console-<port>.url`, removed on a clean stop), to the browser with `--open`, and to
 * the terminal once when stdout is a TTY and `--json` is off. Logs carry the address without it.
 * It runs until Ctrl-C or SIGTERM, also when no server is running (they failed and wait for their
 * restart, or are lazy), with or without the console.
 * Exit codes: 0 clean shutdown, 1 no valid server configured or the console port is busy, 2 bad flags.
 * @module
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineCommand } from 'citty';
import { createHost, formatConfigIssues, HeadlessPresenter, type HostEvent } from '../host/index.js';
import { openCredentials, openStore, stateDir, storeArgs, storeTarget } from './context.js';
import { hostApiFor, startConsole, WebPresenter } from '../ui/web/index.js';
import { invalidReasons } from './context.js';
import { resolveConfig } from './defaults.js';
import { CliError, EXIT, palette, useColour } from './output.js';
import { termText } from '../ui/terminal/safe-text.js';

/** Bound on the clean shutdown before the process exits anyway, ms. */
export const SHUTDOWN_BOUND_MS = 10_000;

type Log = (event: string, fields: Record<string, unknown>, human: string) => void;

function logger(json: boolean): Log {
  return (event, fields, human) => {
    if (json) process.stdout.write(JSON.stringify({ ts: new Date().toISOString(), event, ...fields }) + '\n');
    else process.stdout.write(human + '\n');
  };
}

function openBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const args = process.platform === 'win32' ? ['/c', 'start', '', url] : [url];
  try {
    spawn(cmd, args, { stdio: 'ignore', detached: true })
      .on('error', () => undefined)
      .unref();
  } catch {
    // no browser opener on this machine: the URL is printed anyway
  }
}

/**
 * Writes the console's full address (with its token) to `<dir>/console-<port>.url`, mode 0600, created
 * fresh (an existing file or a planted symlink there is removed first, then `wx` refuses to follow one
 * that appears meanwhile). The token goes nowhere else that is kept: logs get the origin and this path.
 * @returns the file's path and `remove()`, which deletes it if it still holds this address.
 */
export function writeConsoleUrlFile(dir: string, handle: { url: string; port: number }): { path: string; remove(): void } {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `console-${handle.port}.url`);
  rmSync(path, { force: true });
  writeFileSync(path, handle.url + '\n', { mode: 0o600, flag: 'wx' });
  return {
    path,
    remove() {
      try {
        if (readFileSync(path, 'utf8').trim() === handle.url) rmSync(path, { force: true });
      } catch {
        // already gone
      }
    },
  };
}

export const upCommand = defineCommand({
  meta: { name: 'up', description: 'Run the host: start the configured servers and serve the web console on 127.0.0.1' },
  args: {
    config: {
      type: 'string',
      description:
        'configuration file (else ./parley.json, ./.mcp.json, ./.vscode/mcp.json, ~/.config/parley/parley.json, else the embedded default)',
    },
    port: { type: 'string', description: 'console port (0 = any free port)', default: '0' },
    ...storeArgs,
    open: { type: 'boolean', description: 'open the console in a browser', default: false },
    console: { type: 'boolean', description: 'serve the web console (--no-console to run without it)', default: true },
    json: { type: 'boolean', description: 'log one JSON object per line', default: false },
  },
  async run({ args }) {
    const port = Number(args.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new CliError(`--port must be 0..65535 (got ${JSON.stringify(args.port)})`);
    const p = palette(useColour() && !args.json);
    const log = logger(Boolean(args.json));

    const { config, issues, origin } = resolveConfig({ flagFile: args.config });
    if (issues.length > 0) process.stderr.write(formatConfigIssues(issues) + '\n');
    const names = Object.keys(config.servers);
    if (names.length === 0)
      throw new CliError(
        `no servers to run (configuration from ${origin}${issues.some((i) => i.severity === 'error') ? ', with errors above' : ''})`,
        EXIT.FAILED,
      );
    log(
      'config',
      { origin, sources: config.sources, servers: names },
      `parley: configuration from ${origin === 'embedded' ? 'the embedded default' : config.sources.join(', ')}; servers: ${names.join(', ')}`,
    );
    for (const [name, why] of Object.entries(invalidReasons(config, issues)))
      log('invalid', { server: name, reason: why }, `  ${name}: ${p.red('not started')}: its configuration has errors (${why})`);

    const store = await openStore(args);
    const dataDir = stateDir(storeTarget(args), '.parley');
    const credentials = await openCredentials(storeTarget(args));
    const web = args.console ? new WebPresenter() : undefined;
    const host = createHost(config, {
      presenter: web ?? new HeadlessPresenter(true),
      store,
      credentials,
      log: (level, message) =>
        level === 'error' || level === 'warn' ? log('log', { level, message }, `${p.dim(level)} ${message}`) : undefined,
    });

    let consoleHandle: Awaited<ReturnType<typeof startConsole>> | undefined;
    let urlFile: ReturnType<typeof writeConsoleUrlFile> | undefined;
    if (web) {
      try {
        consoleHandle = await startConsole({ host: hostApiFor(host, store), presenter: web, port });
      } catch (e) {
        await host.close().catch(() => undefined);
        store.close();
        const code = (e as NodeJS.ErrnoException).code;
        throw new CliError(
          code === 'EADDRINUSE'
            ? `port ${port} is in use; choose another with --port, or 0 for any free port`
            : `cannot serve the console: ${(e as Error).message}`,
          EXIT.FAILED,
        );
      }
      urlFile = writeConsoleUrlFile(dataDir, consoleHandle);
      // The full address only where a person reads it once: a terminal (not a log), the browser, the file.
      const tty = !args.json && process.stdout.isTTY === true;
      const where = `the address with its token is in ${urlFile.path}`;
      log(
        'console',
        { origin: consoleHandle.origin, urlFile: urlFile.path },
        tty ? `parley: console at ${p.bold(consoleHandle.url)}` : `parley: console at ${consoleHandle.origin}/ (${where})`,
      );
      if (args.open) openBrowser(consoleHandle.url);
      // Forms are answered in the browser only: the terminal says when one waits, so a call that seems
      // to hang is seen to wait for a person (the message shown, never obeyed, cut at 120 characters).
      web?.on((e) => {
        if (e.type !== 'prompt') return;
        const pr = e.payload.prompt;
        const what = pr.configInput
          ? `parley needs the configuration's input "${pr.configInput.id}" to start ${pr.server}`
          : `${pr.server} is asking${pr.message ? `: "${pr.message.length > 120 ? `${pr.message.slice(0, 119)}…` : pr.message}"` : ''}`;
        log(
          'prompt',
          { server: pr.server, id: pr.id, ...(pr.configInput ? { input: pr.configInput.id } : {}) },
          `  ${termText(what)} (answer it in the console)`,
        );
      });
    }

    const started = Date.now();
    host.on((e: HostEvent) => {
      if (e.type !== 'server') return;
      const s = e.state;
      if (s.status === 'starting')
        log(
          'server',
          { server: e.server, status: 'starting', attempt: s.attempt },
          `  ${e.server}: starting${s.attempt > 1 ? ` (attempt ${s.attempt})` : ''}…`,
        );
      else if (s.status === 'running')
        log(
          'server',
          // The server's own start (a restart too), not the time since parley started.
          { server: e.server, status: 'running', era: s.era, revision: s.revision, ms: s.startMs },
          `  ${e.server}: ${p.green('ready')} (${s.revision}, ${s.startMs} ms)`,
        );
      else if (s.status === 'error')
        log('server', { server: e.server, status: 'error', message: s.message }, `  ${e.server}: ${p.red('error')} ${s.message}`);
    });
    // Cold start counts the eager servers only: a lazy one starts on first use (a call, a read, a route).
    const lazy = names.filter((n) => host.isLazy(n));
    for (const n of lazy) log('server', { server: n, status: 'lazy' }, `  ${n}: not started (lazy: starts on first use)`);
    const results = await host.start();
    const ok = results.filter((r) => r.ok).length;
    log(
      'ready',
      { ready: ok, failed: results.length - ok, lazy: lazy.length, ms: Date.now() - started },
      `parley: ${ok}/${results.length} server(s) ready in ${Date.now() - started} ms${lazy.length ? ` (${lazy.length} lazy)` : ''}${web ? '; press Ctrl-C to stop' : ''}`,
    );

    await new Promise<void>((done) => {
      // Runs until Ctrl-C or SIGTERM even when nothing else holds the event loop: with --no-console and
      // no server running (all failed and waiting for their restart, or all lazy) Node would otherwise
      // exit at once, with code 0, right after saying "restarting in 500 ms".
      const keepAlive = setInterval(() => undefined, 2 ** 30);
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) process.exit(EXIT.FAILED); // a second Ctrl-C: leave now
        stopping = true;
        clearInterval(keepAlive);
        log('shutdown', { signal }, `parley: stopping (${signal})…`);
        const force = setTimeout(() => process.exit(EXIT.FAILED), SHUTDOWN_BOUND_MS);
        force.unref();
        void (async () => {
          await consoleHandle?.close().catch(() => undefined);
          urlFile?.remove();
          await host.close().catch(() => undefined);
          await store.close().catch(() => undefined);
          await credentials.close().catch(() => undefined);
          clearTimeout(force);
          log('stopped', {}, 'parley: stopped');
          // Everything is closed; a stray handle (a timer of a call that was cut short) must not keep
          // the process alive: leave after a short grace period that lets stdout drain.
          setTimeout(() => process.exit(EXIT.OK), 500).unref();
          done();
        })();
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
  },
});
