/**
 * Shared state and helpers for reading one configuration document: issue construction with
 * file/line:column (the shapes are zod schemas, ./zod.ts).
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
