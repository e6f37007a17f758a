/**
 * Reader for parley.json `gateway.oauth` (the gateway as an OAuth protected resource,
 * docs/gateway.md). Bad fields are reported with their JSON pointer and a fix; a section with an error
 * is left out entirely (the gateway then accepts static tokens only, and says so).
 * @module
 */
import type { GatewayOAuthDef } from './types.js';
import type { Reader } from './reader.js';
import { isObject, report, str, unknownKeys, wrongType } from './reader.js';
import type { Segments } from './source.js';

const KEYS = ['issuer', 'resource', 'jwksUri', 'introspection', 'scopes', 'userClaim', 'tenantClaim', 'algorithms', 'clockSkewMs'];
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** Loopback hosts where plain http is allowed for the issuer and the resource. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An absolute http(s) URL without fragment; https unless loopback. `undefined` (reported) otherwise. */
function url(r: Reader, v: unknown, segs: Segments, what: string): string | undefined {
  const s = str(r, v, segs, undefined, []);
  if (s === undefined) return undefined;
  if (!URL.canParse(s)) {
    report(r, 'invalid-url', segs, `${what} must be an absolute URL`, { fix: 'write it as https://host/path' });
    return undefined;
  }
  const u = new URL(s);
  if (u.hash || (u.protocol !== 'https:' && !(u.protocol === 'http:' && LOOPBACK.has(u.hostname)))) {
    report(r, 'invalid-url', segs, `${what} must be https (http only for localhost/127.0.0.1/[::1]) and have no #fragment`, {
      fix: 'use an https URL',
    });
    return undefined;
  }
  return s;
}

function claim(r: Reader, v: unknown, segs: Segments): string | undefined {
  if (typeof v !== 'string' || !/^[A-Za-z0-9_.:-]{1,64}$/.test(v)) {
    report(r, 'invalid-value', segs, 'a claim name is 1-64 characters of letters, digits, "_", ".", ":" or "-"', {
      fix: 'e.g. "sub", "preferred_username", "tid"',
    });
    return undefined;
  }
  return v;
}

/** Reads `gateway.oauth`; `undefined` when absent or when any field has an error. */
export function readGatewayOAuth(r: Reader, v: unknown, segs: Segments): GatewayOAuthDef | undefined {
  if (v === undefined) return undefined;
  if (!isObject(v)) {
    wrongType(r, segs, 'an object {issuer, resource?, jwksUri?, introspection?, scopes?, userClaim?, tenantClaim?}', v);
    return undefined;
  }
  unknownKeys(r, v, segs, KEYS);
  const before = r.issues.filter((i) => i.severity === 'error').length;
  const out: GatewayOAuthDef = {
    issuer: '',
    scopes: [],
    userClaim: 'sub',
    algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
    clockSkewMs: 5000,
  };
  if (v.issuer === undefined)
    report(r, 'required', [...segs, 'issuer'], 'gateway.oauth needs "issuer", the authorization server that issues the tokens', {
      fix: 'add "issuer": "https://login.example.com"',
    });
  else out.issuer = url(r, v.issuer, [...segs, 'issuer'], 'issuer') ?? '';
  if (v.resource !== undefined) out.resource = url(r, v.resource, [...segs, 'resource'], 'resource');
  if (v.jwksUri !== undefined) out.jwksUri = url(r, v.jwksUri, [...segs, 'jwksUri'], 'jwksUri');
  if (v.introspection !== undefined) {
    const at = [...segs, 'introspection'];
    const i = v.introspection;
    if (!isObject(i)) wrongType(r, at, 'an object {clientId, clientSecretEnv?, endpoint?}', i);
    else {
      unknownKeys(r, i, at, ['endpoint', 'clientId', 'clientSecretEnv']);
      if ('clientSecret' in i)
        report(r, 'plaintext-secret', [...at, 'clientSecret'], 'a client secret does not belong in configuration', {
          fix: 'put it in an environment variable and name it in "clientSecretEnv"',
        });
      const clientId = typeof i.clientId === 'string' && i.clientId ? i.clientId : undefined;
      if (!clientId) wrongType(r, [...at, 'clientId'], "a non-empty string (the gateway's client id at the issuer)", i.clientId);
      const def: NonNullable<GatewayOAuthDef['introspection']> = { clientId: clientId ?? '' };
      if (i.endpoint !== undefined) def.endpoint = url(r, i.endpoint, [...at, 'endpoint'], 'introspection.endpoint');
      if (i.clientSecretEnv !== undefined) {
        if (typeof i.clientSecretEnv === 'string' && /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(i.clientSecretEnv))
          def.clientSecretEnv = i.clientSecretEnv;
        else
          report(r, 'invalid-value', [...at, 'clientSecretEnv'], 'clientSecretEnv is the NAME of an environment variable', {
            fix: 'e.g. "PARLEY_INTROSPECTION_SECRET"',
          });
      }
      out.introspection = def;
    }
  }
  if (v.scopes !== undefined) {
    if (Array.isArray(v.scopes) && v.scopes.every((s) => typeof s === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/.test(s)))
      out.scopes = v.scopes as string[];
    else wrongType(r, [...segs, 'scopes'], 'an array of scope strings (no spaces or quotes)', v.scopes);
  }
  if (v.userClaim !== undefined) out.userClaim = claim(r, v.userClaim, [...segs, 'userClaim']) ?? 'sub';
  if (v.tenantClaim !== undefined) out.tenantClaim = claim(r, v.tenantClaim, [...segs, 'tenantClaim']);
  if (v.algorithms !== undefined) {
    if (
      Array.isArray(v.algorithms) &&
      v.algorithms.length > 0 &&
      v.algorithms.every((a) => typeof a === 'string' && ALGORITHMS.includes(a))
    )
      out.algorithms = v.algorithms as string[];
    else
      report(
        r,
        'invalid-value',
        [...segs, 'algorithms'],
        `algorithms must be a non-empty array of ${ALGORITHMS.join(', ')} (asymmetric only: the gateway never shares a key with the issuer)`,
        { fix: 'e.g. ["RS256"]' },
      );
  }
  if (v.clockSkewMs !== undefined) {
    if (Number.isInteger(v.clockSkewMs) && (v.clockSkewMs as number) >= 0 && (v.clockSkewMs as number) <= 300_000)
      out.clockSkewMs = v.clockSkewMs as number;
    else report(r, 'invalid-value', [...segs, 'clockSkewMs'], 'clockSkewMs must be an integer 0..300000 (ms)', { fix: 'e.g. 5000' });
  }
  return r.issues.filter((i) => i.severity === 'error').length > before ? undefined : out;
}
