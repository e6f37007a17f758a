// Issue 12 item 6: every text check over untrusted text runs in linear time. For each check and each
// generated text shape (runs of capitals, camel humps, digits before capitals, invisible characters,
// look-alike letters, "://" and "@" runs, template braces, …) the time per character at 100k and 400k
// characters stays within a generous factor of the time per character at 10k. A quadratic check
// gives a factor of ~10 at 100k and ~40 at 400k (the old camelCase split took ~55 s on 100k capitals).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { detectSensitiveFields, normaliseWords } from '../src/schema/sensitive.js';
import { fold } from '../src/schema/fold.js';
import {
  checkMessageLimits,
  checkSchemaLimits,
  findRequestedSchemas,
  lintRequestedSchema,
  normalizeRequestedSchema,
  normalizeRootUri,
  validateContent,
} from '../src/schema/index.js';
import { checkUrl, escapeHidden, redactUrl, redactUrlsInText } from '../src/host/broker/policy.js';
import { globToRegExp } from '../src/host/roots/glob.js';
import { clientErrorText } from '../src/host/servers/client-text.js';
import { uriTemplateToRegExp } from '../src/host/roots/routing.js';

/** Largest allowed ratio of time per character (big size / 10k). Linear ≈ 1; quadratic ≈ 10 / 100. */
const BOUND = 10;
const SIZES = [10_000, 100_000, 400_000];
const RUNS = Number(process.env.PARLEY_LINEAR_RUNS ?? 2);
/** Always tried: a run of capitals (the old quadratic split) and URL/template punctuation. */
const EXAMPLES: Array<[string]> = [['A'], ['://{a}@']];

const PIECES = [
  'A',
  'a',
  'Z',
  'P',
  '2',
  'F',
  ' ',
  '_',
  '-',
  '\u200B',
  '\u00AD',
  '\u0430',
  'pin',
  'password',
  'token',
  ':',
  '/',
  '//',
  '@',
  '://',
  '.',
  'é',
  '密码',
  '\u202E',
  '%',
  '{',
  '}',
  '{a}',
  '#',
  '?',
  '*',
  'x',
];
const unit = fc.oneof(
  fc.constantFrom('A', 'aA', '2F', 'pin ', '://', 'a.', '\u200B', 'a@', '{x}', 'Aa1', 'p4', 'S3', 'a-', '55'),
  fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 6 }).map((p) => p.join('')),
);
const make = (u: string, n: number) => u.repeat(Math.ceil(n / u.length)).slice(0, n);

/**
 * ms per character of `fn(text)`: at least 30 ms of repeats for small texts (under 50 000 characters), the best of five for big
 * ones (a descheduled run on a loaded machine must not read as growth; a quadratic check is 100× off).
 */
function perChar(fn: (s: string) => unknown, s: string): number {
  if (s.length < 50_000) {
    fn(s);
    let reps = 0;
    const t0 = performance.now();
    let t = t0;
    do {
      fn(s);
      reps++;
      t = performance.now();
    } while (t - t0 < 30 && reps < 10_000);
    return (t - t0) / reps / s.length;
  }
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    fn(s);
    best = Math.min(best, performance.now() - t0);
  }
  return best / s.length;
}

const str = (title: string) => ({ type: 'object', properties: { field: { type: 'string', title } } });
/**
 * `prefix + s` as one flat string, built before the clock starts. A check that concatenated per call
 * would time V8 copying a 1M-character cons string into fresh large-object memory (page faults, GC),
 * which grows per character from 10k to 1M on some machines though the check itself stops at once.
 */
const flat = (prefix: string) => (s: string) => Buffer.from(prefix + s, 'utf8').toString('utf8');

/** [name, the check on its input, how the input is built from the repeated text (before timing)]. */
const CHECKS: Array<[string, (s: string) => unknown, ((s: string) => string)?]> = [
  ['detectSensitiveFields (title)', (s) => detectSensitiveFields(str(s))],
  [
    'detectSensitiveFields (name and description)',
    (s) => detectSensitiveFields({ type: 'object', properties: { [s]: { type: 'string', description: s } } }),
  ],
  ['normaliseWords / fold', (s) => (normaliseWords(s), fold(s))],
  [
    'lintRequestedSchema',
    (s) => lintRequestedSchema({ type: 'object', title: s, properties: { f: { type: 'string', description: s, enum: [s] } } }),
  ],
  [
    'normalizeRequestedSchema',
    (s) =>
      normalizeRequestedSchema({
        type: 'object',
        properties: { f: { $ref: `#/$defs/${s}` }, g: { type: 'string', format: s, description: s } },
        $defs: {},
      }),
  ],
  ['size caps', (s) => (checkSchemaLimits(str(s)), checkMessageLimits({ message: s, url: s }))],
  [
    'findRequestedSchemas (url mode)',
    (s) =>
      findRequestedSchemas(
        { method: 'elicitation/create', params: { mode: 'url', message: s, url: `https://example.com/${s}`, elicitationId: 'e' } },
        { revision: '2025-11-25' },
      ),
  ],
  [
    'validateContent (email, uri, date-time)',
    (s) =>
      validateContent(
        {
          type: 'object',
          properties: {
            e: { type: 'string', format: 'email' },
            u: { type: 'string', format: 'uri' },
            d: { type: 'string', format: 'date-time' },
          },
        },
        { e: `${s}@${s}`, u: `https://${s}`, d: s },
      ),
  ],
  ['checkUrl', (s) => checkUrl(`https://user:pw@example.com/${s}?q=${s}#${s}`, { urlSchemes: ['https'] })],
  ['redactUrl / redactUrlsInText / escapeHidden', (s) => (redactUrl(s), redactUrlsInText(s), escapeHidden(s))],
  [
    'URI template match (server-supplied)',
    (s) => uriTemplateToRegExp('x://{a}{b}{c}{d}{e}/{+f}{#g}{/h}{.i}{;j}{?k}{&l}/z')!.test(s),
    flat('x://'),
  ],
  ['glob match', (s) => globToRegExp('file:///a*b*c*d/**/e?f/**').test(s), flat('file:///')],
  [
    'normalizeRootUri',
    (s) => {
      try {
        normalizeRootUri(s);
      } catch {
        /* refused is fine */
      }
    },
    flat('file:///'),
  ],
];

for (const [name, fn, input = (s: string) => s] of CHECKS) {
  test(`linear time from 10k to 400k characters: ${name}`, () => {
    fc.assert(
      fc.property(unit, (u) => {
        const base = perChar(fn, input(make(u, SIZES[0])));
        for (const n of SIZES.slice(1)) {
          const r = perChar(fn, input(make(u, n))) / base;
          assert.ok(r < BOUND, `${name}: time per character at ${n} is ${r.toFixed(1)}× that at ${SIZES[0]} (unit ${JSON.stringify(u)})`);
        }
      }),
      { numRuns: RUNS, examples: EXAMPLES },
    );
  });
}

// A server's error text before it reaches a gateway client (src/host/servers/client-text.ts): the
// stderr-tail pattern and the cut-secret scan on shapes made of their own punctuation.
test('linear time from 10k to 400k characters: clientErrorText (stderr tail, secrets, cut lines)', () => {
  const secrets = ['abcdefgh-secret', 'its stderr', 'a\\"b'];
  const fn = (s: string) => (clientErrorText(s, { secrets }), clientErrorText(s, { secrets, stderr: true }));
  for (const u of [
    'its stderr ended with: "',
    'its stderr ended with: "a" | "',
    'abcd…"',
    'abcdefgh…" | "',
    '\\"',
    ' | "x\\',
    'abcdefgh-secre',
  ]) {
    const base = perChar(fn, make(u, SIZES[0]));
    for (const n of SIZES.slice(1)) {
      const r = perChar(fn, make(u, n)) / base;
      assert.ok(
        r < BOUND,
        `clientErrorText: time per character at ${n} is ${r.toFixed(1)}× that at ${SIZES[0]} (unit ${JSON.stringify(u)})`,
      );
    }
  }
});

// The cut-secret scan looks, at each "…\"", for the longest start of a secret ending there. Trying every
// length from 300 down with a fresh comparison each is quadratic in the line cut (300 characters) when
// the secret nearly matches at every length: a secret whose start differs at character 151 from a run
// of its own first letter made 1 MB of such lines cost ~75× the time of a secret that matches at once
// (16 such secrets: 7 s of CPU per MB of a server's isError text). The time must not depend on how the
// secret is spelt.
test('clientErrorText: the cut-secret scan costs the same whatever the secret is (no per-cut quadratic)', () => {
  const text = `${'a'.repeat(299)}…"`.repeat(700); // 210k characters, a cut line every 301
  const time = (secret: string) => perChar((s) => clientErrorText(s, { secrets: [secret], stderr: true }), text);
  const easy = time(`${'a'.repeat(300)}Z`); // the longest start matches at once
  const hard = time(`${'a'.repeat(150)}b${'a'.repeat(149)}Z`); // every length compares 150 characters first
  const r = hard / easy;
  assert.ok(r < BOUND, `clientErrorText: a nearly matching secret costs ${r.toFixed(1)}× a matching one per character`);
});
