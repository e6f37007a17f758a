/**
 * Readers for the non-server sections: `inputs` (all formats) and parley.json's `routes`, `roots`,
 * `presets`. Bad items are reported and left out; the rest of the section still loads.
 * @module
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { HostConfig, InputVariableDef, RootPolicyDef, RouteDef } from './types.js';
import { normalizeRootUri } from '../../schema/uri.js';
import type { Reader } from './reader.js';
import { clampMs, isObject, report, reservedKey, str, unknownKeys, wrongType } from './reader.js';
import type { Segments } from './source.js';
import { readGatewayOAuth } from './gateway-oauth.js';

export function readInputs(r: Reader, v: unknown, segs: Segments): Record<string, InputVariableDef> {
  const out: Record<string, InputVariableDef> = {};
  if (!Array.isArray(v)) {
    wrongType(r, segs, 'an array of inputs', v);
    return out;
  }
  v.forEach((raw, i) => {
    const at = [...segs, i];
    if (!isObject(raw)) return wrongType(r, at, 'an input object', raw);
    unknownKeys(r, raw, at, ['id', 'type', 'description', 'password', 'default', 'options']);
    if (typeof raw.id !== 'string' || raw.id === '') return wrongType(r, [...at, 'id'], 'a non-empty string', raw.id);
    if (reservedKey(r, raw.id, [...at, 'id'], 'an input id')) return;
    if (raw.type !== 'promptString' && raw.type !== 'pickString') {
      report(r, 'invalid-value', [...at, 'type'], `input type must be "promptString" or "pickString"`, {
        fix: 'other VS Code input types (command) are not supported',
      });
      return;
    }
    const def: InputVariableDef = { id: raw.id, type: raw.type };
    for (const k of ['description', 'default'] as const) {
      if (raw[k] === undefined) continue;
      if (typeof raw[k] === 'string') def[k] = raw[k] as string;
      else return wrongType(r, [...at, k], 'a string', raw[k]);
    }
    if (raw.password !== undefined) {
      if (typeof raw.password === 'boolean') def.password = raw.password;
      else return wrongType(r, [...at, 'password'], 'a boolean', raw.password);
    }
    if (raw.options !== undefined || def.type === 'pickString') {
      if (Array.isArray(raw.options) && raw.options.length > 0 && raw.options.every((o) => typeof o === 'string'))
        def.options = raw.options as string[];
      else return wrongType(r, [...at, 'options'], 'a non-empty array of strings', raw.options);
    }
    if (Object.hasOwn(out, def.id))
      report(r, 'duplicate', [...at, 'id'], `input "${def.id}" is defined twice; this one wins`, { severity: 'warning' });
    out[def.id] = def;
  });
  return out;
}

export function readRoutes(r: Reader, v: unknown, segs: Segments): RouteDef[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    wrongType(r, segs, 'an array of routes', v);
    return [];
  }
  const out: RouteDef[] = [];
  v.forEach((raw, i) => {
    const at = [...segs, i];
    if (!isObject(raw)) return wrongType(r, at, 'a route object {match, servers}', raw);
    unknownKeys(r, raw, at, ['match', 'regex', 'servers']);
    if (typeof raw.match !== 'string' || raw.match === '') return wrongType(r, [...at, 'match'], 'a non-empty string', raw.match);
    if (raw.regex !== undefined && typeof raw.regex !== 'boolean') return wrongType(r, [...at, 'regex'], 'a boolean', raw.regex);
    if (!Array.isArray(raw.servers) || !raw.servers.every((s) => typeof s === 'string'))
      return wrongType(r, [...at, 'servers'], 'an array of server names', raw.servers);
    if (raw.regex) {
      try {
        new RegExp(raw.match);
      } catch (e) {
        return void report(r, 'invalid-regex', [...at, 'match'], `invalid regular expression: ${(e as Error).message}`, {
          fix: 'fix the pattern, or drop "regex" to use a glob',
        });
      }
    }
    out.push({ match: raw.match, ...(raw.regex ? { regex: true } : {}), servers: [...(raw.servers as string[])] });
  });
  return out;
}

/**
 * Roots: `{uri, name?}` or a string. A `file:` URI is normalised (`..` segments collapse); a path
 * (absolute, `~`, `${workspaceFolder}`, or relative to the project directory) becomes a `file://` URI.
 * A URI of another scheme (`postgres://sales-db`, `chart://monthly`) is a virtual root, kept in
 * canonical form: it is used host-side for routing and presets and never sent to a server (MCP
 * `Root.uri` MUST be a `file://` URI, 2025-11-25 client/roots §Root). A malformed URI is an error.
 */
export function readRoots(r: Reader, v: unknown, segs: Segments): HostConfig['roots'] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    wrongType(r, segs, 'an array of roots', v);
    return [];
  }
  const out: HostConfig['roots'] = [];
  v.forEach((raw, i) => {
    const at = [...segs, i];
    const obj = typeof raw === 'string' ? { uri: raw } : raw;
    if (!isObject(obj)) return wrongType(r, at, 'a root {uri, name?} or a path/URI string', raw);
    if (typeof raw !== 'string') unknownKeys(r, obj, at, ['uri', 'name']);
    const uriAt = typeof raw === 'string' ? at : [...at, 'uri'];
    const refs: string[] = [];
    const s = str(r, obj.uri, uriAt, undefined, refs, true);
    if (s === undefined) return;
    if (refs.length)
      return void report(r, 'bad-variable', uriAt, '${input:…} is not supported in roots', {
        fix: 'use an environment variable or a literal path',
      });
    const uri = rootUri(s, r.interp.workspaceFolder);
    if (uri === undefined) {
      return void report(
        r,
        'invalid-value',
        uriAt,
        'a root must be a file:// URI with an empty host, a path, or a well-formed URI of another scheme (a virtual root)',
        {
          fix: 'write file:///abs/path, /abs/path, a path relative to the project, ${workspaceFolder}, or e.g. postgres://sales-db',
        },
      );
    }
    if (obj.name !== undefined && typeof obj.name !== 'string') return wrongType(r, [...at, 'name'], 'a string', obj.name);
    out.push({ uri, ...(typeof obj.name === 'string' ? { name: obj.name } : {}) });
  });
  return out;
}

export function readPresets(r: Reader, v: unknown, segs: Segments): HostConfig['presets'] {
  const out: HostConfig['presets'] = {};
  if (v === undefined) return out;
  if (!isObject(v)) {
    wrongType(r, segs, 'an object of preset name → preset', v);
    return out;
  }
  for (const [name, raw] of Object.entries(v)) {
    const at = [...segs, name];
    if (reservedKey(r, name, at, 'a preset name')) continue;
    if (!isObject(raw)) {
      wrongType(r, at, 'a preset object {roots?, answers?}', raw);
      continue;
    }
    unknownKeys(r, raw, at, ['roots', 'answers']);
    const preset: HostConfig['presets'][string] = {};
    if (raw.roots !== undefined) preset.roots = readRoots(r, raw.roots, [...at, 'roots']);
    if (raw.answers !== undefined) {
      if (isObject(raw.answers) && Object.values(raw.answers).every(isObject))
        preset.answers = raw.answers as Record<string, Record<string, unknown>>;
      else wrongType(r, [...at, 'answers'], 'an object of form key → object of field values', raw.answers);
    }
    out[name] = preset;
  }
  return out;
}

/**
 * The root URI for a root string: a `file:` URI (normalised) for a path or `file:` URI, a canonical
 * virtual URI for another scheme, `undefined` when malformed (or a `file:` URI with a host).
 */
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

/** parley.json `rootPolicy` (see {@link RootPolicyDef}); bad keys are reported and left out. */
export function readRootPolicy(r: Reader, v: unknown, segs: Segments): RootPolicyDef {
  const out: RootPolicyDef = {};
  if (v === undefined) return out;
  if (!isObject(v)) {
    wrongType(r, segs, 'an object {unrouted?, healthIntervalMs?, watch?}', v);
    return out;
  }
  unknownKeys(r, v, segs, ['unrouted', 'healthIntervalMs', 'watch']);
  if (v.unrouted !== undefined) {
    if (v.unrouted === 'all' || v.unrouted === 'none') out.unrouted = v.unrouted;
    else
      report(r, 'invalid-value', [...segs, 'unrouted'], 'expected "all" or "none"', {
        fix: 'the default is "none" when there are routes, else "all"',
      });
  }
  if (v.healthIntervalMs !== undefined) {
    const n = v.healthIntervalMs;
    if (typeof n === 'number' && Number.isInteger(n) && n >= 1000 && n <= 86_400_000) out.healthIntervalMs = n;
    else wrongType(r, [...segs, 'healthIntervalMs'], 'an integer number of milliseconds from 1000 to 86400000', n);
  }
  if (v.watch !== undefined) {
    if (typeof v.watch === 'boolean') out.watch = v.watch;
    else wrongType(r, [...segs, 'watch'], 'a boolean', v.watch);
  }
  return out;
}

/** Tenant and user names: 1-64 characters of letters, digits, `.`, `_`, `@`, `-` (never `/`). */
export const GATEWAY_NAME = /^[A-Za-z0-9._@-]{1,64}$/;

/**
 * parley.json `gateway`: `{users: {<name>: {tokenSha256: "<64 hex>"}}, tenants: {<tenant>: {users: {…},
 * servers?: [<server>…]}}, oauth?, maxSessionsPerUser?, maxPendingPerUser?, sessionIdleMs?}`. A plaintext
 * `token` is refused; `oauth` is read by `./gateway-oauth.ts`.
 */
export function readGateway(r: Reader, v: unknown, segs: Segments): NonNullable<HostConfig['gateway']> {
  const out: NonNullable<HostConfig['gateway']> = { users: {} };
  if (v === undefined) return out;
  if (!isObject(v)) {
    wrongType(r, segs, 'an object {users, tenants, oauth?}', v);
    return out;
  }
  unknownKeys(r, v, segs, ['users', 'tenants', 'oauth', 'maxSessionsPerUser', 'maxPendingPerUser', 'sessionIdleMs']);
  for (const k of ['maxSessionsPerUser', 'maxPendingPerUser', 'sessionIdleMs'] as const) {
    const n = v[k];
    if (n === undefined) continue;
    if (typeof n === 'number' && Number.isInteger(n) && n >= 1) out[k] = k === 'sessionIdleMs' ? clampMs(r, n, [...segs, k]) : n;
    else wrongType(r, [...segs, k], 'a positive integer', n);
  }
  const oauth = readGatewayOAuth(r, v.oauth, [...segs, 'oauth']);
  if (oauth) out.oauth = oauth;
  out.users = readUsers(r, v.users, [...segs, 'users'], '');
  if (v.tenants === undefined) return out;
  if (!isObject(v.tenants)) {
    wrongType(r, [...segs, 'tenants'], 'an object of tenant name → {users, servers}', v.tenants);
    return out;
  }
  out.tenants = {};
  for (const [name, raw] of Object.entries(v.tenants)) {
    const at = [...segs, 'tenants', name];
    if (reservedKey(r, name, at, 'a tenant name')) continue;
    if (!GATEWAY_NAME.test(name) || name === 'default') {
      report(
        r,
        'invalid-tenant-name',
        at,
        `tenant name "${name}" must be 1-64 characters of letters, digits, ".", "_", "@" or "-", and not "default" (gateway.users is tenant "default")`,
        { fix: 'rename the tenant' },
      );
      continue;
    }
    if (!isObject(raw)) {
      wrongType(r, at, 'an object {users, servers}', raw);
      continue;
    }
    unknownKeys(r, raw, at, ['users', 'servers', 'admins']);
    const t: NonNullable<NonNullable<HostConfig['gateway']>['tenants']>[string] = {
      users: readUsers(r, raw.users, [...at, 'users'], name),
    };
    if (raw.servers !== undefined) {
      if (!Array.isArray(raw.servers) || !raw.servers.every((x) => typeof x === 'string' && x.length > 0))
        wrongType(r, [...at, 'servers'], 'an array of server names from mcpServers', raw.servers);
      else t.servers = [...raw.servers] as string[];
    }
    if (raw.admins !== undefined) {
      if (!Array.isArray(raw.admins) || !raw.admins.every((x) => typeof x === 'string'))
        wrongType(r, [...at, 'admins'], "an array of this tenant's user names", raw.admins);
      else {
        const unknown = raw.admins.filter((a) => !(a in t.users));
        if (unknown.length)
          report(
            r,
            'unknown-admin',
            [...at, 'admins'],
            `tenant "${name}": admins names ${unknown.map((a) => `"${a}"`).join(', ')}, not among its users (${Object.keys(t.users).join(', ') || 'none'})`,
            {
              fix: `add the user under gateway.tenants.${name}.users (parley serve token <user> --tenant ${name} --admin), or remove the name`,
            },
          );
        t.admins = (raw.admins as string[]).filter((a) => a in t.users);
      }
    }
    out.tenants[name] = t;
  }
  return out;
}

function readUsers(r: Reader, v: unknown, segs: Segments, tenant: string): Record<string, { tokenSha256: string }> {
  const out: Record<string, { tokenSha256: string }> = {};
  if (v === undefined) return out;
  if (!isObject(v)) {
    wrongType(r, segs, 'an object of user name → {tokenSha256}', v);
    return out;
  }
  const cmd = (name: string) => `parley serve token ${name}${tenant ? ` --tenant ${tenant}` : ''}`;
  for (const [name, raw] of Object.entries(v)) {
    const at = [...segs, name];
    if (reservedKey(r, name, at, 'a user name')) continue;
    if (!GATEWAY_NAME.test(name)) {
      report(r, 'invalid-user-name', at, `user name "${name}" must be 1-64 characters of letters, digits, ".", "_", "@" or "-"`, {
        fix: 'rename the user',
      });
      continue;
    }
    if (!isObject(raw)) {
      wrongType(r, at, 'an object {tokenSha256}', raw);
      continue;
    }
    if ('token' in raw) {
      report(r, 'plaintext-token', [...at, 'token'], `user "${name}" has a plaintext token; tokens are stored only as SHA-256 hashes`, {
        fix: `delete "token" and add "tokenSha256" (run: ${cmd(name)})`,
      });
      continue;
    }
    unknownKeys(r, raw, at, ['tokenSha256']);
    const h = raw.tokenSha256;
    if (typeof h !== 'string' || !/^[0-9a-f]{64}$/.test(h)) {
      report(
        r,
        'invalid-token-hash',
        [...at, 'tokenSha256'],
        `user "${name}": tokenSha256 must be 64 lowercase hex characters (a SHA-256 digest)`,
        { fix: `run: ${cmd(name)}` },
      );
      continue;
    }
    out[name] = { tokenSha256: h };
  }
  return out;
}
