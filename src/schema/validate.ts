/**
 * `validateContent`: checks accepted elicitation content against its `requestedSchema` with JSON
 * Schema 2020-12 semantics (ajv + ajv-formats, full format mode).
 *
 * Spec: 2025-06-18 / 2025-11-25 elicitation §Security Considerations ("Both parties SHOULD validate
 * elicitation content against the provided schema"); 2025-11-25 basic §JSON Schema Usage (2020-12
 * is the default dialect).
 *
 * Rules beyond plain JSON Schema, so a host and a server agree: no coercion (`"true"` is not a
 * boolean); fields that were not asked for are refused; `title`, `description`, `enumNames` and
 * unknown formats never break validation; `email`, `uri`, `date`, `date-time` are strict (RFC 3339:
 * no Feb 30, a time zone required).
 * @module
 */
import type { IssueCode, ValidationIssueCode } from './codes.js';
import _Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { LRUCache } from 'lru-cache';
import { FORMAT_CHECKS, FORMAT_HINTS } from './formats.js';
import { schemaHash } from './hash.js';
import { isObj, setOwn, tooDeep } from './safe.js';
import { child } from './pointer.js';
import { fieldKind, FORMATS } from './subset.js';
import type { Checked, Content, Issue, RequestedSchema } from './types.js';

type AjvCtor = typeof import('ajv/dist/2020.js').default;
const Ajv2020 = ((_Ajv2020 as unknown as { default?: AjvCtor }).default ?? _Ajv2020) as AjvCtor;

// ownProperties: inherited keys (`constructor`, `toString`) never satisfy `required`.
// strictNumbers: NaN and ±Infinity are not numbers (they become null on the wire).
const ajv = new Ajv2020({
  allErrors: true,
  strict: false,
  coerceTypes: false,
  useDefaults: false,
  validateFormats: true,
  ownProperties: true,
  strictNumbers: true,
});
for (const [name, check] of Object.entries(FORMAT_CHECKS)) ajv.addFormat(name, { type: 'string', validate: check });

/** Most compiled validators kept (per key kind); beyond it the least recently used is evicted (lru-cache). */
export const VALIDATOR_CACHE_SIZE = 512;
const byHash = new LRUCache<string, ValidateFunction>({ max: VALIDATOR_CACHE_SIZE });
/** First level: the schema's own JSON text (native, fast); the canonical hash only on a miss. */
const byText = new LRUCache<string, ValidateFunction>({ max: VALIDATOR_CACHE_SIZE });
const byObject = new WeakMap<object, ValidateFunction>();

type Obj = Record<string, unknown>;

/** The JSON Schema actually compiled: only validation keywords of the subset, closed object. */
export function validationSchema(schema: RequestedSchema): Obj {
  const properties: Obj = {};
  for (const [name, prop] of Object.entries(isObj(schema.properties) ? schema.properties : {})) {
    const p = prop as unknown as Obj;
    const kind = fieldKind(p);
    const out: Obj = {};
    switch (kind) {
      case 'string':
        out.type = 'string';
        for (const k of ['minLength', 'maxLength']) if (typeof p[k] === 'number') out[k] = p[k];
        if ((FORMATS as readonly unknown[]).includes(p.format)) out.format = p.format;
        break;
      case 'number':
      case 'integer':
        out.type = kind;
        for (const k of ['minimum', 'maximum']) if (typeof p[k] === 'number') out[k] = p[k];
        break;
      case 'boolean':
        out.type = 'boolean';
        break;
      case 'enum':
      case 'legacy-titled-enum':
        Object.assign(out, { type: 'string', enum: p.enum });
        break;
      case 'titled-enum':
        Object.assign(out, {
          type: 'string',
          enum: ((Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : []) as Obj[]).map((o) => o?.const),
        });
        break;
      case 'multi-enum':
      case 'titled-multi-enum': {
        const items = p.items as Obj;
        const list = Array.isArray(items.anyOf) ? items.anyOf : Array.isArray(items.oneOf) ? items.oneOf : [];
        const values = kind === 'multi-enum' ? items.enum : (list as Obj[]).map((o) => o?.const);
        Object.assign(out, { type: 'array', items: { type: 'string', enum: values }, uniqueItems: true });
        for (const k of ['minItems', 'maxItems']) if (typeof p[k] === 'number') out[k] = p[k];
        break;
      }
      default:
        out.not = {}; // an unrenderable property accepts no value
    }
    setOwn(properties, name, out);
  }
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [];
  return { type: 'object', properties, required, additionalProperties: false };
}

function compiled(schema: RequestedSchema): ValidateFunction {
  const hit = byObject.get(schema);
  if (hit) return hit;
  const text = JSON.stringify(schema);
  let fn = byText.get(text);
  if (!fn) {
    const hash = schemaHash(schema);
    fn = byHash.get(hash);
    if (!fn) {
      // Our caches are bounded; Ajv's own (keyed by schema object) is not, so let it forget the object.
      const js = validationSchema(schema);
      fn = ajv.compile(js);
      ajv.removeSchema(js);
      byHash.set(hash, fn);
    }
    byText.set(text, fn);
  }
  byObject.set(schema, fn);
  return fn;
}

/**
 * Compiles without parley's cache (on the shared, format-enabled ajv instance, then removes the
 * schema again so ajv's own cache does not help); the benchmark's compile-per-call baseline.
 */
export function compileUncached(schema: RequestedSchema): ValidateFunction {
  const js = validationSchema(schema);
  const fn = ajv.compile(js);
  ajv.removeSchema(js);
  return fn;
}

/**
 * Validates `content` against `schema`. Returns `{ok:true, value}` (the same object) or
 * `{ok:false, issues}` where each issue names the field (JSON pointer into the content, e.g.
 * `/age`) and the rule broken (`code` is the JSON Schema keyword: `type`, `minimum`, `required`,
 * `format`, `enum`, `additionalProperties`, …). Never throws.
 * The compiled validator is cached per schema object: treat a schema as immutable once validated
 * (validate a changed copy, not the same object mutated).
 */
export function validateContent(schema: RequestedSchema, content: unknown): Checked<Content> {
  if (!isObj(schema))
    return {
      ok: false,
      issues: [
        {
          code: 'schema',
          path: '',
          severity: 'error',
          message: 'no requestedSchema to validate against',
          fix: 'pass the requestedSchema the answer is for',
        },
      ],
    };
  // A schema object already compiled passed the depth check then (schemas are immutable once validated).
  const known = byObject.get(schema);
  if ((!known && tooDeep(schema)) || tooDeep(content))
    return {
      ok: false,
      issues: [
        {
          code: 'too-deep',
          path: '',
          severity: 'error',
          message: 'the schema or the content nests too deeply to be an elicitation form',
          fix: 'send a flat object',
        },
      ],
    };
  let fn: ValidateFunction;
  try {
    fn = known ?? compiled(schema);
  } catch (e) {
    return {
      ok: false,
      issues: [
        {
          code: 'schema',
          path: '',
          severity: 'error',
          message: `the requestedSchema cannot be compiled (${(e as Error).message}); normalise it first`,
          fix: 'run normalizeRequestedSchema on it',
        },
      ],
    };
  }
  if (fn(content)) return { ok: true, value: content as Content };
  return { ok: false, issues: (fn.errors ?? []).map((e) => toIssue(e, schema)) };
}

function fieldLabel(schema: RequestedSchema, field: string): string {
  const title = (schema.properties?.[field] as { title?: unknown } | undefined)?.title;
  return typeof title === 'string' && title !== field ? `"${field}" (${title})` : `"${field}"`;
}

/** `"tags", item 2:` for an error inside a multi-select answer (`/tags/1`), else the field's label. */
function itemLabel(schema: RequestedSchema, field: string, instancePath: string): string {
  const item = instancePath.split('/')[2];
  return item !== undefined && /^\d+$/.test(item) ? `${fieldLabel(schema, field)}, item ${Number(item) + 1}:` : fieldLabel(schema, field);
}

const plural = (n: unknown, one: string, many: string) => `${String(n)} ${Number(n) === 1 ? one : many}`;

function toIssue(e: ErrorObject, schema: RequestedSchema): Issue<IssueCode> {
  const field = e.instancePath.split('/')[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
  const label = field === undefined ? 'content' : itemLabel(schema, field, e.instancePath);
  // The failed keyword; the subset's validation schemas use only keywords of VALIDATION_ISSUE_CODES
  // (test/api/issue-codes.test.ts).
  const base = { severity: 'error' as const, code: e.keyword as ValidationIssueCode };
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': {
      const f = String(p.missingProperty);
      return { ...base, path: child('', f), message: `${fieldLabel(schema, f)} is required`, fix: `provide a value for "${f}"` };
    }
    case 'additionalProperties': {
      const f = String(p.additionalProperty);
      return {
        ...base,
        path: child('', f),
        message: `"${f}" was not asked for; only fields of the requestedSchema may be sent`,
        fix: `remove "${f}"`,
      };
    }
    case 'type':
      if (e.instancePath === '') return { ...base, path: '', message: 'content must be an object of field values' };
      return { ...base, path: e.instancePath, message: `${label} must be ${p.type === 'integer' ? 'an integer' : `of type ${p.type}`}` };
    case 'enum':
      return { ...base, path: e.instancePath, message: `${label} must be one of ${JSON.stringify(p.allowedValues)}` };
    case 'format':
      return {
        ...base,
        path: e.instancePath,
        message:
          p.format === 'date'
            ? `${label} must be a real calendar date written ${FORMAT_HINTS.date}`
            : p.format === 'date-time'
              ? `${label} must be a date and time written ${FORMAT_HINTS['date-time']}`
              : `${label} must be a valid ${p.format}`,
      };
    case 'not':
      return { ...base, path: e.instancePath, message: `${label} cannot be answered: its schema is outside the subset` };
    // Person-facing text, no validator keyword (the rule stays in `code`, the pointer in `path`).
    case 'minItems':
      return { ...base, path: e.instancePath, message: `${label}: choose at least ${plural(p.limit, 'item', 'items')}` };
    case 'maxItems':
      return { ...base, path: e.instancePath, message: `${label}: choose at most ${plural(p.limit, 'item', 'items')}` };
    case 'uniqueItems':
      return { ...base, path: e.instancePath, message: `${label}: choose each option only once` };
    case 'minLength':
      return { ...base, path: e.instancePath, message: `${label} must be at least ${plural(p.limit, 'character', 'characters')} long` };
    case 'maxLength':
      return { ...base, path: e.instancePath, message: `${label} must be at most ${plural(p.limit, 'character', 'characters')} long` };
    case 'minimum':
      return { ...base, path: e.instancePath, message: `${label} must be at least ${String(p.limit)}` };
    case 'maximum':
      return { ...base, path: e.instancePath, message: `${label} must be at most ${String(p.limit)}` };
    case 'pattern':
      return { ...base, path: e.instancePath, message: `${label} is not in the expected form (${String(p.pattern)})` };
    default:
      return { ...base, path: e.instancePath, message: `${label} is not a valid answer` };
  }
}
