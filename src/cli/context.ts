/**
 * What every host command shares: the `--config` / `--store` flags, strict flag checking (unknown
 * option → exit 2), configuration loading exactly like `parley up` (flag file, project files, user
 * file, embedded default), opening the store (SQLite file or PostgreSQL URL) and building the host
 * with a presenter.
 * @module
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createHost, formatConfigIssues, hasErrors } from '../host/index.js';
import { openPostgresCredentialStore, openSqliteCredentialStore, type CredentialStore } from '../host/auth/index.js';
import type { ConfigIssue, Host, HostConfig, Presenter } from '../host/index.js';
import { isPostgresUrl, openStore as openAnyStore, redactUrl, StoreError, type Store } from '../host/store/index.js';
import { resolveConfig } from './defaults.js';
import { CliError, EXIT } from './output.js';

/** Default store file, relative to the working directory. */
export const DEFAULT_DB = '.parley/parley.db';
/** Environment variable naming the store when `--store` is not given. */
export const STORE_ENV = 'PARLEY_STORE';
/** `FULL` or `NORMAL` (the default): the SQLite store's `synchronous` level (docs/store.md "Durability"). */
export const STORE_SYNC_ENV = 'PARLEY_STORE_SYNC';

/** citty definition of `--store` (and its older spelling `--db`, a SQLite path). */
export const storeArgs = {
  store: {
    type: 'string',
    description: `store: a postgres://user:pw@host:port/db URL or a SQLite file path (default $${STORE_ENV}, else ${DEFAULT_DB})`,
  },
  db: { type: 'string', description: 'SQLite store file (older spelling of --store)' },
} as const;

/** citty definitions of the flags every host command takes. */
export const commonArgs = {
  config: {
    type: 'string',
    description: 'configuration file (highest precedence over parley.json, .mcp.json, .vscode/mcp.json, ~/.config/parley/parley.json)',
  },
  ...storeArgs,
} as const;

/**
 * The store a command uses: `--store`, else `--db`, else `$PARLEY_STORE`, else `fallback`.
 * @throws CliError (exit 2) when both `--store` and `--db` are given.
 */
export function storeTarget(args: { store?: unknown; db?: unknown }, fallback: string = DEFAULT_DB): string {
  if (args.store !== undefined && args.db !== undefined)
    throw new CliError('give the store once: --store (or its older spelling --db), not both', EXIT.USAGE);
  const flag = (args.store ?? args.db) as string | undefined;
  if (flag !== undefined && flag === '') throw new CliError('--store needs a value: a postgres:// URL or a SQLite file path', EXIT.USAGE);
  return flag ?? (process.env[STORE_ENV] || fallback);
}

/**
 * Checks `rawArgs` against the known flags and returns the positionals.
 * @param flags flag name (`--x`) → whether it takes a value. `--config`, `--store`, `--db`, `--help` are always known.
 * @throws CliError (exit 2) for an unknown option or a value flag without a value.
 */
export function parseFlags(command: string, rawArgs: string[], flags: Record<string, boolean> = {}): string[] {
  const known: Record<string, boolean> = { '--config': true, '--db': true, '--store': true, '--help': false, '-h': false, ...flags };
  const positionals: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i];
    if (a === '--') {
      positionals.push(...rawArgs.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-' || /^-\d/.test(a)) {
      positionals.push(a);
      continue;
    }
    const flag = a.split('=')[0];
    const base = flag.startsWith('--no-') ? '--' + flag.slice(5) : flag;
    if (!(flag in known) && !(base in known && known[base] === false))
      throw new CliError(`${command}: unknown option ${flag} (see parley ${command} --help)`);
    if (known[flag] && !a.includes('=')) {
      if (i + 1 >= rawArgs.length) throw new CliError(`${command}: ${flag} needs a value`);
      i++;
    }
  }
  return positionals;
}

/**
 * Why each invalid server (one with configuration errors) is left out: server name → the first error, as
 * `pointer: message`.
 */
export function invalidReasons(config: HostConfig, issues: readonly ConfigIssue[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of config.invalidServers ?? []) {
    const i = issues.find((x) => x.severity === 'error' && x.server === name);
    out[name] = i ? `${i.path ? `${i.path}: ` : ''}${i.message}` : 'configuration errors';
  }
  return out;
}

/**
 * Loads configuration like `parley up` (`resolveConfig` from ./defaults.ts: the flag file or the
 * project/user files, else the embedded default); prints issues on stderr. One bad server entry does not
 * stop the others: the command runs with the valid servers, and the invalid ones are named.
 * @throws CliError (exit 2, the file's one-line error) when the `--config` file itself cannot be read
 *   (missing, not UTF-8, not JSON): an explicit file is never silently replaced by the other files.
 * @throws CliError (exit 1) when errors leave no valid server to run.
 */
export function loadConfig(flagFile: string | undefined): { config: HostConfig; issues: ConfigIssue[] } {
  const loaded = resolveConfig({ flagFile });
  if (flagFile) {
    const abs = resolve(flagFile);
    const unreadable = loaded.issues.filter((i) => i.severity === 'error' && i.file === abs && !i.server && !i.path);
    if (unreadable.length) throw new CliError(`--config ${formatConfigIssues(unreadable.slice(0, 1))}`, EXIT.USAGE);
  }
  if (loaded.issues.length) process.stderr.write(formatConfigIssues(loaded.issues) + '\n');
  if (hasErrors(loaded.issues)) {
    if (Object.keys(loaded.config.servers).length === 0)
      throw new CliError('configuration has errors and no valid server (see above; run parley config check)', EXIT.FAILED);
    const bad = loaded.config.invalidServers ?? [];
    if (bad.length) process.stderr.write(`parley: running without ${bad.length} invalid server(s): ${bad.join(', ')} (see above)\n`);
  }
  return loaded;
}

/**
 * Opens the store {@link storeTarget} names (migrating it to the latest schema).
 * @throws CliError (exit 1, one line) when it cannot be opened, e.g. PostgreSQL is unreachable.
 */
export async function openStore(args: { store?: unknown; db?: unknown }, fallback?: string): Promise<Store> {
  const target = storeTarget(args, fallback);
  const sync = process.env[STORE_SYNC_ENV]?.toUpperCase() || undefined;
  if (sync !== undefined && sync !== 'FULL' && sync !== 'NORMAL')
    throw new CliError(`$${STORE_SYNC_ENV} must be FULL or NORMAL (got ${JSON.stringify(sync)})`, EXIT.USAGE);
  try {
    return await openAnyStore(target, sync ? { synchronous: sync } : {});
  } catch (e) {
    throw storeFailure(e, `cannot open the store ${target}`);
  }
}

/**
 * A store failure as a one-line CLI error. A `StoreError` already names the database and the fix; the
 * CLI adds its own hint by the error's code (the host puts no command-line flags into its messages).
 * Anything else is prefixed with `what`.
 */
export function storeFailure(e: unknown, what: string): CliError {
  if (!StoreError.is(e)) return new CliError(`${what}: ${oneLine((e as Error)?.message ?? String(e))}`, EXIT.FAILED);
  const hint = e.code === 'STORE_VERSION' ? ' (--store <file|postgres://…> or PARLEY_STORE chooses another store)' : '';
  return new CliError(oneLine(e.message) + hint, EXIT.FAILED);
}

/**
 * Opens the OAuth credential table beside the store `target`: in the same SQLite file (key:
 * `PARLEY_SECRET`, else `credentials.key` beside the database), or in the same PostgreSQL database (key:
 * `PARLEY_SECRET`, required there), so every replica sees the same sign-ins (docs/auth.md).
 * @throws CliError (exit 1) with the key or connection problem.
 */
export async function openCredentials(target: string): Promise<CredentialStore> {
  const log = (_l: string, m: string) => void process.stderr.write(`parley: ${m}\n`);
  try {
    if (isPostgresUrl(target)) return await openPostgresCredentialStore(target, { log });
    return openSqliteCredentialStore(target, { log });
  } catch (e) {
    const where = isPostgresUrl(target) ? redactUrl(target) : target;
    throw new CliError(`cannot open the credential store in ${where}: ${oneLine((e as Error).message)}`, EXIT.FAILED);
  }
}

/**
 * The folder for files that belong beside the store (the console's 0600 URL file): the SQLite file's
 * folder, or `fallbackDir` for a PostgreSQL store. Created if missing.
 */
export function stateDir(target: string, fallbackDir: string): string {
  const dir = isPostgresUrl(target) ? resolve(fallbackDir) : dirname(resolve(target));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** `text` on one line (driver messages may hold newlines). */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** Scope of CLI runs: rows outlive the process (user scope), so presets and roots persist between commands. */
export const CLI_SCOPE = { tenant: 'default', user: 'default' } as const;

export interface HostContext {
  host: Host;
  store: Store;
  /** Servers left out for configuration errors: name → why ({@link invalidReasons}). */
  invalid: Record<string, string>;
  /** Stops the servers and closes the store (bounded by the host's stop timeouts). */
  close(): Promise<void>;
}

/**
 * Stop bounds of one-shot commands, ms: their servers have done their work when the command closes, so a
 * server that does not exit on stdin EOF (or runs behind a launcher such as npx) is sent SIGTERM after
 * 250 ms instead of the long-running host's 2 s; the command exits at once instead of waiting.
 */
export const ONE_SHOT_STOP = { graceMs: 250, killAfterMs: 1_000 };
/**
 * One-shot commands restart nothing: the process ends with the command, so a server that crashed or
 * failed to start is reported as such, never as "restarting in 500 ms".
 */
export const ONE_SHOT_RESTART = { maxAttempts: 0 };

/** Loads configuration, opens the store and builds a host with `presenter`. */
export async function openHost(
  args: { config?: string; db?: string; store?: string },
  presenter: Presenter,
  scope: { tenant: string; user: string } = CLI_SCOPE,
): Promise<HostContext> {
  const { config, issues } = loadConfig(args.config);
  const invalid = invalidReasons(config, issues);
  const store = await openStore(args);
  const credentials = await openCredentials(storeTarget(args));
  const host = createHost(config, {
    presenter,
    store,
    credentials,
    scope: { ...scope },
    stop: ONE_SHOT_STOP,
    restart: ONE_SHOT_RESTART,
    log: (level, msg) => level === 'error' && process.stderr.write(`parley: ${msg}\n`),
  });
  return {
    host,
    store,
    invalid,
    async close() {
      try {
        await host.close();
      } finally {
        await store.close();
        await credentials.close();
      }
    },
  };
}

/** Prints `value` as pretty JSON on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
