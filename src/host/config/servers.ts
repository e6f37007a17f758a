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
 * project directory. `envFile` is read now (dotenv). The shape is a zod schema (./zod.ts); any error
 * makes the entry invalid.
 * @module
 */
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { editDistance, nearest } from '../../schema/near.js';
import type { ServerDef } from './types.js';
import type { Reader } from './reader.js';
import { isObject, report, typeName } from './reader.js';
import { parseDotenv } from './env.js';
import type { Segments } from './source.js';
import { pointer } from './issues.js';
import { clampMs, expect, flag, obj, parseSection, rule, text } from './zod.js';

const TYPES: Record<string, 'stdio' | 'http' | 'sse'> = {
  stdio: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamableHttp: 'http',
  sse: 'sse',
};

/** The transport an entry means: its `type`, else `command` (stdio) or `url` (http); reported when unknown, missing or contradictory. */
function kindOf(raw: Record<string, unknown>, ctx: z.core.$RefinementCtx): 'stdio' | 'http' | 'sse' | undefined {
  if (raw.type === undefined) {
    if (raw.command !== undefined && raw.url !== undefined)
      flag(ctx, {
        code: 'conflict',
        message: 'both "command" and "url" are set',
        fix: 'keep one, or set "type" to say which transport is meant',
      });
    else if (raw.command !== undefined) return 'stdio';
    else if (raw.url !== undefined) return 'http';
    else {
      const near = misspelt(raw);
      if (near)
        flag(
          ctx,
          {
            code: 'required',
            message: `server has neither "command" (stdio) nor "url" (HTTP); "${near.key}" is not a key here: did you mean "${near.meant}"?`,
            fix: `rename "${near.key}" to "${near.meant}"`,
            key: true,
          },
          [near.key],
        );
      else
        flag(ctx, {
          code: 'required',
          message: 'server has neither "command" (stdio) nor "url" (HTTP)',
          fix: 'add "command" and "args", or "url"',
        });
    }
    return undefined;
  }
  const t = typeof raw.type === 'string' && Object.hasOwn(TYPES, raw.type) ? TYPES[raw.type] : undefined;
  const [need, other] = t === 'stdio' ? ['command', 'url'] : ['url', 'command'];
  if (!t) {
    const meant = typeof raw.type === 'string' ? nearest(raw.type, Object.keys(TYPES)) : undefined;
    const fix = meant ? `use "${meant}"` : 'use "stdio", "http" (Streamable HTTP, falls back to SSE) or "sse"';
    const message = `unknown server type ${JSON.stringify(raw.type)}${meant ? `: did you mean "${meant}"?` : ''}`;
    flag(ctx, { code: 'invalid-value', message, fix }, ['type']);
  } else if (raw[need] === undefined)
    flag(ctx, { code: 'required', message: `a "${raw.type}" server needs "${need}"`, fix: `add "${need}"` });
  else if (raw[other] !== undefined) {
    const message = `"${other}" does not belong to a "${raw.type}" server`;
    flag(ctx, { code: 'conflict', message, fix: `remove "${other}" or change "type"` }, [other]);
  } else return t;
  return undefined;
}

/** Keys people write for "command" / "url" (other clients' spellings), besides near-misses by edit distance. */
const ALIASES: Record<string, 'command' | 'url'> = { cmd: 'command', program: 'command', serverurl: 'url', endpoint: 'url', uri: 'url' };

/**
 * The first key of an entry that has neither "command" nor "url" that looks meant as one of them: a
 * known alias (`cmd`, `serverUrl`, …, any case), or at most 2 edits from "command" / 1 from "url"
 * (case ignored; keys longer than 12 characters are not compared).
 */
function misspelt(raw: Record<string, unknown>): { key: string; meant: 'command' | 'url' } | undefined {
  for (const key of Object.keys(raw)) {
    const k = key.toLowerCase();
    if (k.length > 12) continue;
    if (Object.hasOwn(ALIASES, k)) return { key, meant: ALIASES[k] };
    if (editDistance(k, 'command') <= 2) return { key, meant: 'command' };
    if (editDistance(k, 'url') <= 1) return { key, meant: 'url' };
  }
  return undefined;
}

/** One server entry: stdio or remote by {@link kindOf}, or `{type: 'disabled'}` for `disabled: true` (nothing else is read). */
const SERVER = (() => {
  const t = (tilde = false) => text({ tilde });
  const ms = clampMs(z.number(expect('a positive number of milliseconds')).positive()).optional();
  const common = {
    timeouts: obj('an object', { startupMs: ms, toolCallMs: ms, maxTotalMs: ms, probeMs: ms }).optional(),
    disabled: z.boolean(expect('a boolean')).optional(),
    lazy: z.boolean(expect('a boolean (true: start on first use)')).optional(),
  };
  const strings = (tilde = false) => z.record(z.string(), t(tilde), expect('an object of strings'));
  // `"PORT": 8080` is what people write most: every environment value is a string in the end. The value
  // is not echoed: even a number can be a secret (a PIN).
  const env = z.preprocess((v, ctx) => {
    if (isObject(v))
      for (const [k, x] of Object.entries(v))
        if (typeof x === 'number' || typeof x === 'boolean') {
          const fix = `quote the value ("${k}": "…") to silence this`;
          flag(ctx, { code: 'coerced', warning: true, repair: String(x), message: `${typeName(x)} value is used as a string`, fix }, [k]);
        }
    return v;
  }, strings(true));
  const stdio = obj('a server object', {
    type: z.literal('stdio'),
    command: t(true).refine((c) => c !== '', rule('invalid-value', '"command" is empty', 'name the program to run')),
    args: z.array(t(true), expect('an array of strings')).default([]),
    env: env.default({}),
    cwd: t(true).optional(),
    envFile: t(true).optional(),
    ...common,
  });
  const httpUrl = (u: string) => u.includes('${input:') || (URL.canParse(u) && /^https?:$/.test(new URL(u).protocol));
  const remote = obj('a server object', {
    type: z.enum(['http', 'sse']),
    url: t().refine(httpUrl, rule('invalid-value', '"url" is not an absolute http(s) URL', 'write a URL such as https://example.com/mcp')),
    headers: strings().default({}),
    oauth: obj('an object {clientId?, clientSecret?, clientMetadataUrl?, scope?}', {
      clientId: t().optional(),
      clientSecret: t().optional(),
      clientMetadataUrl: t().optional(),
      scope: t().optional(),
    })
      .refine((o) => o.clientSecret === undefined || o.clientId !== undefined, {
        path: ['clientSecret'],
        ...rule('invalid-value', 'clientSecret without clientId', 'add "clientId" (the pre-registered client) or remove "clientSecret"'),
      })
      .optional(),
    ...common,
  });
  const disabled = z.object({ type: z.literal('disabled') });
  return z.preprocess(
    (raw, ctx) => {
      if (!isObject(raw)) return raw;
      if (raw.disabled === true) return { type: 'disabled' };
      const kind = kindOf(raw, ctx);
      return kind ? { ...raw, type: kind } : raw;
    },
    z.discriminatedUnion('type', [disabled, stdio, remote], expect('a server object')),
  );
})();

export type ServerRead = { kind: 'ok'; def: ServerDef } | { kind: 'invalid' } | { kind: 'disabled' };

const INPUT_REF = /\$\{input:([^}]+)\}/g;

export function readServer(r: Reader, name: string, raw: unknown, segs: Segments): ServerRead {
  const e = parseSection(r, SERVER, raw, segs, [], name);
  if (!e) return { kind: 'invalid' };
  if (e.type === 'disabled') return { kind: 'disabled' };
  const pos = r.source.locate(segs, { key: true });
  const base = {
    name,
    ...(e.timeouts ? { timeouts: e.timeouts } : {}),
    ...(e.lazy !== undefined ? { lazy: e.lazy } : {}),
    origin: { file: r.source.file, pointer: pointer(segs), ...(pos ?? {}) },
  };
  let def: ServerDef;
  let strings: string[];
  if (e.type === 'stdio') {
    def = { ...base, type: 'stdio', command: e.command, args: e.args, env: e.env, ...(e.cwd !== undefined ? { cwd: abs(r, e.cwd) } : {}) };
    strings = [e.command, ...e.args, ...Object.values(e.env), e.cwd ?? '', e.envFile ?? ''];
    if (e.envFile !== undefined) {
      def.envFile = abs(r, e.envFile);
      const vars = readEnvFile(r, def.envFile, [...segs, 'envFile'], name);
      if (!vars) return { kind: 'invalid' };
      def.envFileVars = vars;
    }
  } else {
    def = { ...base, type: e.type, url: e.url, headers: e.headers, ...(e.oauth ? { oauth: e.oauth } : {}) };
    strings = [e.url, ...Object.values(e.headers), ...Object.values(e.oauth ?? {})];
  }
  // `${input:id}` ids still in the strings: resolved at first start through the presenter.
  const refs = [...new Set(strings.flatMap((s) => [...s.matchAll(INPUT_REF)].map((m) => m[1])))];
  if (refs.length) def.inputRefs = refs;
  return { kind: 'ok', def };
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
