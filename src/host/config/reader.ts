/**
 * Shared state and helpers for reading one configuration document: issue construction with
 * file/line:column, and the document-level type checks (the sections' shapes are zod schemas, ./zod.ts).
 * @module
 */
import type { ConfigIssue, ConfigIssueCode } from './issues.js';
import { pointer } from './issues.js';
import type { ConfigSource, Segments } from './source.js';
import type { InterpolationContext } from './interpolate.js';

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
 * Rejects `__proto__` as a name (server, input id, preset, profile key): assigning it would change an
 * object's prototype instead of adding an entry. Returns true when the key is reserved (and reported).
 */
export function reservedKey(r: Reader, key: string, segs: Segments, what: string): boolean {
  if (key !== '__proto__') return false;
  report(r, 'invalid-value', segs, `"__proto__" cannot be used as ${what}`, { key: true, fix: 'choose another name' });
  return true;
}
