/**
 * What every host command shares: the `--config` / `--db` flags, strict flag checking (unknown
 * option → exit 2), configuration loading exactly like `parley up` (flag file, project files, user
 * file, embedded default), opening the SQLite store and building the host with a presenter.
 * @module
 */
import { createHost, formatConfigIssues, hasErrors, openSqliteStore } from '../host/index.js';
import { openSqliteCredentialStore, type CredentialStore } from '../host/auth/index.js';
import type { ConfigIssue, Host, HostConfig, Presenter, SqliteStore } from '../host/index.js';
import { resolveConfig } from './defaults.js';
import { CliError, EXIT } from './output.js';

/** Default store file, relative to the working directory. */
export const DEFAULT_DB = '.parley/parley.db';

/** citty definitions of the flags every host command takes. */
export const commonArgs = {
  config: { type: 'string', description: 'configuration file (highest precedence over parley.json, .mcp.json, .vscode/mcp.json, ~/.config/parley/parley.json)' },
  db: { type: 'string', description: `SQLite store file (default ${DEFAULT_DB})` },
} as const;

/**
 * Checks `rawArgs` against the known flags and returns the positionals.
 * @param flags flag name (`--x`) → whether it takes a value. `--config`, `--db`, `--help` are always known.
 * @throws CliError (exit 2) for an unknown option or a value flag without a value.
 */
export function parseFlags(command: string, rawArgs: string[], flags: Record<string, boolean> = {}): string[] {
  const known: Record<string, boolean> = { '--config': true, '--db': true, '--help': false, '-h': false, ...flags };
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
    if (!(flag in known) && !(base in known && known[base] === false)) throw new CliError(`${command}: unknown option ${flag} (see parley ${command} --help)`);
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
 * @throws CliError (exit 1) when errors leave no valid server to run.
 */
export function loadConfig(flagFile: string | undefined): { config: HostConfig; issues: ConfigIssue[] } {
  const loaded = resolveConfig({ flagFile });
  if (loaded.issues.length) process.stderr.write(formatConfigIssues(loaded.issues) + '\n');
  if (hasErrors(loaded.issues)) {
    if (Object.keys(loaded.config.servers).length === 0) throw new CliError('configuration has errors and no valid server (see above; run parley config check)', EXIT.FAILED);
    const bad = loaded.config.invalidServers ?? [];
    if (bad.length) process.stderr.write(`parley: running without ${bad.length} invalid server(s): ${bad.join(', ')} (see above)\n`);
  }
  return loaded;
}

/** Opens the store at `--db` (default {@link DEFAULT_DB}). @throws CliError (exit 1) when it cannot be opened. */
export function openStore(db: string | undefined): SqliteStore {
  try {
    return openSqliteStore(db || DEFAULT_DB);
  } catch (e) {
    throw new CliError(`cannot open the store ${db || DEFAULT_DB}: ${(e as Error).message}`, EXIT.FAILED);
  }
}

/**
 * Opens the OAuth credential table beside the store at `--db` (key: `PARLEY_SECRET`, else
 * `credentials.key` beside the database; docs/auth.md). @throws CliError (exit 1) with the key problem.
 */
export function openCredentials(db: string | undefined): CredentialStore {
  try {
    return openSqliteCredentialStore(db || DEFAULT_DB, { log: (_l, m) => process.stderr.write(`parley: ${m}\n`) });
  } catch (e) {
    throw new CliError(`cannot open the credential store beside ${db || DEFAULT_DB}: ${(e as Error).message}`, EXIT.FAILED);
  }
}

/** Scope of CLI runs: rows outlive the process (user scope), so presets and roots persist between commands. */
export const CLI_SCOPE = { tenant: 'default', user: 'default' } as const;

export interface HostContext {
  host: Host;
  store: SqliteStore;
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

/** Loads configuration, opens the store and builds a host with `presenter`. */
export function openHost(args: { config?: string; db?: string }, presenter: Presenter): HostContext {
  const { config, issues } = loadConfig(args.config);
  const invalid = invalidReasons(config, issues);
  const store = openStore(args.db);
  const credentials = openCredentials(args.db);
  const host = createHost(config, { presenter, store, credentials, scope: { ...CLI_SCOPE }, stop: ONE_SHOT_STOP, log: (level, msg) => level === 'error' && process.stderr.write(`parley: ${msg}\n`) });
  return {
    host,
    store,
    invalid,
    async close() {
      try {
        await host.close();
      } finally {
        store.close();
        await credentials.close();
      }
    },
  };
}

/** Prints `value` as pretty JSON on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
