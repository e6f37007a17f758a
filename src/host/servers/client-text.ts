/**
 * What of a server's error message may cross to a client (a model, another person's agent through the
 * gateway). The person running parley (CLI, console, host log) keeps the whole explanation of
 * `start-failure.ts`; a client gets {@link clientErrorText}:
 * - the values of the server's configured `env` (and `envFile` variables), HTTP `headers` and OAuth
 *   `clientSecret` replaced by {@link REDACTED}, values of at least {@link MIN_SECRET_CHARS} characters
 *   (shorter ones, such as `DEBUG=1`, would mangle exit codes and words while hiding nothing), both as
 *   written and as `JSON.stringify` escapes them inside a quoted stderr line;
 * - URL credentials (`scheme://user:password@`) replaced by `[redacted]@` (`broker/policy.ts`);
 * - unless `stderr` is set (the operator's opt-in, `gateway.showServerStderr`), the quoted stderr tail
 *   (`its stderr ended with: "…" | "…"`) replaced by {@link STDERR_WITHHELD}; the exit code or signal
 *   and the short reason stay.
 *
 * With the tail shown, a line cut inside a secret has the secret's start redacted too.
 *
 * Linear in the text for each value (at most {@link MAX_SECRET_VALUES} values per server).
 * @module
 */
import { redactUrlsInText } from '../broker/policy.js';
import type { ServerDef } from '../config/types.js';
import { START_STDERR_LINE_CHARS } from './start-failure.js';

/** Placeholder for a configured secret value. */
export const REDACTED = '[redacted]';
/** Shortest configured value that is redacted, characters. */
export const MIN_SECRET_CHARS = 4;
/**
 * Most configured values looked for per server (env + envFile + headers + clientSecret, in that order),
 * counting only values of at least {@link MIN_SECRET_CHARS} characters; later ones are not redacted.
 */
export const MAX_SECRET_VALUES = 256;
/** What replaces a stderr tail in a client's copy of the message. */
export const STDERR_WITHHELD = 'its stderr is withheld from clients';

// `stderrWords` writes JSON strings joined by " | "; a JSON string cannot hold an unescaped quote, so
// this reads exactly what it wrote. The two alternatives start differently: no backtracking blow-up.
const QUOTED = String.raw`"(?:[^"\\\n]|\\.)*"`;
const STDERR_TAIL = new RegExp(String.raw`its stderr ended with: ${QUOTED}(?: \| ${QUOTED})*`, 'g');

/** The configured values of `def` that must not reach a client (see the module doc), longest first. */
export function secretValues(def: ServerDef | undefined): string[] {
  if (!def) return [];
  const values =
    def.type === 'stdio'
      ? [...Object.values(def.env ?? {}), ...Object.values(def.envFileVars ?? {})]
      : [...Object.values(def.headers ?? {}), ...(def.oauth?.clientSecret ? [def.oauth.clientSecret] : [])];
  const out = new Set<string>();
  let taken = 0;
  for (const v of values) {
    if (typeof v !== 'string' || v.length < MIN_SECRET_CHARS) continue;
    if (++taken > MAX_SECRET_VALUES) break;
    out.add(v);
    const escaped = JSON.stringify(v).slice(1, -1);
    if (escaped !== v) out.add(escaped);
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/** `text` without its quoted stderr tail (see the module doc). */
export function withoutStderrTail(text: string): string {
  return text.replace(STDERR_TAIL, STDERR_WITHHELD);
}

/**
 * A server's error message as a client may see it: stderr tail withheld unless `o.stderr`, then each
 * of `o.secrets` ({@link secretValues}) and URL credentials replaced by `[redacted]`.
 */
export function clientErrorText(text: string, o: { secrets: readonly string[]; stderr?: boolean }): string {
  let out = o.stderr ? text : withoutStderrTail(text);
  for (const s of o.secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  if (o.stderr) out = cutSecrets(out, o.secrets);
  return redactUrlsInText(out);
}

/**
 * A stderr line cut at `START_STDERR_LINE_CHARS` ends in `…"`; when the cut split a secret, the start
 * of it (at least {@link MIN_SECRET_CHARS} characters) before the `…` becomes {@link REDACTED} too.
 * The longest such start is found by one KMP pass over the characters before each cut (at most the
 * secret's length, at most `START_STDERR_LINE_CHARS`), for each secret whose start holds the last
 * {@link MIN_SECRET_CHARS} characters there: trying every length with its own comparison was quadratic
 * in the line cut for a secret that nearly matches at every length.
 */
function cutSecrets(text: string, secrets: readonly string[]): string {
  const starts = secrets
    .map((s) => s.slice(0, Math.min(s.length - 1, START_STDERR_LINE_CHARS)))
    .filter((p) => p.length >= MIN_SECRET_CHARS)
    .map((p) => ({ p, fail: failure(p) }));
  let out = '';
  let from = 0;
  for (let i = text.indexOf('…"'); i >= 0; i = text.indexOf('…"', i + 2)) {
    let cut = 0;
    const start = Math.max(from, i - START_STDERR_LINE_CHARS);
    if (i - start < MIN_SECRET_CHARS) {
      out += text.slice(from, i);
      from = i;
      continue;
    }
    const last = text.slice(i - MIN_SECRET_CHARS, i);
    for (const { p, fail } of starts) {
      if (!p.includes(last)) continue; // the common case: no start of this secret ends here (a native scan)
      const k = longestStart(text, Math.max(start, i - p.length), i, p, fail); // a start begins at most |p| back
      if (k >= MIN_SECRET_CHARS && k > cut) cut = k;
    }
    out += text.slice(from, i - cut) + (cut ? REDACTED : '');
    from = i;
  }
  return out + text.slice(from);
}

/** KMP failure table of `p`: `fail[j]`, the longest proper prefix of `p[0..j]` that is also its suffix. */
function failure(p: string): number[] {
  const fail = new Array<number>(p.length).fill(0);
  for (let j = 1, q = 0; j < p.length; j++) {
    while (q > 0 && p[j] !== p[q]) q = fail[q - 1];
    if (p[j] === p[q]) q++;
    fail[j] = q;
  }
  return fail;
}

/** The longest `k` with `p.slice(0, k)` ending `text` at `end` and starting at or after `start`; O(end - start). */
function longestStart(text: string, start: number, end: number, p: string, fail: readonly number[]): number {
  let q = 0;
  for (let j = start; j < end; j++) {
    const c = text[j];
    while (q > 0 && (q === p.length || p[q] !== c)) q = fail[q - 1];
    if (p[q] === c) q++;
  }
  return q;
}
