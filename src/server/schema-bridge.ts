/**
 * The only door from `src/server` into the schema core (`src/schema`), so a change of the core's
 * surface touches one file.
 *
 * The answer reader (`readElicitResult`, which validates with Ajv) is loaded on first use: a toolkit
 * server needs it only once an elicitation is answered, and leaving Ajv out of start-up saves each
 * server process about 40 ms of module loading (docs/benchmarks-method.md §startup).
 * @module
 */
import type { readElicitResult as ReadFn } from '../schema/result.js';
export { describeIssue, toRequestedSchema, UnsupportedSchemaError } from '../schema/zod.js';
export { lintRequestedSchema } from '../schema/lint.js';
export { detectSensitiveFields } from '../schema/sensitive.js';
export type { ReadElicitResult } from '../schema/result.js';

let reader: Promise<typeof ReadFn> | undefined;

/**
 * `readElicitResult` from the schema core, imported once on first call.
 * @returns a promise of the function; rejects only if the module cannot be loaded (a broken install).
 */
export function loadElicitResultReader(): Promise<typeof ReadFn> {
  reader ??= import('../schema/result.js').then((m) => m.readElicitResult);
  return reader;
}
