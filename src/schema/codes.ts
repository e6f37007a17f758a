/**
 * Every code an {@link Issue} or a {@link Repair} of the schema core can carry, as data and as string
 * literal types. The emit sites take these types, so the type checker refuses a code that is not
 * listed here; `test/api/issue-codes.test.ts` checks the lists against what is emitted.
 * @module
 */

/** Codes of schema, request and answer-shape findings (lint, normalise, limits, message, form, result). */
export const SCHEMA_ISSUE_CODES = [
  'action',
  'array-not-enum',
  'bound-type',
  'bounds',
  'default-invalid',
  'default-revision',
  'dialect',
  'elicitation-id',
  'empty-properties',
  'enum-duplicate',
  'enum-empty',
  'enum-names',
  'enum-value-type',
  'enum-values',
  'exclusive-bound',
  'input-request-method',
  'input-requests-type',
  'input-required-empty',
  'keyword',
  'keyword-type',
  'message',
  'missing-items-type',
  'missing-type',
  'mode',
  'nested-object',
  'not-a-boolean',
  'not-a-number',
  'not-an-integer',
  'not-an-option',
  'not-object',
  'not-text',
  'nullable',
  'params',
  'properties-missing',
  'properties-type',
  'property-type',
  'ref',
  'ref-recursive',
  'ref-unresolvable',
  'regex',
  'requested-schema',
  'required-duplicate',
  'required-missing',
  'required-type',
  'reserved-name',
  'revision',
  'root-key',
  'root-type',
  'schema',
  'sensitive-field',
  'titled-enum-anyof',
  'titled-multi-oneof',
  'titled-option',
  'too-deep',
  'too-large',
  'type',
  'union',
  'unknown-field',
  'unknown-format',
  'unknown-keyword',
  'unsupported-field',
  'url',
] as const;
export type SchemaIssueCode = (typeof SCHEMA_ISSUE_CODES)[number];

/**
 * zod 4's issue codes, the rule named by a finding that came from a zod schema (answers through
 * `parseAccepted`, preset imports). A code zod adds fails the type check where a zod issue is converted.
 */
export const ZOD_ISSUE_CODES = [
  'custom',
  'invalid_element',
  'invalid_format',
  'invalid_key',
  'invalid_type',
  'invalid_union',
  'invalid_value',
  'not_multiple_of',
  'too_big',
  'too_small',
  'unrecognized_keys',
] as const;

/**
 * Codes of answer-validation findings: the JSON Schema keyword that failed (`validateContent`, ajv over
 * the subset), or zod's issue code (`parseAccepted`).
 */
export const VALIDATION_ISSUE_CODES = [
  'additionalProperties',
  'anyOf',
  'const',
  'enum',
  'format',
  'items',
  'maxItems',
  'maxLength',
  'maximum',
  'minItems',
  'minLength',
  'minimum',
  'not',
  'oneOf',
  'pattern',
  'required',
  'type',
  'uniqueItems',
  ...ZOD_ISSUE_CODES,
] as const;
export type ValidationIssueCode = (typeof VALIDATION_ISSUE_CODES)[number];

/** Every {@link Issue} code of the schema core. */
export type IssueCode = SchemaIssueCode | ValidationIssueCode;

/** Codes of the changes `normalizeRequestedSchema` makes. */
export const REPAIR_CODES = [
  'anyof-to-oneof',
  'bound-dropped',
  'bounds-dropped',
  'default-dropped',
  'enum-names-dropped',
  'format-dropped',
  'items-oneof-to-anyof',
  'items-type-added',
  'keyword-dropped',
  'nullable-collapsed',
  'option-title-added',
  'properties-added',
  'ref-inlined',
  'required-dropped',
  'required-entry-dropped',
  'root-key-dropped',
  'root-type-added',
  'type-added',
] as const;
export type RepairCode = (typeof REPAIR_CODES)[number];
