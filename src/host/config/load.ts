/**
 * Finding, reading and merging configuration files.
 *
 * Precedence, highest first: the `--config <file>` flag; the project files in `cwd` (`parley.json`,
 * then `.mcp.json`, then `.vscode/mcp.json`, then the `"mcp"` key of `.vscode/settings.json`); the user file (`$XDG_CONFIG_HOME/parley/parley.json`,
 * default `~/.config/parley/parley.json`); the caller's embedded default. Missing optional files are
 * skipped; a missing `--config` file is an error.
 *
 * Merge: `servers` per name (the higher file replaces the whole entry, also when that entry is invalid
 * or `disabled`); `routes` and `roots` concatenate, higher files first; `policy`, `profile`,
 * `presets` (per preset name) and `inputs` (per id) merge per key, higher wins; `policy` falls back to
 * {@link DEFAULT_POLICY}.
 * @module
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { HostConfig, ServerDef } from './types.js';
import type { ConfigIssue } from './issues.js';
import { pointer } from './issues.js';
import type { ConfigLayer, ConfigFormat } from './document.js';
import { readDocument } from './document.js';
import { parseConfigText, valueSource } from './source.js';
import type { ConfigSource } from './source.js';
import { DEFAULT_POLICY } from './policy.js';

export interface LoadContext {
  /** The project directory (`${workspaceFolder}`), absolute. */
  cwd: string;
  /** Home directory, absolute (`~`, `${userHome}`). */
  home: string;
  /** Environment used for `${NAME}` expansion (not for the child; see `buildChildEnv`). */
  env: Readonly<Record<string, string | undefined>>;
}

export interface LoadHostConfigOptions extends LoadContext {
  /** `--config <file>`; relative to `cwd`; `~` allowed. */
  flagFile?: string;
  /** Lowest-precedence configuration: an object in any of the three formats, or its JSON/JSONC text. */
  embedded?: unknown;
}

export interface LoadedConfigFile {
  /** `undefined` when the file could not be read or parsed. */
  layer?: ConfigLayer;
  format?: ConfigFormat;
  issues: ConfigIssue[];
}

/** Reads one file. Never throws: unreadable files and bad JSON come back as issues with line:column. */
export function loadConfigFile(path: string, ctx: LoadContext): LoadedConfigFile {
  return loadFile(absPath(path, ctx), ctx, false) ?? { issues: [] };
}

/** Largest configuration file parley reads, bytes (4 MiB); a larger one is a `too-large` error. */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** Reads at most `max` bytes of `file`; `undefined` when it holds more. Throws like `fs.readFileSync`. */
function readBounded(file: string, max: number): Buffer | undefined {
  const fd = openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) return Buffer.concat(chunks, total);
      if ((total += n) > max) return undefined;
      chunks.push(chunk.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}

/** `optional`: a missing file (ENOENT/ENOTDIR) yields `undefined` instead of an issue. */
function loadFile(file: string, ctx: LoadContext, optional: boolean): LoadedConfigFile | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = readBounded(file, MAX_CONFIG_BYTES);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? String(e);
    if (optional && (why === 'ENOENT' || why === 'ENOTDIR')) return undefined;
    return {
      issues: [
        {
          code: 'read-failed',
          path: '',
          severity: 'error',
          message: `cannot read configuration file (${why})`,
          fix: 'check the path and permissions',
          file,
        },
      ],
    };
  }
  if (!bytes) {
    const message = `the file is larger than ${MAX_CONFIG_BYTES} bytes (4 MiB), the most parley reads`;
    return { issues: [{ code: 'too-large', path: '', severity: 'error', message, fix: 'split it, or move data out of it', file }] };
  }
  const encoding = utf16(bytes);
  if (encoding) {
    return {
      issues: [
        {
          code: 'encoding',
          path: '',
          severity: 'error',
          message: `the file is ${encoding}; parley reads UTF-8`,
          fix: 'save it as UTF-8 (VS Code: "Save with Encoding" → UTF-8; PowerShell: Set-Content -Encoding utf8)',
          file,
        },
      ],
    };
  }
  const { source, issues } = parseConfigText(file, bytes.toString('utf8'));
  if (issues.length) return { issues };
  return readSource(source, ctx);
}

/** Reads an in-memory configuration (the embedded default): an object, or JSON/JSONC text. */
export function loadConfigValue(value: unknown, ctx: LoadContext, file = '<embedded>'): LoadedConfigFile {
  if (typeof value === 'string') {
    const { source, issues } = parseConfigText(file, value);
    return issues.length ? { issues } : readSource(source, ctx);
  }
  let copy: unknown;
  try {
    copy = structuredClone(value); // the result must not share objects with the caller's default
  } catch {
    return {
      issues: [
        {
          code: 'type',
          path: '',
          severity: 'error',
          message: 'embedded configuration is not plain JSON data',
          fix: 'pass an object of JSON values, or JSON text',
          file,
        },
      ],
    };
  }
  return readSource(valueSource(file, copy), ctx);
}

/**
 * `'UTF-16LE'` / `'UTF-16BE'` when `bytes` look like UTF-16 (a byte-order mark, or a NUL in every other byte
 * of the first characters, as Windows tools write JSON), else `undefined`. Looks at 64 bytes at most.
 */
function utf16(bytes: Buffer): 'UTF-16LE' | 'UTF-16BE' | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'UTF-16LE';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'UTF-16BE';
  const n = Math.min(bytes.length, 64) & ~1;
  if (n < 4) return undefined;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZero++;
    if (bytes[i + 1] === 0) oddZero++;
  }
  if (oddZero === n / 2 && evenZero === 0) return 'UTF-16LE';
  if (evenZero === n / 2 && oddZero === 0) return 'UTF-16BE';
  return undefined;
}

/**
 * `${workspaceFolder}` of a file: VS Code's rule, the folder that holds `.vscode` for a file inside
 * `.vscode/` (wherever that is), else the project directory.
 */
function workspaceFolderOf(file: string, cwd: string): string {
  const dir = dirname(file);
  return basename(dir) === '.vscode' ? dirname(dir) : cwd;
}

function readSource(source: ConfigSource, ctx: LoadContext): LoadedConfigFile {
  const r = {
    source,
    interp: {
      env: ctx.env,
      home: ctx.home,
      workspaceFolder: source.file.startsWith('<') ? ctx.cwd : workspaceFolderOf(source.file, ctx.cwd),
    },
    issues: [] as ConfigIssue[],
    readText: (p: string) => {
      const bytes = readBounded(p, MAX_CONFIG_BYTES);
      if (!bytes) throw Object.assign(new Error(`larger than ${MAX_CONFIG_BYTES} bytes`), { code: 'EFBIG' });
      return bytes.toString('utf8');
    },
  };
  const layer = readDocument(r);
  return { layer, format: layer.format, issues: r.issues };
}

/** The files searched, highest precedence first (flag file excluded). */
export function searchPaths(ctx: LoadContext): { project: string[]; user: string } {
  const xdg = ctx.env.XDG_CONFIG_HOME;
  return {
    project: [
      join(ctx.cwd, 'parley.json'),
      join(ctx.cwd, '.mcp.json'),
      join(ctx.cwd, '.vscode', 'mcp.json'),
      join(ctx.cwd, '.vscode', 'settings.json'),
    ],
    user: join(xdg && isAbsolute(xdg) ? xdg : join(ctx.home, '.config'), 'parley', 'parley.json'),
  };
}

/**
 * Finds, reads and merges every configuration layer. Never throws; check `issues` (errors name file,
 * server, JSON pointer and line:column). Servers with errors are left out of `config.servers` and
 * listed in `config.invalidServers`.
 */
export function loadHostConfig(opts: LoadHostConfigOptions): { config: HostConfig; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const layers: ConfigLayer[] = [];
  const seen = new Set<string>();
  const take = (res: LoadedConfigFile) => {
    issues.push(...res.issues);
    if (res.layer) layers.push(res.layer);
  };
  if (opts.embedded !== undefined) take(loadConfigValue(opts.embedded, opts));
  const { project, user } = searchPaths(opts);
  const flag = opts.flagFile !== undefined ? absPath(opts.flagFile, opts) : undefined;
  for (const file of [user, ...[...project].reverse()]) {
    if (file === flag || seen.has(file)) continue;
    seen.add(file);
    const res = loadFile(file, opts, true);
    if (res) take(res);
  }
  if (flag !== undefined) take(loadConfigFile(flag, opts));
  const config = mergeLayers(layers);
  // Where each merged route came from (mergeLayers puts higher layers first), so an issue names its file.
  const routeOrigins = [...layers].reverse().flatMap((l) => l.routes.map((_, index) => ({ file: l.file, index })));
  issues.push(...checkReferences(config, routeOrigins));
  return { config, issues };
}

/** Merges layers given lowest precedence first. */
export function mergeLayers(layers: readonly ConfigLayer[]): HostConfig {
  const config: HostConfig = {
    servers: {},
    routes: [],
    policy: { ...DEFAULT_POLICY, urlSchemes: [...DEFAULT_POLICY.urlSchemes] },
    presets: {},
    profile: {},
    inputs: {},
    roots: [],
    gateway: { users: {} },
    sources: [],
  };
  const invalid = new Set<string>();
  for (const l of layers) {
    config.sources.push(l.file);
    for (const [name, def] of Object.entries(l.servers)) {
      config.servers[name] = def;
      invalid.delete(name);
    }
    for (const name of l.invalid) {
      delete config.servers[name];
      invalid.add(name);
    }
    for (const name of l.disabled) {
      delete config.servers[name];
      invalid.delete(name);
    }
    Object.assign(config.policy, l.policy);
    Object.assign(config.profile, l.profile);
    Object.assign(config.presets, l.presets);
    Object.assign(config.inputs, l.inputs);
    Object.assign(config.gateway!.users, l.gateway.users);
    for (const k of ['maxSessionsPerUser', 'maxPendingPerUser', 'sessionIdleMs', 'keepAliveMs', 'maxConnections'] as const)
      if (l.gateway[k] !== undefined) config.gateway![k] = l.gateway[k];
    if (l.gateway.showServerStderr !== undefined) config.gateway!.showServerStderr = l.gateway.showServerStderr;
    if (l.gateway.publicUrl !== undefined) config.gateway!.publicUrl = l.gateway.publicUrl;
    if (l.gateway.unverifiedSignIn !== undefined) config.gateway!.unverifiedSignIn = l.gateway.unverifiedSignIn;
    if (l.gateway.oauth) config.gateway!.oauth = l.gateway.oauth;
    if (Object.keys(l.rootPolicy).length) config.rootPolicy = { ...config.rootPolicy, ...l.rootPolicy };
    for (const [t, def] of Object.entries(l.gateway.tenants ?? {})) {
      const into = ((config.gateway!.tenants ??= {})[t] ??= { users: {} });
      Object.assign(into.users, def.users);
      if (def.servers) into.servers = def.servers;
      if (def.admins) into.admins = def.admins;
    }
  }
  const rootUris = new Set<string>();
  for (const l of [...layers].reverse()) {
    config.routes.push(...l.routes);
    for (const root of l.roots) {
      if (rootUris.has(root.uri)) continue;
      rootUris.add(root.uri);
      config.roots.push(root);
    }
  }
  if (invalid.size) config.invalidServers = [...invalid];
  return config;
}

/** Cross-file checks after merging: `${input:id}` ids must be defined; routes should name known servers. */
function checkReferences(config: HostConfig, routeOrigins: Array<{ file: string; index: number }> = []): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const [name, def] of Object.entries(config.servers)) {
    const exposed = def.type === 'stdio' ? [def.command, ...def.args, def.cwd ?? ''] : [def.url];
    const secret = (def.inputRefs ?? []).filter(
      (id) => Object.hasOwn(config.inputs, id) && config.inputs[id].password && exposed.some((s) => s.includes(`\${input:${id}}`)),
    );
    if (secret.length) {
      out.push({
        ...at(def),
        code: 'secret-exposed',
        severity: 'warning',
        message: `password input${secret.length > 1 ? 's' : ''} ${secret.map((m) => `"${m}"`).join(', ')} used in ${def.type === 'stdio' ? 'command, args or cwd' : 'url'}, which show up in process listings and logs`,
        fix: def.type === 'stdio' ? 'pass the secret through "env"' : 'pass the secret in "headers"',
      });
    }
    const missing = (def.inputRefs ?? []).filter((id) => !Object.hasOwn(config.inputs, id));
    if (!missing.length) continue;
    out.push({
      ...at(def),
      code: 'unknown-input',
      severity: 'error',
      message: `refers to undefined input${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')}`,
      fix: 'define it under "inputs" ({"id", "type": "promptString", "description"})',
    });
    delete config.servers[name];
    (config.invalidServers ??= []).push(name);
  }
  const known = new Set([...Object.keys(config.servers), ...(config.invalidServers ?? [])]);
  config.routes.forEach((route, i) => {
    const origin = routeOrigins[i];
    route.servers.forEach((s, k) => {
      if (!known.has(s))
        out.push({
          code: 'unknown-server',
          path: pointer(['routes', origin?.index ?? i, 'servers', k]),
          ...(origin && origin.file !== '<embedded>' ? { file: origin.file } : {}),
          severity: 'warning',
          message: `route "${route.match}" names unknown server "${s}"`,
          fix: 'define the server or remove it from the route',
        });
    });
  });
  return out;
}

/** Location fields of an issue about a whole server entry. */
function at(def: ServerDef): Pick<ConfigIssue, 'path' | 'file' | 'line' | 'column' | 'server'> {
  const o = def.origin;
  return { path: o.pointer, file: o.file, ...(o.line !== undefined ? { line: o.line, column: o.column } : {}), server: def.name };
}

function absPath(p: string, ctx: LoadContext): string {
  const t = p === '~' || p.startsWith('~/') ? ctx.home + p.slice(1) : p;
  return isAbsolute(t) ? t : resolve(ctx.cwd, t);
}
