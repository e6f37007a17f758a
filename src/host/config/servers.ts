/**
 * Reads one server entry (the same shape in `mcpServers`, VS Code `servers` and parley.json):
 *
 * - stdio: `{type?: 'stdio', command, args?: string[], env?: {K: V}, cwd?, envFile?, timeouts?, disabled?, lazy?}`
 * - remote: `{type?: 'http' | 'streamable-http' | 'streamableHttp' | 'sse', url, headers?: {K: V}, oauth?, timeouts?, disabled?, lazy?}`
 *   with `oauth?: {clientId?, clientSecret?, clientMetadataUrl?, scope?}` (docs/auth.md)
 *
 * `lazy: true` starts the server on first use (a tool call, a resource read, a route that needs it);
 * `false` starts it with `parley up`; absent: see `isLazy` in `types.ts`.
 *
 * Without `type`, `command` means stdio and `url` means Streamable HTTP (`type: 'http'`, vector C1):
 * a `url` entry is never dropped. Every string is expanded (see `interpolate.ts`); `~` is expanded in
 * `command`, `args`, `cwd`, `envFile` and `env` values. Relative `cwd` and `envFile` resolve against the
 * project directory. `envFile` is read now (dotenv). Any error makes the entry invalid (`undefined`).
 * @module
 */
import { isAbsolute, resolve } from 'node:path';
import type { HttpServerDef, ServerDef, ServerTimeouts, StdioServerDef } from './types.js';
import type { Reader } from './reader.js';
import { clampMs, isObject, report, str, strMap, unknownKeys, wrongType } from './reader.js';
import { parseDotenv } from './env.js';
import type { Segments } from './source.js';
import { pointer } from './issues.js';

const STDIO_KEYS = ['type', 'command', 'args', 'env', 'cwd', 'envFile', 'timeouts', 'disabled', 'lazy'];
const HTTP_KEYS = ['type', 'url', 'headers', 'oauth', 'timeouts', 'disabled', 'lazy'];
const OAUTH_KEYS = ['clientId', 'clientSecret', 'clientMetadataUrl', 'scope'] as const;
const TYPES: Record<string, 'stdio' | 'http' | 'sse'> = {
  stdio: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamableHttp: 'http',
  sse: 'sse',
};
const TIMEOUT_KEYS: Array<keyof ServerTimeouts> = ['startupMs', 'toolCallMs', 'maxTotalMs'];

export type ServerRead = { kind: 'ok'; def: ServerDef } | { kind: 'invalid' } | { kind: 'disabled' };

export function readServer(r: Reader, name: string, raw: unknown, segs: Segments): ServerRead {
  const before = r.issues.filter((i) => i.severity === 'error').length;
  const failed = (): boolean => r.issues.filter((i) => i.severity === 'error').length > before;
  if (!isObject(raw)) {
    wrongType(r, segs, 'a server object', raw, name);
    return { kind: 'invalid' };
  }
  if (raw.disabled !== undefined && typeof raw.disabled !== 'boolean') wrongType(r, [...segs, 'disabled'], 'a boolean', raw.disabled, name);
  if (raw.disabled === true) return { kind: 'disabled' };
  if (raw.lazy !== undefined && typeof raw.lazy !== 'boolean')
    wrongType(r, [...segs, 'lazy'], 'a boolean (true: start on first use)', raw.lazy, name);
  const type = kindOf(r, name, raw, segs);
  if (!type) return { kind: 'invalid' };
  const pos = r.source.locate(segs, { key: true });
  const origin = { file: r.source.file, pointer: pointer(segs), ...(pos ?? {}) };
  const refs: string[] = [];
  const timeouts = readTimeouts(r, raw.timeouts, [...segs, 'timeouts'], name);
  let def: ServerDef | undefined;
  if (type === 'stdio') {
    unknownKeys(r, raw, segs, STDIO_KEYS, name);
    def = readStdio(r, name, raw, segs, refs, origin);
  } else {
    unknownKeys(r, raw, segs, HTTP_KEYS, name);
    def = readHttp(r, name, type, raw, segs, refs, origin);
  }
  if (!def || failed()) return { kind: 'invalid' };
  if (timeouts) def.timeouts = timeouts;
  if (typeof raw.lazy === 'boolean') def.lazy = raw.lazy;
  if (refs.length) def.inputRefs = refs;
  return { kind: 'ok', def };
}

function kindOf(r: Reader, name: string, raw: Record<string, unknown>, segs: Segments): 'stdio' | 'http' | 'sse' | undefined {
  if (raw.type !== undefined) {
    const t = typeof raw.type === 'string' && Object.hasOwn(TYPES, raw.type) ? TYPES[raw.type] : undefined;
    if (!t) {
      report(r, 'invalid-value', [...segs, 'type'], `unknown server type ${JSON.stringify(raw.type)}`, {
        server: name,
        fix: 'use "stdio", "http" (Streamable HTTP, falls back to SSE) or "sse"',
      });
      return undefined;
    }
    const need = t === 'stdio' ? 'command' : 'url';
    const other = t === 'stdio' ? 'url' : 'command';
    if (raw[need] === undefined) {
      report(r, 'required', segs, `a "${raw.type}" server needs "${need}"`, { server: name, fix: `add "${need}"` });
      return undefined;
    }
    if (raw[other] !== undefined) {
      report(r, 'conflict', [...segs, other], `"${other}" does not belong to a "${raw.type}" server`, {
        server: name,
        fix: `remove "${other}" or change "type"`,
      });
      return undefined;
    }
    return t;
  }
  if (raw.command !== undefined && raw.url !== undefined) {
    report(r, 'conflict', segs, 'both "command" and "url" are set', {
      server: name,
      fix: 'keep one, or set "type" to say which transport is meant',
    });
    return undefined;
  }
  if (raw.command !== undefined) return 'stdio';
  if (raw.url !== undefined) return 'http';
  report(r, 'required', segs, 'server has neither "command" (stdio) nor "url" (HTTP)', {
    server: name,
    fix: 'add "command" and "args", or "url"',
  });
  return undefined;
}

function readStdio(
  r: Reader,
  name: string,
  raw: Record<string, unknown>,
  segs: Segments,
  refs: string[],
  origin: StdioServerDef['origin'],
): StdioServerDef | undefined {
  const command = str(r, raw.command, [...segs, 'command'], name, refs, true);
  if (command === '')
    report(r, 'invalid-value', [...segs, 'command'], '"command" is empty', { server: name, fix: 'name the program to run' });
  let args: string[] | undefined = [];
  if (raw.args !== undefined) {
    if (!Array.isArray(raw.args)) {
      wrongType(r, [...segs, 'args'], 'an array of strings', raw.args, name);
      args = undefined;
    } else {
      const out = raw.args.map((a, i) => str(r, a, [...segs, 'args', i], name, refs, true));
      args = out.every((a): a is string => a !== undefined) ? out : undefined;
    }
  }
  const env = strMap(r, raw.env, [...segs, 'env'], name, refs, true, { scalars: true });
  let cwd: string | undefined;
  if (raw.cwd !== undefined) {
    const c = str(r, raw.cwd, [...segs, 'cwd'], name, refs, true);
    if (c !== undefined) cwd = abs(r, c);
  }
  let envFile: string | undefined;
  let envFileVars: Record<string, string> | undefined;
  if (raw.envFile !== undefined) {
    const f = str(r, raw.envFile, [...segs, 'envFile'], name, refs, true);
    if (f !== undefined) {
      envFile = abs(r, f);
      envFileVars = readEnvFile(r, envFile, [...segs, 'envFile'], name);
    }
  }
  if (command === undefined || args === undefined || env === undefined) return undefined;
  return {
    name,
    type: 'stdio',
    command,
    args,
    env,
    ...(cwd !== undefined ? { cwd } : {}),
    ...(envFile !== undefined ? { envFile, envFileVars: envFileVars ?? {} } : {}),
    origin,
  };
}

function readHttp(
  r: Reader,
  name: string,
  type: 'http' | 'sse',
  raw: Record<string, unknown>,
  segs: Segments,
  refs: string[],
  origin: HttpServerDef['origin'],
): HttpServerDef | undefined {
  const url = str(r, raw.url, [...segs, 'url'], name, refs);
  if (url !== undefined && !url.includes('${input:')) checkUrl(r, url, [...segs, 'url'], name);
  const headers = strMap(r, raw.headers, [...segs, 'headers'], name, refs);
  const oauth = readOauth(r, raw.oauth, [...segs, 'oauth'], name, refs);
  if (url === undefined || headers === undefined || oauth === null) return undefined;
  return { name, type, url, headers, ...(oauth ? { oauth } : {}), origin };
}

/** `oauth` of an HTTP entry: optional strings (expanded like headers). `null` on an error, `undefined` when absent. */
function readOauth(r: Reader, v: unknown, segs: Segments, name: string, refs: string[]): HttpServerDef['oauth'] | null | undefined {
  if (v === undefined) return undefined;
  if (!isObject(v)) {
    wrongType(r, segs, 'an object {clientId?, clientSecret?, clientMetadataUrl?, scope?}', v, name);
    return null;
  }
  unknownKeys(r, v, segs, OAUTH_KEYS, name);
  const out: NonNullable<HttpServerDef['oauth']> = {};
  for (const k of OAUTH_KEYS) {
    if (v[k] === undefined) continue;
    const s = str(r, v[k], [...segs, k], name, refs);
    if (s === undefined) return null;
    out[k] = s;
  }
  if (out.clientSecret !== undefined && out.clientId === undefined) {
    report(r, 'invalid-value', [...segs, 'clientSecret'], 'clientSecret without clientId', {
      server: name,
      fix: 'add "clientId" (the pre-registered client) or remove "clientSecret"',
    });
    return null;
  }
  return out;
}

function checkUrl(r: Reader, url: string, segs: Segments, name: string): void {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) {
    report(r, 'invalid-value', segs, '"url" is not an absolute http(s) URL', {
      server: name,
      fix: 'write a URL such as https://example.com/mcp',
    });
  }
}

function readTimeouts(r: Reader, v: unknown, segs: Segments, name: string): Partial<ServerTimeouts> | undefined {
  if (v === undefined) return undefined;
  if (!isObject(v)) {
    wrongType(r, segs, 'an object', v, name);
    return undefined;
  }
  unknownKeys(r, v, segs, TIMEOUT_KEYS, name);
  const out: Partial<ServerTimeouts> = {};
  for (const k of TIMEOUT_KEYS) {
    const t = v[k];
    if (t === undefined) continue;
    if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0) wrongType(r, [...segs, k], 'a positive number of milliseconds', t, name);
    else out[k] = clampMs(r, t, [...segs, k], name);
  }
  return out;
}

function abs(r: Reader, p: string): string {
  return isAbsolute(p) ? p : resolve(r.interp.workspaceFolder, p);
}

function readEnvFile(r: Reader, file: string, segs: Segments, name: string): Record<string, string> | undefined {
  let text: string;
  try {
    text = r.readText(file);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? 'unreadable';
    report(r, 'env-file', segs, `cannot read envFile ${file} (${why})`, { server: name, fix: 'create the file or correct the path' });
    return undefined;
  }
  const d = parseDotenv(text);
  for (const p of d.problems)
    report(r, 'env-file', segs, `${file}:${p.line}: ${p.message}`, { server: name, fix: 'write KEY=VALUE lines' });
  return d.problems.length ? undefined : d.vars;
}
