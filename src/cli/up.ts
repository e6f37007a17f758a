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
 * Exit codes: 0 clean shutdown, 1 configuration errors or nothing could start, 2 bad flags.
 * @module
 */
import { spawn } from 'node:child_process';
import { defineCommand } from 'citty';
import { createHost, formatConfigIssues, HeadlessPresenter, type HostEvent } from '../host/index.js';
import { openStore, storeArgs } from './context.js';
import { hostApiFor, startConsole, WebPresenter } from '../ui/web/index.js';
import { resolveConfig } from './defaults.js';
import { CliError, EXIT, palette, useColour } from './output.js';

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
    spawn(cmd, args, { stdio: 'ignore', detached: true }).on('error', () => undefined).unref();
  } catch {
    // no browser opener on this machine: the URL is printed anyway
  }
}

export const upCommand = defineCommand({
  meta: { name: 'up', description: 'Run the host: start the configured servers and serve the web console on 127.0.0.1' },
  args: {
    config: { type: 'string', description: 'configuration file (else ./parley.json, ./.mcp.json, ./.vscode/mcp.json, ~/.config/parley/parley.json, else the embedded default)' },
    port: { type: 'string', description: 'console port (0 = any free port)', default: '0' },
    ...storeArgs,
    open: { type: 'boolean', description: 'open the console in a browser', default: false },
    console: { type: 'boolean', description: 'serve the web console (--no-console to run without it)', default: true },
    json: { type: 'boolean', description: 'log one JSON object per line', default: false },
  },
  async run({ args }) {
    const port = Number(args.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be 0..65535 (got ${JSON.stringify(args.port)})`);
    const p = palette(useColour() && !args.json);
    const log = logger(Boolean(args.json));

    const { config, issues, origin } = resolveConfig({ flagFile: args.config });
    if (issues.length > 0) process.stderr.write(formatConfigIssues(issues) + '\n');
    const names = Object.keys(config.servers);
    if (names.length === 0) throw new CliError(`no servers to run (configuration from ${origin}${issues.some((i) => i.severity === 'error') ? ', with errors above' : ''})`, EXIT.FAILED);
    log('config', { origin, sources: config.sources, servers: names }, `parley: configuration from ${origin === 'embedded' ? 'the embedded default' : config.sources.join(', ')}; servers: ${names.join(', ')}`);

    const store = await openStore(args);
    const web = args.console ? new WebPresenter() : undefined;
    const host = createHost(config, {
      presenter: web ?? new HeadlessPresenter(true),
      store,
      log: (level, message) => (level === 'error' || level === 'warn' ? log('log', { level, message }, `${p.dim(level)} ${message}`) : undefined),
    });

    let consoleHandle: Awaited<ReturnType<typeof startConsole>> | undefined;
    if (web) {
      consoleHandle = await startConsole({ host: hostApiFor(host, store), presenter: web, port });
      log('console', { url: consoleHandle.url }, `parley: console at ${p.bold(consoleHandle.url)}`);
      if (args.open) openBrowser(consoleHandle.url);
    }

    const started = Date.now();
    host.on((e: HostEvent) => {
      if (e.type !== 'server') return;
      const s = e.state;
      if (s.status === 'starting') log('server', { server: e.server, status: 'starting', attempt: s.attempt }, `  ${e.server}: starting${s.attempt > 1 ? ` (attempt ${s.attempt})` : ''}…`);
      else if (s.status === 'running') log('server', { server: e.server, status: 'running', era: s.era, revision: s.revision, ms: Date.now() - started }, `  ${e.server}: ${p.green('ready')} (${s.revision}, ${Date.now() - started} ms)`);
      else if (s.status === 'error') log('server', { server: e.server, status: 'error', message: s.message }, `  ${e.server}: ${p.red('error')} ${s.message}`);
    });
    const results = await host.start();
    const ok = results.filter((r) => r.ok).length;
    log('ready', { ready: ok, failed: results.length - ok, ms: Date.now() - started }, `parley: ${ok}/${results.length} server(s) ready in ${Date.now() - started} ms${web ? '; press Ctrl-C to stop' : ''}`);

    await new Promise<void>((done) => {
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) process.exit(EXIT.FAILED); // a second Ctrl-C: leave now
        stopping = true;
        log('shutdown', { signal }, `parley: stopping (${signal})…`);
        const force = setTimeout(() => process.exit(EXIT.FAILED), SHUTDOWN_BOUND_MS);
        force.unref();
        void (async () => {
          await consoleHandle?.close().catch(() => undefined);
          await host.close().catch(() => undefined);
          await store.close().catch(() => undefined);
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
