/**
 * Configuration findings as data, and the one-line-per-issue formatter behind `parley config check`.
 * @module
 */
import type { Issue } from '../../schema/types.js';

/** Every code a {@link ConfigIssue} can carry. */
export const CONFIG_ISSUE_CODES = [
  'bad-variable',
  'clamped',
  'coerced',
  'conflict',
  'duplicate',
  'encoding',
  'env-file',
  'input-cancelled',
  'invalid-regex',
  'invalid-tenant-name',
  'invalid-token-hash',
  'invalid-url',
  'invalid-user-name',
  'invalid-value',
  'no-servers',
  'parse',
  'plaintext-secret',
  'plaintext-token',
  'read-failed',
  'required',
  'secret-exposed',
  'too-large',
  'type',
  'unknown-admin',
  'unknown-input',
  'unknown-key',
  'unknown-server',
  'unresolved-input',
  'unset-variable',
] as const;
export type ConfigIssueCode = (typeof CONFIG_ISSUE_CODES)[number];

/**
 * One configuration finding. Extends the schema core's {@link Issue}: `path` is a JSON pointer into the
 * configuration file (`''` for its root), and the location fields are filled wherever they are known.
 *
 * Codes: {@link CONFIG_ISSUE_CODES}; `unknown-key`, `unknown-server`, `no-servers`, `duplicate`, `coerced` and `clamped` are warnings.
 */
export interface ConfigIssue extends Issue<ConfigIssueCode> {
  /** Absolute file path, `'<embedded>'` or `'<flag>'`. */
  file?: string;
  /** 1-based line. */
  line?: number;
  /** 1-based column. */
  column?: number;
  /** Name of the server the issue belongs to; such a server is not started when severity is `'error'`. */
  server?: string;
}

/** Thrown where an API cannot return issues (e.g. {@link resolveInputVariables}); carries them as data. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'CONFIG_INVALID';
  constructor(readonly issues: ConfigIssue[]) {
    super(formatConfigIssues(issues));
  }
  /** Brand check that survives duplicate copies of the package. */
  static is(value: unknown): value is ConfigError {
    return value instanceof Error && value.name === 'ConfigError' && (value as { code?: unknown }).code === 'CONFIG_INVALID';
  }
}

/**
 * Formats issues one per line:
 * `file:line:col server /pointer: error|warning: message (fix)`. Unknown parts are left out.
 * Never includes configuration values, so secrets cannot leak through it.
 */
export function formatConfigIssues(issues: readonly ConfigIssue[]): string {
  return issues.map(formatOne).join('\n');
}

function formatOne(i: ConfigIssue): string {
  let loc = i.file ?? '';
  if (loc && i.line !== undefined) loc += `:${i.line}` + (i.column !== undefined ? `:${i.column}` : '');
  const head = [loc, i.server, i.path || undefined].filter((s) => s !== undefined && s !== '').join(' ');
  const fix = i.fix ? ` (${i.fix})` : '';
  return `${head ? head + ': ' : ''}${i.severity}: ${i.message}${fix}`;
}

/** True when any issue is an error. */
export function hasErrors(issues: readonly ConfigIssue[]): boolean {
  return issues.some((i) => i.severity === 'error');
}

/** Builds a JSON pointer (RFC 6901) from path segments. */
export function pointer(segments: ReadonlyArray<string | number>): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}
