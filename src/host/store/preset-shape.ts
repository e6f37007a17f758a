/**
 * The shape of a preset body (roots, answers, config) as a zod schema, and the conversion of its
 * findings into {@link Issue}s with JSON pointers. Shared by `savePreset` and `importPresets`.
 * @module
 */
import { z } from 'zod';
import { ZOD_ISSUE_CODES } from '../../schema/codes.js';
import type { Issue } from '../../schema/types.js';
import { normalizeRootUri } from '../../schema/uri.js';

/** Longest preset name, in characters. */
export const PRESET_NAME_MAX = 200;

/**
 * Bounds of what a preset may hold (an imported file is untrusted input): roots per preset, characters of
 * a root URI and name, characters of an answer string, entries of a multi-select answer.
 */
export const PRESET_LIMITS = { roots: 1000, uriChars: 8192, nameChars: 256, valueChars: 65_536, arrayItems: 1000 } as const;

const contentValue = z.union([
  z.string().max(PRESET_LIMITS.valueChars),
  z.number(),
  z.boolean(),
  z.array(z.string().max(PRESET_LIMITS.valueChars)).max(PRESET_LIMITS.arrayItems),
]);

/** Why `uri` cannot be a root, or `undefined`: the configuration's rules (a `file:` URI has no host). */
function rootProblem(uri: string): string | undefined {
  if (/^file:/i.test(uri)) {
    if (!URL.canParse(uri)) return 'not a well-formed file: URI';
    const host = new URL(uri).host;
    return host === '' || host === 'localhost' ? undefined : `a file: URI names no host (got "${host}"); write file:///path`;
  }
  try {
    normalizeRootUri(uri);
    return undefined;
  } catch (e) {
    return `not a root URI (${(e as Error).message}); write a file:///path or a URI of another scheme`;
  }
}

const rootUri = z
  .string()
  .min(1)
  .max(PRESET_LIMITS.uriChars)
  .superRefine((uri, ctx) => {
    if (uri === '') return; // reported by min(1)
    const problem = rootProblem(uri);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** A preset root: `{uri, name?}`, or the URI alone (as `presets` in the configuration allow). */
const presetRoot = z.preprocess(
  (v) => (typeof v === 'string' ? { uri: v } : v),
  z.strictObject({ uri: rootUri, name: z.string().max(PRESET_LIMITS.nameChars).optional() }),
);

/** A preset as exported: everything except its scope. `updatedAt` is optional on import. */
export const presetEntrySchema = z.strictObject({
  name: z.string().min(1).max(PRESET_NAME_MAX),
  roots: z.array(presetRoot).max(PRESET_LIMITS.roots),
  answers: z.record(z.string(), z.record(z.string(), contentValue)),
  config: z.record(z.string(), z.record(z.string(), z.unknown())),
  updatedAt: z.number().int().nonnegative().optional(),
});

/** RFC 6901 pointer for a path of keys and indexes. */
export function pointer(path: ReadonlyArray<PropertyKey>, base = ''): string {
  return base + path.map((p) => '/' + String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/**
 * Every code a {@link PresetIssue} can carry: `json` (the document is not JSON), `duplicate` (a name repeats
 * in the document), `exists` (a preset of that name is already in the scope, with `replace: false`), and
 * the shape rule that failed, named by zod's issue code (`invalid_type`, `unrecognized_keys`, `too_big`, …;
 * `custom` for a root URI the configuration's rules refuse). docs/config.md §Issues lists them.
 */
export const PRESET_ISSUE_CODES = ['json', 'too-large', 'duplicate', 'exists', ...ZOD_ISSUE_CODES] as const satisfies ReadonlyArray<string>;
export type PresetIssueCode = (typeof PRESET_ISSUE_CODES)[number];

/** A finding of `importPresets`: a schema-core {@link Issue} with a {@link PresetIssueCode}. */
export type PresetIssue = Issue<PresetIssueCode>;

/** zod findings as plain {@link Issue}s; `base` is prefixed to every pointer. */
export function zodIssues(error: z.ZodError, base = ''): PresetIssue[] {
  return error.issues.map((i) => {
    const at = pointer(i.path, base);
    const keys = i.code === 'unrecognized_keys' ? ((i as { keys?: string[] }).keys ?? []) : [];
    // zod's code union is checked against PRESET_ISSUE_CODES here: a new zod code fails the type check.
    const code: PresetIssueCode = i.code;
    return {
      code,
      path: at,
      severity: 'error' as const,
      message: `${at || '(document)'}: ${i.message}`,
      ...(keys.length ? { fix: `Remove ${keys.map((k) => JSON.stringify(k)).join(', ')}.` } : {}),
    };
  });
}
