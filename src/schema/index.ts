/**
 * mcp-parley/schema: the elicitation form-schema subset of every protocol revision.
 * Pure: no I/O and no `node:` modules.
 * @module
 */
export * from './types.js';
export { lintRequestedSchema } from './lint.js';
export { normalizeRequestedSchema, type NormalizeResult } from './normalize.js';
export { validateContent, validationSchema, compileUncached, VALIDATOR_CACHE_SIZE } from './validate.js';
export { applyDefaults, coerceFormValues } from './form.js';
export { detectSensitiveFields, type SensitiveHit } from './sensitive.js';
export { toRequestedSchema, parseAccepted, UnsupportedSchemaError } from './zod.js';
export {
  readElicitResult,
  ELICIT_ACTIONS,
  INVALID_PARAMS,
  type ElicitAction,
  type ElicitOutcome,
  type ReadElicitResult,
} from './result.js';
export { schemaHash, canonicalJson } from './hash.js';
export { fieldKind, enumOptions, FORMATS, DEFAULT_DIALECT } from './subset.js';
export { FORMAT_HINTS, formatHint } from './formats.js';
export { findRequestedSchemas, type FoundSchema, type FoundSchemas } from './message.js';
export { pointer } from './pointer.js';
export {
  fileUriToPath,
  pathToFileUri,
  normalizeRootUri,
  isFileUri,
  uriScheme,
  UriError,
  type PathPlatform,
  type UriOptions,
  type UriErrorCode,
} from './uri.js';
export { DEFAULT_LIMITS, checkSchemaLimits, checkMessageLimits, excerpt, utf8Bytes, type RequestLimits } from './limits.js';
export { fillFromUri, TEMPLATE_FILL_MAX_URI, TEMPLATE_FILL_MAX_VARS, type TemplateLike, type TemplateFill } from './template-fill.js';
