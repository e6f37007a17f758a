/**
 * The shape of a preset body (roots, answers, config) as a zod schema, and the conversion of its
 * findings into {@link Issue}s with JSON pointers. Shared by `savePreset` and `importPresets`.
 * @module
 */
import { z } from 'zod';
import type { Issue } from '../../schema/types.js';

/** Longest preset name, in characters. */
export const PRESET_NAME_MAX = 200;

const contentValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

/** A preset as exported: everything except its scope. `updatedAt` is optional on import. */
export const presetEntrySchema = z.strictObject({
  name: z.string().min(1).max(PRESET_NAME_MAX),
  roots: z.array(z.strictObject({ uri: z.string().min(1), name: z.string().optional() })),
  answers: z.record(z.string(), z.record(z.string(), contentValue)),
  config: z.record(z.string(), z.record(z.string(), z.unknown())),
  updatedAt: z.number().int().nonnegative().optional(),
});

/** RFC 6901 pointer for a path of keys and indexes. */
export function pointer(path: ReadonlyArray<PropertyKey>, base = ''): string {
  return base + path.map((p) => '/' + String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/** zod findings as plain {@link Issue}s; `base` is prefixed to every pointer. */
export function zodIssues(error: z.ZodError, base = ''): Issue[] {
  return error.issues.map((i) => {
    const at = pointer(i.path, base);
    const keys = i.code === 'unrecognized_keys' ? ((i as { keys?: string[] }).keys ?? []) : [];
    return {
      code: i.code,
      path: at,
      severity: 'error' as const,
      message: `${at || '(document)'}: ${i.message}`,
      ...(keys.length ? { fix: `Remove ${keys.map((k) => JSON.stringify(k)).join(', ')}.` } : {}),
    };
  });
}
