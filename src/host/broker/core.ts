/**
 * The broker's one import point for the schema core (`src/schema`): normalise, validate, prefill
 * defaults, sensitive-field detection and the remember key.
 * @module
 */
export {
  checkMessageLimits,
  checkSchemaLimits,
  excerpt,
  DEFAULT_LIMITS,
  applyDefaults,
  detectSensitiveFields,
  lintRequestedSchema,
  normalizeRequestedSchema,
  schemaHash,
  validateContent,
} from '../../schema/index.js';
