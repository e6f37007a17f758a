/**
 * parley.json `gateway` as zod schemas (./zod.ts): `{users: {<name>: {tokenSha256: "<64 hex>"}},
 * tenants: {<tenant>: {users: {…}, servers?: [<server>…], admins?: [<user>…]}}, oauth?,
 * maxSessionsPerUser?, maxPendingPerUser?, sessionIdleMs?, keepAliveMs?, maxConnections?, showServerStderr?, publicUrl?, unverifiedSignIn?}`. `publicUrl` turns on sign-in to
 * protected upstream servers through the client (URL-mode elicitation, src/gateway/upstream-signin.ts). `oauth` makes the gateway an OAuth
 * protected resource (docs/gateway.md); a section with an error is left out entirely (the gateway then
 * accepts static tokens only, and says so). A plaintext `token` is refused before anything else reads it.
 * @module
 */
import { z } from 'zod';
import type { GatewayDef } from './types.js';
import type { Reader } from './reader.js';
import { isObject, report } from './reader.js';
import type { Segments } from './source.js';
import { clampMs, expect, flag, named, obj, parseSection, rule, text } from './zod.js';

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** Loopback hosts where plain http is allowed for the issuer and the resource. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An absolute http(s) URL without fragment; https unless loopback. */
function url(what: string, missing?: string) {
  const required = missing ? { code: 'required' as const, message: missing, fix: 'add "issuer": "https://login.example.com"' } : undefined;
  return text({ missing: required }).transform((s, ctx) => {
    const u = URL.canParse(s) ? new URL(s) : undefined;
    if (!u) flag(ctx, { code: 'invalid-url', message: `${what} must be an absolute URL`, fix: 'write it as https://host/path' });
    else if (u.hash || u.search || (u.protocol !== 'https:' && !(u.protocol === 'http:' && LOOPBACK.has(u.hostname))))
      flag(ctx, {
        code: 'invalid-url',
        message: `${what} must be https (http only for localhost/127.0.0.1/[::1]) and have no ?query or #fragment`,
        fix: 'use an https URL',
      });
    return s;
  });
}

const claim = z
  .string(
    rule(
      'invalid-value',
      'a claim name is 1-64 characters of letters, digits, "_", ".", ":" or "-"',
      'e.g. "sub", "preferred_username", "tid"',
    ),
  )
  .regex(/^[A-Za-z0-9_.:-]{1,64}$/);
const algorithms = rule(
  'invalid-value',
  `algorithms must be a non-empty array of ${ALGORITHMS.join(', ')} (asymmetric only: the gateway never shares a key with the issuer)`,
  'e.g. ["RS256"]',
);
const SECRET = rule(
  'plaintext-secret',
  'a client secret does not belong in configuration',
  'put it in an environment variable and name it in "clientSecretEnv"',
);
const SECRET_ENV = rule('invalid-value', 'clientSecretEnv is the NAME of an environment variable', 'e.g. "PARLEY_INTROSPECTION_SECRET"');
const SKEW = rule('invalid-value', 'clockSkewMs must be an integer 0..300000 (ms)', 'e.g. 5000');

const SCOPE = z.string(expect('a scope (1-128 characters, no spaces or quotes)')).regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/);

const OAUTH = obj('an object {issuer, resource?, jwksUri?, introspection?, browserClient?, scopes?, userClaim?, tenantClaim?}', {
  issuer: url('issuer', 'gateway.oauth needs "issuer", the authorization server that issues the tokens'),
  resource: url('resource').optional(),
  jwksUri: url('jwksUri').optional(),
  introspection: obj('an object {clientId, clientSecretEnv?, endpoint?}', {
    endpoint: url('introspection.endpoint').optional(),
    clientId: z.string(expect("a non-empty string (the gateway's client id at the issuer)")).min(1),
    clientSecretEnv: z
      .string(SECRET_ENV)
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/)
      .optional(),
    clientSecret: z.never(SECRET).optional(),
  }).optional(),
  browserClient: obj('an object {clientId, clientSecretEnv?, scopes?}', {
    clientId: z.string(expect("a non-empty string (the gateway's browser client id at the issuer)")).min(1).max(256),
    clientSecretEnv: z
      .string(SECRET_ENV)
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/)
      .optional(),
    clientSecret: z.never(SECRET).optional(),
    scopes: z
      .array(SCOPE, expect('an array of scope strings (no spaces or quotes)'))
      .refine(
        (a) => a.includes('openid'),
        rule('invalid-value', 'browserClient.scopes must include "openid"', 'e.g. ["openid", "profile"]'),
      )
      .default(['openid']),
  }).optional(),
  scopes: z.array(SCOPE, expect('an array of scope strings (no spaces or quotes)')).default([]),
  userClaim: claim.default('sub'),
  tenantClaim: claim.optional(),
  algorithms: z
    .array(z.string(algorithms), algorithms)
    .min(1)
    .refine((a) => a.every((x) => ALGORITHMS.includes(x)), algorithms)
    .default(['RS256', 'PS256', 'ES256', 'EdDSA']),
  clockSkewMs: z.int(SKEW).min(0).max(300_000).default(5000),
});

/** Tenant and user names: 1-64 characters of letters, digits, `.`, `_`, `@`, `-` (never `/`). */
const GATEWAY_NAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** `parley serve token …` for the user at `path` (`users/<name>/…` or `tenants/<t>/users/<name>/…`). */
const tokenCommand = (name: string, tenant?: string) => `parley serve token ${name}${tenant ? ` --tenant ${tenant}` : ''}`;
const userAt = (path: ReadonlyArray<PropertyKey>) => tokenCommand(String(path.at(-2)), path[0] === 'tenants' ? String(path[1]) : undefined);

/** A user or tenant name rule; a tenant may not be called "default" (gateway.users is tenant "default"). */
const nameRule = (kind: 'user' | 'tenant') => (k: string) =>
  GATEWAY_NAME.test(k) && !(kind === 'tenant' && k === 'default')
    ? undefined
    : {
        code: kind === 'user' ? ('invalid-user-name' as const) : ('invalid-tenant-name' as const),
        message: `${kind} name "${k}" must be 1-64 characters of letters, digits, ".", "_", "@" or "-"${kind === 'tenant' ? ', and not "default" (gateway.users is tenant "default")' : ''}`,
        fix: `rename the ${kind}`,
      };
const HASH = rule(
  'invalid-token-hash',
  (p) => `user "${String(p.at(-2))}": tokenSha256 must be 64 lowercase hex characters (a SHA-256 digest)`,
  (p) => `run: ${userAt(p)}`,
);
const USER = obj('an object {tokenSha256}', { tokenSha256: z.string(HASH).regex(/^[0-9a-f]{64}$/) });
const USERS = named(USER, 'an object of user name → {tokenSha256}', 'a user name', nameRule('user'));
const TENANT = obj('an object {users, servers}', {
  users: USERS.optional(),
  servers: z.array(z.string(expect('a server name')).min(1), expect('an array of server names from mcpServers')).optional(),
  admins: z.array(z.string(expect('a user name')), expect("an array of this tenant's user names")).optional(),
});
const TENANTS = named(TENANT, 'an object of tenant name → {users, servers}', 'a tenant name', nameRule('tenant'));

const positive = z.int(expect('a positive integer')).min(1);
const UNITS = ['*', 'users/*', 'tenants/*', 'tenants/*/users', 'tenants/*/users/*', 'tenants/*/servers', 'tenants/*/admins'];

const GATEWAY = obj('an object {users, tenants, oauth?}', {
  users: USERS.optional(),
  tenants: TENANTS.optional(),
  oauth: OAUTH.optional(),
  maxSessionsPerUser: positive.optional(),
  maxPendingPerUser: positive.optional(),
  sessionIdleMs: clampMs(positive).optional(),
  keepAliveMs: clampMs(positive).optional(),
  maxConnections: positive.max(1_000_000).optional(),
  showServerStderr: z.boolean(expect('true or false (true: clients see the stderr tail of a server that failed)')).optional(),
  publicUrl: url('publicUrl').optional(),
  unverifiedSignIn: z.boolean(expect('true or false (true: sign-in through the client without checking who opens the URL)')).optional(),
});

export function readGateway(r: Reader, v: unknown, segs: Segments): GatewayDef {
  const out: GatewayDef = { users: {} };
  if (v === undefined) return out;
  const g = parseSection(r, GATEWAY, isObject(v) ? refuseTokens(r, structuredClone(v), segs) : v, segs, UNITS);
  if (!g) return out;
  const { users, tenants, oauth: o, ...limits } = g;
  Object.assign(out, limits, { users: users ?? {} }, o ? { oauth: o } : {});
  if (!tenants) return out;
  out.tenants = {};
  for (const [name, t] of Object.entries(tenants)) {
    const tu = t.users ?? {};
    const unknown = (t.admins ?? []).filter((a) => !Object.hasOwn(tu, a));
    if (unknown.length)
      report(
        r,
        'unknown-admin',
        [...segs, 'tenants', name, 'admins'],
        `tenant "${name}": admins names ${unknown.map((a) => `"${a}"`).join(', ')}, not among its users (${Object.keys(tu).join(', ') || 'none'})`,
        {
          fix: `add the user under gateway.tenants.${name}.users (parley serve token <user> --tenant ${name} --admin), or remove the name`,
        },
      );
    out.tenants[name] = {
      users: tu,
      ...(t.servers ? { servers: t.servers } : {}),
      ...(t.admins ? { admins: t.admins.filter((a) => Object.hasOwn(tu, a)) } : {}),
    };
  }
  return out;
}

/** A user with a plaintext `token` is reported and left out (a secrets rule, checked before the shape). */
function refuseTokens(r: Reader, gw: Record<string, unknown>, segs: Segments): Record<string, unknown> {
  const scan = (users: unknown, at: Segments, tenant?: string) => {
    if (!isObject(users)) return;
    for (const [name, u] of Object.entries(users)) {
      if (!isObject(u) || !('token' in u)) continue;
      report(
        r,
        'plaintext-token',
        [...at, name, 'token'],
        `user "${name}" has a plaintext token; tokens are stored only as SHA-256 hashes`,
        {
          fix: `delete "token" and add "tokenSha256" (run: ${tokenCommand(name, tenant)})`,
        },
      );
      delete users[name];
    }
  };
  scan(gw.users, [...segs, 'users']);
  if (isObject(gw.tenants))
    for (const [t, def] of Object.entries(gw.tenants)) if (isObject(def)) scan(def.users, [...segs, 'tenants', t, 'users'], t);
  return gw;
}
