/**
 * Shared state and helpers for reading one configuration document: issue construction with
 * file/line:column, type checks that name the JSON pointer and the expected type, and string fields
 * with interpolation.
 * @module
 */
import type { ConfigIssue, ConfigIssueCode } from './issues.js';
import { pointer } from './issues.js';
import type { ConfigSource, Segments } from './source.js';
import type { InterpolationContext } from './interpolate.js';
import { expand } from './interpolate.js';

export interface Reader {
  source: ConfigSource;
  interp: InterpolationContext;
  issues: ConfigIssue[];
  /** Reads a file named inside the configuration (`envFile`); throws like `fs.readFileSync`. */
  readText(path: string): string;
}

export interface IssueOpts {
  severity?: 'error' | 'warning';
  fix?: string;
  server?: string;
  /** Point at the property name instead of the value (unknown keys). */
  key?: boolean;
}

/** Records an issue at `segs` and returns it. */
export function report(r: Reader, code: ConfigIssueCode, segs: Segments, message: string, opts: IssueOpts = {}): ConfigIssue {
  const pos = r.source.locate(segs, { key: opts.key });
  const issue: ConfigIssue = {
    code,
    path: pointer(segs),
    severity: opts.severity ?? 'error',
    message,
    ...(opts.fix ? { fix: opts.fix } : {}),
    file: r.source.file,
    ...(pos ?? {}),
    ...(opts.server !== undefined ? { server: opts.server } : {}),
  };
  r.issues.push(issue);
  return issue;
}

export function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reports a `type` error: "expected <what>, got <type>". Never echoes the value (it may be a secret). */
export function wrongType(r: Reader, segs: Segments, what: string, got: unknown, server?: string): void {
  report(r, 'type', segs, `expected ${what}, got ${typeName(got)}`, { server, fix: `make ${pointer(segs) || 'the document'} ${what}` });
}

/** Warns about keys of `obj` not in `known`. */
export function unknownKeys(r: Reader, obj: Record<string, unknown>, segs: Segments, known: readonly string[], server?: string): void {
  for (const k of Object.keys(obj)) {
    if (!known.includes(k)) {
      report(r, 'unknown-key', [...segs, k], `unknown key "${k}" is ignored`, {
        severity: 'warning',
        key: true,
        server,
        fix: `known keys here: ${known.join(', ')}`,
      });
    }
  }
}

/**
 * Reads and expands one string field. Returns `undefined` (and reports) when the value is not a string
 * or a variable cannot be expanded. `refs` collects `${input:id}` ids.
 */
export function str(r: Reader, v: unknown, segs: Segments, server: string | undefined, refs: string[], tilde = false): string | undefined {
  if (typeof v !== 'string') {
    wrongType(r, segs, 'a string', v, server);
    return undefined;
  }
  const e = expand(v, r.interp, { tilde });
  if (!e.ok) {
    for (const p of e.problems) report(r, p.code, segs, p.message, { fix: p.fix, server });
    return undefined;
  }
  for (const id of e.inputRefs) if (!refs.includes(id)) refs.push(id);
  return e.value;
}

/** Reads an object of strings (env, headers), expanding each value. `undefined` on any error. */
export function strMap(
  r: Reader,
  v: unknown,
  segs: Segments,
  server: string,
  refs: string[],
  tilde = false,
  opts: { scalars?: boolean } = {},
): Record<string, string> | undefined {
  if (v === undefined) return {};
  if (!isObject(v)) {
    wrongType(r, segs, 'an object of strings', v, server);
    return undefined;
  }
  const out: Record<string, string> = {};
  let ok = true;
  for (const [k, raw] of Object.entries(v)) {
    if (opts.scalars && (typeof raw === 'number' || typeof raw === 'boolean')) {
      // `"PORT": 8080` is what people write most; every environment value is a string in the end.
      // The value is not echoed: even a number can be a secret (a PIN).
      report(r, 'coerced', [...segs, k], `${typeName(raw)} value is used as a string`, {
        severity: 'warning',
        server,
        fix: `quote the value ("${k}": "…") to silence this`,
      });
      out[k] = String(raw);
      continue;
    }
    const s = str(r, raw, [...segs, k], server, refs, tilde);
    if (s === undefined) ok = false;
    else out[k] = s;
  }
  return ok ? out : undefined;
}

/**
 * Rejects `__proto__` as a name (server, input id, preset, profile key): assigning it would change an
 * object's prototype instead of adding an entry. Returns true when the key is reserved (and reported).
 */
export function reservedKey(r: Reader, key: string, segs: Segments, what: string): boolean {
  if (key !== '__proto__') return false;
  report(r, 'invalid-value', segs, `"__proto__" cannot be used as ${what}`, { key: true, fix: 'choose another name' });
  return true;
}

/** Longest delay a timer takes, ms (2^31−1, ~24.8 days): a longer one would fire after 1 ms. */
export const MAX_DEADLINE_MS = 2 ** 31 - 1;

/** A deadline over {@link MAX_DEADLINE_MS} is clamped to it, with a warning naming the field. */
export function clampMs(r: Reader, ms: number, segs: Segments, server?: string): number {
  if (ms <= MAX_DEADLINE_MS) return ms;
  report(r, 'clamped', segs, `${ms} ms is longer than the longest timer; using ${MAX_DEADLINE_MS} ms (~24.8 days)`, {
    severity: 'warning',
    ...(server !== undefined ? { server } : {}),
    fix: `set at most ${MAX_DEADLINE_MS}`,
  });
  return MAX_DEADLINE_MS;
}
