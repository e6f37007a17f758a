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
 * Loads configuration like `parley up` (`resolveConfig` from ./defaults.ts: the flag file or the
 * project/user files, else the embedded default); prints issues on stderr.
 * @throws CliError (exit 1) when there are errors.
 */
export function loadConfig(flagFile: string | undefined): { config: HostConfig; issues: ConfigIssue[] } {
  const loaded = resolveConfig({ flagFile });
  if (loaded.issues.length) process.stderr.write(formatConfigIssues(loaded.issues) + '\n');
  if (hasErrors(loaded.issues)) throw new CliError('configuration has errors (see above; run parley config check)', EXIT.FAILED);
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
  /** Stops the servers and closes the store (bounded by the host's stop timeouts). */
  close(): Promise<void>;
}

/** Loads configuration, opens the store and builds a host with `presenter`. */
export function openHost(args: { config?: string; db?: string }, presenter: Presenter): HostContext {
  const { config } = loadConfig(args.config);
  const store = openStore(args.db);
  const credentials = openCredentials(args.db);
  const host = createHost(config, { presenter, store, credentials, scope: { ...CLI_SCOPE }, log: (level, msg) => level === 'error' && process.stderr.write(`parley: ${msg}\n`) });
  return {
    host,
    store,
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
