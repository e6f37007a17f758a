/**
 * Shared types of the elicitation schema core.
 *
 * Spec: MCP `client/elicitation` (2025-06-18 §Request Schema; 2025-11-25 §Form Mode Elicitation
 * Requests; 2026-07-28 §Form mode) and `schema.ts` `PrimitiveSchemaDefinition`.
 * @module
 */

import type { IssueCode, RepairCode } from './codes.js';

/** The protocol revisions parley speaks. */
export type Revision = '2025-06-18' | '2025-11-25' | '2026-07-28';

/** Every revision, oldest first. */
export const REVISIONS: readonly Revision[] = ['2025-06-18', '2025-11-25', '2026-07-28'];

/** The newest revision; the default wherever a `revision` option is omitted. */
export const LATEST_REVISION: Revision = '2026-07-28';

/** Options taken by every revision-dependent function. */
export interface RevisionOptions {
  /** Protocol revision whose rules apply. @default '2026-07-28' */
  revision?: Revision;
}

/**
 * One finding, as plain data. `C` narrows the code: the schema core's findings are `Issue<IssueCode>`,
 * configuration findings `ConfigIssue` (its own codes). `path` is a JSON pointer (RFC 6901) into the inspected value,
 * `''` for its root.
 */
export interface Issue<C extends string = string> {
  /** Stable machine-readable code, e.g. `'nested-object'`, `'type'`, `'required'` (see {@link IssueCode}). */
  code: C;
  /** JSON pointer into the inspected value. */
  path: string;
  severity: 'error' | 'warning';
  /** One sentence for a person: what is wrong and the rule broken. */
  message: string;
  /** How to fix it, when there is a clear fix. */
  fix?: string;
}

/** A change the liberal reader made so that a schema can be shown as a flat form. */
export interface Repair {
  code: RepairCode;
  /** JSON pointer into the *input* schema. */
  path: string;
  message: string;
}

/** A titled option of a `oneOf`/`anyOf` enum. */
export interface TitledOption {
  const: string;
  title: string;
}

export interface StringSchema {
  type: 'string';
  title?: string;
  description?: string;
  minLength?: number;
  maxLength?: number;
  format?: 'email' | 'uri' | 'date' | 'date-time';
  /** 2025-11-25 and later. */
  default?: string;
}

export interface NumberSchema {
  type: 'number' | 'integer';
  title?: string;
  description?: string;
  minimum?: number;
  maximum?: number;
  /** 2025-11-25 and later. */
  default?: number;
}

export interface BooleanSchema {
  type: 'boolean';
  title?: string;
  description?: string;
  default?: boolean;
}

/** `enum` (+ legacy `enumNames`): untitled single-select, or the legacy titled shape. */
export interface UntitledSingleSelectEnumSchema {
  type: 'string';
  title?: string;
  description?: string;
  enum: string[];
  /** Legacy titles (LegacyTitledEnumSchema); valid in every revision. */
  enumNames?: string[];
  default?: string;
}

export interface TitledSingleSelectEnumSchema {
  type: 'string';
  title?: string;
  description?: string;
  oneOf: TitledOption[];
  default?: string;
}

export interface UntitledMultiSelectEnumSchema {
  type: 'array';
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { type: 'string'; enum: string[] };
  default?: string[];
}

export interface TitledMultiSelectEnumSchema {
  type: 'array';
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { anyOf: TitledOption[] };
  default?: string[];
}

export type EnumSchema =
  | UntitledSingleSelectEnumSchema
  | TitledSingleSelectEnumSchema
  | UntitledMultiSelectEnumSchema
  | TitledMultiSelectEnumSchema;

export type PrimitiveSchemaDefinition = StringSchema | NumberSchema | BooleanSchema | EnumSchema;

/** A `requestedSchema` in the restricted subset: a flat object of primitives. */
export interface RequestedSchema {
  /** 2025-11-25 and later only. */
  $schema?: string;
  type: 'object';
  properties: Record<string, PrimitiveSchemaDefinition>;
  required?: string[];
}

/** What the form layer shows for one property; see `fieldKind`. */
export type FieldKind =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'enum' // untitled single-select (`enum`)
  | 'legacy-titled-enum' // `enum` + `enumNames`
  | 'titled-enum' // `oneOf` of {const,title}
  | 'multi-enum' // array of `items.enum`
  | 'titled-multi-enum'; // array of `items.anyOf`

/** A value inside accepted elicitation content (2025-11-25 `ElicitResult.content`). */
export type ContentValue = string | number | boolean | string[];

/** Accepted elicitation content. */
export type Content = Record<string, ContentValue>;

/** `{ok:true, value}` or `{ok:false, issues}`: the result shape used across the schema core. */
export type Checked<T> = { ok: true; value: T } | { ok: false; issues: Issue<IssueCode>[] };
