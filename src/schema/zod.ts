/**
 * zod 4 → the wire subset: `toRequestedSchema` and the matching typed parse `parseAccepted`.
 *
 * Strict by design: a server toolkit must never send a schema outside the subset of the peer's
 * revision, so any part the wire cannot carry throws `UnsupportedSchemaError` naming it.
 * Spec: elicitation §Request Schema / §Requested Schema (restricted subset) per revision.
 * @module
 */
import type { IssueCode } from './codes.js';
import * as z from 'zod';
import { lintRequestedSchema } from './lint.js';
import { child, pointer } from './pointer.js';
import { hasOwn, isObj, setOwn } from './safe.js';
import { FORMATS } from './subset.js';
import type { Checked, Issue, RequestedSchema, RevisionOptions } from './types.js';
import { LATEST_REVISION } from './types.js';

/** Thrown by `toRequestedSchema` for a zod schema the wire subset cannot carry. */
export class UnsupportedSchemaError extends Error {
  override readonly name = 'UnsupportedSchemaError';
  /**
   * @param code what is unsupported: `'not-object' | 'nested-object' | 'array-not-enum' | 'regex' |
   *   'exclusive-bound' | 'nullable' | 'union' | 'type' | 'keyword' | 'lint'`
   * @param path JSON pointer into the produced JSON Schema (e.g. `/properties/address`)
   */
  constructor(
    readonly code: string,
    readonly path: string,
    message: string,
    readonly issues: Issue<IssueCode>[] = [],
  ) {
    super(message);
  }
}

type Obj = Record<string, any>;
const SAFE = Number.MAX_SAFE_INTEGER;

function titledOptions(list: unknown[], path: string): Array<{ const: string; title: string }> {
  return list.map((o, i) => {
    if (!isObj(o) || typeof o.const !== 'string')
      throw new UnsupportedSchemaError('union', child(path, i), `${path}: only unions of string literals (titled options) are supported`);
    return { const: o.const, title: typeof o.title === 'string' ? o.title : o.const };
  });
}

/** Keywords zod emits that the wire subset can carry (everything else throws). */
const CARRIED = new Set([
  'type',
  'title',
  'description',
  'minLength',
  'maxLength',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'enum',
  'anyOf',
  'oneOf',
  'items',
  'minItems',
  'maxItems',
  'default',
]);

/** The `format` zod gives string checks that are patterns, not formats (`.startsWith()`, `.lowercase()`, …). */
const PATTERN_CHECKS = new Set(['regex', 'starts_with', 'ends_with', 'includes', 'lowercase', 'uppercase']);

function convertProperty(name: string, p: Obj, revision: string): Obj {
  const path = child('/properties', name);
  const fail = (code: string, what: string): never => {
    throw new UnsupportedSchemaError(code, path, `field "${name}" (${path}): ${what}`);
  };
  if (hasOwn(p, 'enum') && p.type !== 'string')
    fail('type', 'enum values must be strings (z.enum of strings); numeric or native enums cannot be sent');
  if (p.format === 'date-time' && typeof p.pattern === 'string' && !p.pattern.includes('[+-]'))
    fail(
      'datetime-offset',
      'z.iso.datetime() refuses time-zone offsets, but hosts send any RFC 3339 date-time; use z.iso.datetime({ offset: true })',
    );
  if (Array.isArray(p.type) && p.type.includes('null')) fail('nullable', 'nullable types cannot be sent; make the field optional instead');
  if (Array.isArray(p.type)) fail('union', `a union of types ${JSON.stringify(p.type)} cannot be sent; use one type per field`);
  if (p.type === 'object' || isObj(p.properties)) fail('nested-object', 'nested objects are not allowed; flatten into top-level fields');
  if ('exclusiveMinimum' in p || 'exclusiveMaximum' in p)
    fail('exclusive-bound', 'exclusive bounds (positive(), gt(), lt()) cannot be sent; use min()/max()');
  // A zod string format outside the four (z.uuid(), z.ipv4(), z.iso.time(), …) comes with its pattern:
  // named as the format the author wrote, not as a regular expression they did not write. zod also marks
  // some string checks as formats (.startsWith() → "starts_with"): those are regular expressions.
  if ('format' in p && !(FORMATS as readonly unknown[]).includes(p.format) && !PATTERN_CHECKS.has(p.format))
    fail(
      'keyword',
      `string format "${p.format}" cannot be sent: a requestedSchema format is one of ${FORMATS.join(', ')}; use z.string() and check the value with .refine() (an answer that fails it is asked again)`,
    );
  if ('pattern' in p && !(FORMATS as readonly unknown[]).includes(p.format))
    fail('regex', 'regular expressions (regex(), startsWith(), …) cannot be sent; validate in the tool instead');
  for (const key of Object.keys(p)) {
    if (CARRIED.has(key)) continue;
    if (key === 'const') fail('keyword', 'a single literal cannot be sent; use z.enum([value]) or a default');
    if (key === 'allOf') fail('regex', 'combined checks (e.g. .regex() on top of a format) cannot be sent; validate in the tool instead');
    fail(
      'keyword',
      `"${key}" (${key === 'multipleOf' ? '.multipleOf()' : 'a zod check'}) cannot be sent in a requestedSchema; validate it in the tool instead`,
    );
  }
  const out: Obj = {};
  if (typeof p.title === 'string') out.title = p.title;
  if (typeof p.description === 'string') out.description = p.description;
  if (Array.isArray(p.anyOf) || Array.isArray(p.oneOf)) {
    out.type = 'string';
    const options = titledOptions(p.anyOf ?? p.oneOf, child(path, 'anyOf'));
    // 2025-06-18 has no titled options (oneOf of const/title): the same choice goes as its enum + enumNames.
    if (revision === '2025-06-18') {
      out.enum = options.map((o) => o.const);
      if (options.some((o) => o.title !== o.const)) out.enumNames = options.map((o) => o.title);
    } else out.oneOf = options;
  } else if (p.type === 'array') {
    const items = p.items;
    if (isObj(items) && Array.isArray(items.enum)) out.items = { type: 'string', enum: items.enum };
    else if (isObj(items) && (Array.isArray(items.anyOf) || Array.isArray(items.oneOf)))
      out.items = { anyOf: titledOptions(items.anyOf ?? items.oneOf, child(path, 'items', 'anyOf')) };
    else fail('array-not-enum', 'arrays are allowed only as multi-selects of string enums (z.array(z.enum([...])))');
    out.type = 'array';
    if (typeof p.minItems === 'number') out.minItems = p.minItems;
    if (typeof p.maxItems === 'number') out.maxItems = p.maxItems;
  } else if (p.type === 'string') {
    out.type = 'string';
    if (Array.isArray(p.enum)) {
      if (p.enum.some((v: unknown) => typeof v !== 'string')) fail('type', 'enum values must be strings');
      out.enum = p.enum;
    } else {
      if (typeof p.minLength === 'number') out.minLength = p.minLength;
      if (typeof p.maxLength === 'number') out.maxLength = p.maxLength;
      if (typeof p.format === 'string') out.format = p.format;
    }
  } else if (p.type === 'number' || p.type === 'integer') {
    out.type = p.type;
    if (typeof p.minimum === 'number' && p.minimum > -SAFE) out.minimum = p.minimum;
    if (typeof p.maximum === 'number' && p.maximum < SAFE) out.maximum = p.maximum;
  } else if (p.type === 'boolean') {
    out.type = 'boolean';
  } else {
    fail('type', `type ${JSON.stringify(p.type ?? 'unknown')} cannot be sent (string, number, integer, boolean, enum, multi-select only)`);
  }
  if ('default' in p && (revision !== '2025-06-18' || out.type === 'boolean')) out.default = p.default;
  return out;
}

/**
 * Converts a zod object schema to a `requestedSchema` for `revision` (default 2026-07-28).
 * Defaults are kept from 2025-11-25 on; on 2025-06-18 only boolean defaults are kept (the toolkit
 * applies the others itself). Titles come from `.meta({title})`, descriptions from `.describe()`;
 * titled options are unions of `z.literal(v).meta({title})` (on 2025-06-18, which has no titled options,
 * they are sent as `enum` + `enumNames`, that revision's titled enum).
 * @throws UnsupportedSchemaError naming the field and the part (nesting, regex, exclusive bounds,
 *   nullable, non-literal unions, other types), or code `'lint'` with the lint issues.
 */
export function toRequestedSchema(schema: z.ZodType, opts: RevisionOptions = {}): RequestedSchema {
  const revision = opts.revision ?? LATEST_REVISION;
  let json: Obj;
  try {
    json = toJson(schema) as Obj;
  } catch (e) {
    throw unrepresentable(schema, e as Error);
  }
  if (json.type !== 'object' || !isObj(json.properties))
    throw new UnsupportedSchemaError('not-object', '', 'requestedSchema must come from a z.object({...})');
  const out: RequestedSchema = { type: 'object', properties: {} };
  for (const [name, prop] of Object.entries(json.properties)) setOwn(out.properties, name, convertProperty(name, prop as Obj, revision));
  if (Array.isArray(json.required) && json.required.length > 0) out.required = [...json.required];
  const errors = lintRequestedSchema(out, { revision }).filter((i) => i.severity === 'error');
  if (errors.length > 0)
    throw new UnsupportedSchemaError(
      errors[0].code === 'revision' ? 'revision' : 'lint',
      errors[0].path,
      `schema is outside the ${revision} subset: ${errors.map(describeIssue).join('; ')}`,
      errors,
    );
  return out;
}

/** One lint issue as one clause for a person: `<pointer>: <rule>; fix: <fix>`. */
export function describeIssue(i: Issue): string {
  return `${i.path || '(root)'}: ${i.message}${i.fix ? `; fix: ${i.fix}` : ''}`;
}

const toJson = (s: z.ZodType) => z.toJSONSchema(s, { target: 'draft-2020-12', io: 'input', unrepresentable: 'throw' });

/**
 * The error for a zod schema `z.toJSONSchema` cannot express (`z.date()`, `z.bigint()`, `z.map()`, …),
 * naming the first field that fails on its own and its pointer (only on this error path).
 */
function unrepresentable(schema: z.ZodType, err: Error): UnsupportedSchemaError {
  const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
  for (const [name, field] of Object.entries(shape)) {
    try {
      toJson(z.object({ [name]: field }));
    } catch (e) {
      const path = child('/properties', name);
      const hint = /Date/.test((e as Error).message)
        ? 'use z.iso.date() (format date) or z.iso.datetime({ offset: true }) (format date-time), and convert the answer in the tool'
        : 'use a string, number, integer, boolean or string enum field, and convert the answer in the tool';
      return new UnsupportedSchemaError('type', path, `field "${name}" (${path}): ${(e as Error).message}; ${hint}`);
    }
  }
  return new UnsupportedSchemaError('type', '', `schema cannot be expressed as JSON Schema: ${err.message}`);
}

/** Parses accepted content with the zod schema it was built from; issues as data (JSON pointers). */
export function parseAccepted<T extends z.ZodType>(schema: T, content: unknown): Checked<z.infer<T>> {
  const r = schema.safeParse(content);
  if (r.success) return { ok: true, value: r.data };
  return {
    ok: false,
    issues: r.error.issues.map((i) => ({
      code: i.code,
      path: pointer(...i.path.map(String)),
      severity: 'error' as const,
      message: `${i.path.join('.') || 'content'}: ${i.message}`,
    })),
  };
}
