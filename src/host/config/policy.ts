/**
 * Broker policy and timeout defaults, and the reader for parley.json `policy`.
 * @module
 */
import type { PolicyDef, ServerTimeouts } from './types.js';
import { z } from 'zod';
import type { Reader } from './reader.js';
import type { Segments } from './source.js';
import { expect, obj, parseSection, rule } from './zod.js';

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

const nonNegative = z.int(expect('a non-negative integer')).min(0).optional();

/** parley.json `policy`: every key optional; a bad key is reported and left out, so its default applies. */
const POLICY = obj('an object', {
  sensitiveFields: z
    .enum(['decline', 'ask', 'allow'], rule('invalid-value', 'expected "decline", "ask" or "allow"', 'the default is "decline"'))
    .optional(),
  ratePerMinute: nonNegative,
  burst: nonNegative,
  maxPendingPerServer: nonNegative,
  urlSchemes: z
    .array(
      z.string(expect('a URL scheme name such as "https"')).regex(/^[a-z][a-z0-9+.-]*$/i),
      expect('an array of URL scheme names such as "https"'),
    )
    .transform((u) => u.map((x) => x.toLowerCase()))
    .optional(),
  allowLoopbackUrls: z.boolean(expect('true or false')).optional(),
  sampling: z
    .enum(
      ['ask', 'decline'],
      rule(
        'invalid-value',
        'expected "ask" or "decline"',
        'the default is "ask" (the person writes or approves the reply; declined when nobody can be asked)',
      ),
    )
    .optional(),
});

/** Reads a partial policy; bad keys are reported and left out (so the default applies). */
export function readPolicy(r: Reader, v: unknown, segs: Segments): Partial<PolicyDef> {
  return (v === undefined ? undefined : parseSection(r, POLICY, v, segs, ['*'])) ?? {};
}
