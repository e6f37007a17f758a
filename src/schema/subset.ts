/**
 * The restricted `requestedSchema` subset, per revision, as data.
 *
 * Spec: 2025-06-18 `schema.ts` l.1485-1541 (string/number/boolean/enum; default on boolean only);
 * 2025-11-25 `schema.ts` l.2234-2466 (five enum shapes, defaults on every primitive, `$schema`);
 * 2026-07-28 form rules unchanged from 2025-11-25.
 * @module
 */
import type { FieldKind, PrimitiveSchemaDefinition, Revision } from './types.js';

/** The four `format` values the subset allows on strings. */
export const FORMATS = ['email', 'uri', 'date', 'date-time'] as const;

/** Root keys of a `requestedSchema`; `$schema` only from 2025-11-25 on. */
export function rootKeys(revision: Revision): string[] {
  return revision === '2025-06-18' ? ['type', 'properties', 'required'] : ['$schema', 'type', 'properties', 'required'];
}

/** The JSON Schema dialect a `requestedSchema` without `$schema` uses (2025-11-25 basic §JSON Schema Usage). */
export const DEFAULT_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** Whether `$schema` names JSON Schema 2020-12 (with or without a trailing `#`, http or https). */
export function isDialect2020(uri: string): boolean {
  return /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/.test(uri);
}

const COMMON = ['type', 'title', 'description'];

/** Keywords each field kind may carry, per revision. */
export function allowedKeywords(kind: FieldKind, revision: Revision): string[] {
  const dflt = revision === '2025-06-18' ? [] : ['default'];
  switch (kind) {
    case 'string':
      return [...COMMON, 'minLength', 'maxLength', 'format', ...dflt];
    case 'number':
    case 'integer':
      return [...COMMON, 'minimum', 'maximum', ...dflt];
    case 'boolean':
      return [...COMMON, 'default'];
    case 'enum':
    case 'legacy-titled-enum':
      return [...COMMON, 'enum', 'enumNames', ...dflt];
    case 'titled-enum':
      return [...COMMON, 'oneOf', ...dflt];
    case 'multi-enum':
    case 'titled-multi-enum':
      return [...COMMON, 'items', 'minItems', 'maxItems', ...dflt];
  }
}

/** Field kinds that 2025-06-18 does not have (titled and multi-select enums came with SEP-1330). */
export function kindAvailable(kind: FieldKind, revision: Revision): boolean {
  if (revision !== '2025-06-18') return true;
  return !['titled-enum', 'multi-enum', 'titled-multi-enum'].includes(kind);
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * What the form layer shows for one property, or `undefined` when the property is not one of the
 * subset's shapes. Liberal about a missing `type` next to `enum`/`oneOf` (the normaliser repairs it).
 */
export function fieldKind(prop: unknown): FieldKind | undefined {
  if (!isObj(prop)) return undefined;
  const t = prop.type;
  if (t === 'array') {
    const items = prop.items;
    if (!isObj(items)) return undefined;
    if (Array.isArray(items.enum)) return 'multi-enum';
    if (Array.isArray(items.anyOf) || Array.isArray(items.oneOf)) return 'titled-multi-enum';
    return undefined;
  }
  if (t === undefined || t === 'string') {
    if (Array.isArray(prop.enum)) return Array.isArray(prop.enumNames) ? 'legacy-titled-enum' : 'enum';
    if (Array.isArray(prop.oneOf) || Array.isArray(prop.anyOf)) return 'titled-enum';
    return t === 'string' ? 'string' : undefined;
  }
  if (t === 'number' || t === 'integer' || t === 'boolean') return t;
  return undefined;
}

/** The options of an enum-like property as `{value, label}`, in order. Empty for other kinds. */
export function enumOptions(prop: PrimitiveSchemaDefinition | Record<string, unknown>): Array<{ value: string; label: string }> {
  const p = prop as Record<string, any>;
  const titled = (list: unknown): Array<{ value: string; label: string }> =>
    Array.isArray(list)
      ? list.filter(isObj).map((o) => ({ value: String(o.const), label: typeof o.title === 'string' ? o.title : String(o.const) }))
      : [];
  switch (fieldKind(p)) {
    case 'enum':
      return (p.enum as unknown[]).map((v) => ({ value: String(v), label: String(v) }));
    case 'legacy-titled-enum':
      return (p.enum as unknown[]).map((v, i) => ({
        value: String(v),
        label: typeof p.enumNames[i] === 'string' ? p.enumNames[i] : String(v),
      }));
    case 'titled-enum':
      return titled(Array.isArray(p.oneOf) ? p.oneOf : p.anyOf);
    case 'multi-enum':
      return (p.items.enum as unknown[]).map((v) => ({ value: String(v), label: String(v) }));
    case 'titled-multi-enum':
      return titled(Array.isArray(p.items.anyOf) ? p.items.anyOf : p.items.oneOf);
    default:
      return [];
  }
}
