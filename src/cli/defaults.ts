/**
 * The embedded default configuration and the one way every command resolves configuration:
 * `--config <file>` (with project and user files beneath it), else the project or user files, else
 * the embedded default — the bundled `sales` and `charts` servers with their data under `.parley/`.
 * @module
 */
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadHostConfig, type ConfigIssue, type HostConfig } from '../host/index.js';

/** The package's root folder (where `dist/` lives), from this file's location. */
export function packageDir(): string {
  // this file is dist/src/cli/defaults.js (built) or src/cli/defaults.ts (tsx): three or two levels up
  const here = fileURLToPath(new URL('.', import.meta.url));
  return here.includes('/dist/') ? fileURLToPath(new URL('../../../', import.meta.url)) : fileURLToPath(new URL('../../', import.meta.url));
}

/**
 * The embedded default, in the `mcpServers` shape: `sales` (a deterministic SQLite sales database
 * in `.parley/sales.db`) and `charts` (vega-lite charts; the host hands it `sales://results/{id}` as
 * query-result roots, `src/host/roots/query-results.ts`). Both run from the built package with the
 * current Node binary.
 */
export function embeddedDefault(dir = packageDir()): Record<string, unknown> {
  const bin = (name: string) => `${dir.replace(/\/$/, '')}/dist/servers/${name}/main.js`;
  return {
    mcpServers: {
      sales: { command: process.execPath, args: [bin('sales'), '--db', '.parley/sales.db'] },
      charts: { command: process.execPath, args: [bin('charts')] },
    },
  };
}

export interface ResolvedConfig {
  config: HostConfig;
  issues: ConfigIssue[];
  /** `'flag' | 'files' | 'embedded'`: where the configuration came from. */
  origin: 'flag' | 'files' | 'embedded';
}

/** Resolves configuration for any command (see the module doc for the order). Never throws. */
export function resolveConfig(opts: { flagFile?: string; cwd?: string; env?: NodeJS.ProcessEnv; home?: string } = {}): ResolvedConfig {
  const ctx = {
    flagFile: opts.flagFile,
    cwd: opts.cwd ?? process.cwd(),
    home: opts.home ?? homedir(),
    env: (opts.env ?? process.env) as Record<string, string | undefined>,
  };
  const files = loadHostConfig(ctx);
  if (opts.flagFile || files.config.sources.length > 0 || files.issues.some((i) => i.severity === 'error')) {
    return { ...files, origin: opts.flagFile ? 'flag' : 'files' };
  }
  return { ...loadHostConfig({ ...ctx, embedded: embeddedDefault() }), origin: 'embedded' };
}
