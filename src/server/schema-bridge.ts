/**
 * The only door from `src/server` into the schema core (`src/schema`), so a change of the core's
 * surface touches one file.
 * @module
 */
export { toRequestedSchema, lintRequestedSchema, detectSensitiveFields, readElicitResult, UnsupportedSchemaError } from '../schema/index.js';
export type { ReadElicitResult } from '../schema/index.js';
