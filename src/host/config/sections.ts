/**
 * The non-server sections as zod schemas (./zod.ts): `inputs` (all formats) and parley.json's `routes`,
 * `roots`, `presets`, `profile` and `rootPolicy`. Bad items are reported and left out; the rest of the
 * section still loads.
 * @module
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { HostConfig, InputVariableDef, RootPolicyDef, RouteDef } from './types.js';
import { normalizeRootUri } from '../../schema/uri.js';
import type { Reader } from './reader.js';
import { report } from './reader.js';
import type { Segments } from './source.js';
import { expect, flag, interpolation, list, named, obj, parseSection, rule, text } from './zod.js';

const str = (what = 'a string') => z.string(expect(what));
const bool = z.boolean(expect('a boolean'));

const INPUTS = z.array(
  obj('an input object', {
    id: str('a non-empty string')
      .min(1)
      .refine((id) => id !== '__proto__', rule('invalid-value', '"__proto__" cannot be used as an input id', 'choose another name')),
    type: z.enum(
      ['promptString', 'pickString'],
      rule('invalid-value', 'input type must be "promptString" or "pickString"', 'other VS Code input types (command) are not supported'),
    ),
    description: str().optional(),
    password: bool.optional(),
    default: str().optional(),
    options: z.array(str(), expect('a non-empty array of strings')).min(1).optional(),
  })
    .superRefine((i, ctx) => {
      if (i.type === 'pickString' && !i.options) flag(ctx, { code: 'type', what: 'a non-empty array of strings' }, ['options']);
    })
    .optional(),
  expect('an array of inputs'),
);

/** VS Code `inputs`: an array of `${input:id}` definitions; a later id wins, with a warning. */
export function readInputs(r: Reader, v: unknown, segs: Segments): Record<string, InputVariableDef> {
  const out: Record<string, InputVariableDef> = {};
  (parseSection(r, INPUTS, v, segs, ['*']) ?? []).forEach((def, i) => {
    if (!def) return;
    if (Object.hasOwn(out, def.id))
      report(r, 'duplicate', [...segs, i, 'id'], `input "${def.id}" is defined twice; this one wins`, { severity: 'warning' });
    out[def.id] = def;
  });
  return out;
}

const ROUTES = list(
  obj('a route object {match, servers}', {
    match: str('a non-empty string').min(1),
    regex: bool.optional(),
    servers: z.array(str('a server name'), expect('an array of server names')),
  })
    .superRefine((route, ctx) => {
      if (!route.regex) return;
      try {
        new RegExp(route.match);
      } catch (e) {
        const message = `invalid regular expression: ${(e as Error).message}`;
        flag(ctx, { code: 'invalid-regex', message, fix: 'fix the pattern, or drop "regex" to use a glob' }, ['match']);
      }
    })
    .transform(({ match, regex, servers }): RouteDef => ({ match, ...(regex ? { regex: true } : {}), servers })),
  'an array of routes',
);

export function readRoutes(r: Reader, v: unknown, segs: Segments): RouteDef[] {
  return (v === undefined ? undefined : parseSection(r, ROUTES, v, segs, ['*'])) ?? [];
}

/**
 * Roots: `{uri, name?}` or a string. A `file:` URI is normalised (`..` segments collapse); a path
 * (absolute, `~`, `${workspaceFolder}`, or relative to the project directory) becomes a `file://` URI.
 * A URI of another scheme (`postgres://sales-db`, `chart://monthly`) is a virtual root, kept in
 * canonical form: it is used host-side for routing and presets and never sent to a server (MCP
 * `Root.uri` MUST be a `file://` URI, 2025-11-25 client/roots §Root). A malformed URI is an error.
 */
const ROOTS = (() => {
  const uri = text({
    tilde: true,
    noInputs: {
      code: 'bad-variable',
      message: '${input:…} is not supported in roots',
      fix: 'use an environment variable or a literal path',
    },
  }).transform((s, ctx) => {
    const u = rootUri(s, interpolation().workspaceFolder);
    if (u === undefined)
      flag(ctx, {
        code: 'invalid-value',
        message: 'a root must be a file:// URI with an empty host, a path, or a well-formed URI of another scheme (a virtual root)',
        fix: 'write file:///abs/path, /abs/path, a path relative to the project, ${workspaceFolder}, or e.g. postgres://sales-db',
      });
    return u ?? s;
  });
  const root = z.union(
    [uri.transform((u) => ({ uri: u })), obj('a root {uri, name?}', { uri, name: str().optional() })],
    expect('a root {uri, name?} or a path/URI string'),
  );
  return list(root, 'an array of roots');
})();

export function readRoots(r: Reader, v: unknown, segs: Segments): HostConfig['roots'] {
  return (v === undefined ? undefined : parseSection(r, ROOTS, v, segs, ['*'])) ?? [];
}

/** The root URI for a root string: a `file:` URI (normalised) for a path or `file:` URI, a canonical virtual URI for another scheme, `undefined` when malformed (or a `file:` URI with a host). */
function rootUri(s: string, base: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(s)) {
    if (!/^file:/i.test(s)) {
      try {
        return normalizeRootUri(s);
      } catch {
        return undefined;
      }
    }
    if (!URL.canParse(s)) return undefined;
    const u = new URL(s);
    return u.host === '' || u.host === 'localhost' ? u.href : undefined;
  }
  return pathToFileURL(resolve(base, s)).href;
}

/** parley.json `presets`: name → `{roots?, answers?}`; a bad root or a bad `answers` is left out, the preset kept. */
const PRESETS = named(
  obj('a preset object {roots?, answers?}', {
    roots: ROOTS.optional(),
    answers: z
      .record(
        z.string(),
        z.record(z.string(), z.unknown(), expect('an object of field values')),
        expect('an object of form key → object of field values'),
      )
      .optional(),
  }),
  'an object of preset name → preset',
  'a preset name',
);

/** parley.json `presets`: name → `{roots?, answers?}`; a bad root or a bad `answers` is left out, the preset kept. */
export function readPresets(r: Reader, v: unknown, segs: Segments): HostConfig['presets'] {
  return (v === undefined ? undefined : parseSection(r, PRESETS, v, segs, ['*', '*/roots', '*/roots/*', '*/answers'])) ?? {};
}

const PROFILE = named(z.unknown(), 'an object of field name → value', 'a profile key');

/** parley.json `profile`: field name → value, offered as prefill for fields of that name. */
export function readProfile(r: Reader, v: unknown, segs: Segments): Record<string, unknown> {
  return (v === undefined ? undefined : parseSection(r, PROFILE, v, segs, ['*'])) ?? {};
}

const ROOT_POLICY = obj('an object {unrouted?, healthIntervalMs?, watch?, storePollMs?}', {
  unrouted: z
    .enum(['all', 'none'], rule('invalid-value', 'expected "all" or "none"', 'the default is "none" when there are routes, else "all"'))
    .optional(),
  healthIntervalMs: z.int(expect('an integer number of milliseconds from 1000 to 86400000')).min(1000).max(86_400_000).optional(),
  watch: bool.optional(),
  storePollMs: z.int(expect('an integer number of milliseconds from 500 to 3600000')).min(500).max(3_600_000).optional(),
});

/** parley.json `rootPolicy` (see {@link RootPolicyDef}); bad keys are reported and left out. */
export function readRootPolicy(r: Reader, v: unknown, segs: Segments): RootPolicyDef {
  return (v === undefined ? undefined : parseSection(r, ROOT_POLICY, v, segs, ['*'])) ?? {};
}
