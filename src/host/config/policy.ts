/**
 * Broker policy and timeout defaults, and the reader for parley.json `policy`.
 * @module
 */
import type { PolicyDef, ServerTimeouts } from './types.js';
import type { Reader } from './reader.js';
import { isObject, report, unknownKeys, wrongType } from './reader.js';
import type { Segments } from './source.js';

/** Policy defaults, exactly as documented on {@link PolicyDef}. Frozen; copy before changing. */
export const DEFAULT_POLICY: Readonly<PolicyDef> = Object.freeze({
  sensitiveFields: 'decline',
  ratePerMinute: 30,
  burst: 10,
  maxPendingPerServer: 5,
  urlSchemes: Object.freeze(['https']) as unknown as string[],
  sampling: 'ask',
});

/** Timeout defaults in ms, as documented on {@link ServerTimeouts}. */
export const DEFAULT_TIMEOUTS: Readonly<ServerTimeouts> = Object.freeze({ startupMs: 30_000, toolCallMs: 120_000, maxTotalMs: 3_600_000 });

const KEYS = ['sensitiveFields', 'ratePerMinute', 'burst', 'maxPendingPerServer', 'urlSchemes', 'allowLoopbackUrls', 'sampling'] as const;

/** Reads a partial policy; bad keys are reported and left out (so the default applies). */
export function readPolicy(r: Reader, v: unknown, segs: Segments): Partial<PolicyDef> {
  if (v === undefined) return {};
  if (!isObject(v)) {
    wrongType(r, segs, 'an object', v);
    return {};
  }
  unknownKeys(r, v, segs, KEYS);
  const out: Partial<PolicyDef> = {};
  const s = v.sensitiveFields;
  if (s !== undefined) {
    if (s === 'decline' || s === 'ask' || s === 'allow') out.sensitiveFields = s;
    else
      report(r, 'invalid-value', [...segs, 'sensitiveFields'], 'expected "decline", "ask" or "allow"', { fix: 'the default is "decline"' });
  }
  for (const k of ['ratePerMinute', 'burst', 'maxPendingPerServer'] as const) {
    const n = v[k];
    if (n === undefined) continue;
    if (typeof n === 'number' && Number.isInteger(n) && n >= 0) out[k] = n;
    else wrongType(r, [...segs, k], 'a non-negative integer', n);
  }
  if (v.sampling !== undefined) {
    if (v.sampling === 'ask' || v.sampling === 'decline') out.sampling = v.sampling;
    else
      report(r, 'invalid-value', [...segs, 'sampling'], 'expected "ask" or "decline"', {
        fix: 'the default is "ask" (the person writes or approves the reply; declined when nobody can be asked)',
      });
  }
  const u = v.urlSchemes;
  if (u !== undefined) {
    if (Array.isArray(u) && u.every((x) => typeof x === 'string' && /^[a-z][a-z0-9+.-]*$/i.test(x)))
      out.urlSchemes = u.map((x: string) => x.toLowerCase().replace(/:$/, ''));
    else wrongType(r, [...segs, 'urlSchemes'], 'an array of URL scheme names such as "https"', u);
  }
  if (v.allowLoopbackUrls !== undefined) {
    if (typeof v.allowLoopbackUrls === 'boolean') out.allowLoopbackUrls = v.allowLoopbackUrls;
    else wrongType(r, [...segs, 'allowLoopbackUrls'], 'true or false', v.allowLoopbackUrls);
  }
  return out;
}
