/**
 * `lintRequestedSchema`: every rule of the restricted `requestedSchema` subset, per revision, as data.
 *
 * Spec: 2025-06-18 elicitation §Request Schema (l.197-279) and `schema.ts` l.1485-1541;
 * 2025-11-25 §Form Mode Elicitation Requests (l.99-235), `schema.ts` l.2234-2466, basic §JSON Schema
 * Usage (l.136-186); 2026-07-28 form rules (unchanged).
 * @module
 */
import type { IssueCode } from './codes.js';
import { codePoints, FORMAT_CHECKS } from './formats.js';
import { nearest } from './near.js';
import { child } from './pointer.js';
import { firstArray, hasOwn, isObj, show, tooDeep } from './safe.js';
import { detectSensitiveFields } from './sensitive.js';
import { allowedKeywords, DEFAULT_DIALECT, fieldKind, FORMATS, isDialect2020, kindAvailable, rootKeys } from './subset.js';
import type { FieldKind, Issue, Revision, RevisionOptions } from './types.js';
import { LATEST_REVISION } from './types.js';

/** Field types a misspelt "type" is compared with ("did you mean"), and spellings from other languages. */
const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'array'] as const;
const TYPE_ALIASES: Record<string, (typeof FIELD_TYPES)[number]> = {
  bool: 'boolean',
  int: 'integer',
  str: 'string',
  float: 'number',
  double: 'number',
};

type Obj = Record<string, unknown>;
const isNonNegInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

class Collector {
  readonly issues: Issue<IssueCode>[] = [];
  error(code: IssueCode, path: string, message: string, fix?: string): void {
    this.issues.push({ code, path, severity: 'error', message, ...(fix ? { fix } : {}) });
  }
  warn(code: IssueCode, path: string, message: string, fix?: string): void {
    this.issues.push({ code, path, severity: 'warning', message, ...(fix ? { fix } : {}) });
  }
}

/**
 * Lints a `requestedSchema` against the restricted subset of `revision` (default 2026-07-28).
 * Never throws; any input gives issues, each with its JSON pointer `path`, the rule in `message` and,
 * where there is one, the `fix`. Errors break the spec; warnings are what a lenient host reads anyway
 * (an empty form, `pattern`, root keys a strict peer may refuse). Two warnings are outside the spec's
 * schema.ts and a strict client (the SDK v2 Client) refuses the request for them: `unknown-format` (a
 * string `format` other than email, uri, date, date-time) and `missing-items-type`; a server should
 * not send them (`mcp-parley/server` refuses to).
 */
export function lintRequestedSchema(schema: unknown, opts: RevisionOptions = {}): Issue<IssueCode>[] {
  const revision = opts.revision ?? LATEST_REVISION;
  const c = new Collector();
  if (!isObj(schema)) {
    c.error('not-object', '', 'requestedSchema must be a JSON object', 'send {"type":"object","properties":{…}}');
    return c.issues;
  }
  if (tooDeep(schema)) {
    c.error('too-deep', '', 'requestedSchema nests far too deeply to be a flat form', 'send a flat object of primitive properties');
    return c.issues;
  }
  lintRoot(schema, revision, c);
  const props = schema.properties;
  if (isObj(props)) {
    for (const [name, prop] of Object.entries(props)) lintProperty(name, prop, revision, c);
    if (Object.keys(props).length === 0) {
      c.warn(
        'empty-properties',
        '/properties',
        'no properties: this is a confirm-only prompt (accept sends {"action":"accept","content":{}})',
        'ask for fields, or use an empty form only for a deliberate confirmation',
      );
    }
    lintRequired(schema.required, props, c);
  }
  for (const hit of detectSensitiveFields(schema)) {
    const why = hit.where === 'mark' ? `the schema marks it secret: ${hit.matched}` : `${hit.rule}: "${hit.matched}" in its ${hit.where}`;
    c.warn(
      'sensitive-field',
      hit.path,
      `field "${hit.field}" looks like a request for a secret (${why}); servers MUST NOT request sensitive information through form mode`,
      revision === '2025-06-18'
        ? 'revision 2025-06-18 has no URL mode: take credentials and payment data outside elicitation (server configuration, environment, an OAuth flow)'
        : 'use URL-mode elicitation for credentials and payment data',
    );
  }
  return c.issues;
}

function lintRoot(schema: Obj, revision: Revision, c: Collector): void {
  if (schema.type !== 'object') {
    c.error('root-type', '/type', `root "type" must be "object" (got ${show(schema.type)})`, 'set "type": "object"');
  }
  if (!('properties' in schema)) {
    c.error('properties-missing', '/properties', 'root "properties" is required', 'add "properties": {}');
  } else if (!isObj(schema.properties)) {
    c.error(
      'properties-type',
      '/properties',
      '"properties" must be an object mapping field names to primitive schemas',
      'use {"field": {"type": "string"}, …}',
    );
  }
  const allowed = rootKeys(revision);
  for (const key of Object.keys(schema)) {
    if (allowed.includes(key)) continue;
    if (key === '$ref' || key === '$defs' || key === 'definitions') {
      c.error(
        'ref',
        child('', key),
        `"${key}" is not part of the subset: requestedSchema must be a flat object without references`,
        'inline the referenced properties',
      );
    } else if (key === '$schema') {
      c.warn(
        'root-key',
        '/$schema',
        `"$schema" is not a requestedSchema key in revision ${revision} (it arrives in 2025-11-25)`,
        'omit "$schema" for 2025-06-18 peers',
      );
    } else {
      c.warn(
        'root-key',
        child('', key),
        `root key "${key}" is outside the spec (allowed: ${allowed.join(', ')}); a host ignores it and a strict peer may refuse it`,
        `remove "${key}"`,
      );
    }
  }
  if (typeof schema.$schema === 'string' && !isDialect2020(schema.$schema)) {
    c.error(
      'dialect',
      '/$schema',
      `unsupported JSON Schema dialect ${show(schema.$schema)}; requestedSchema uses JSON Schema 2020-12`,
      `omit "$schema" or set it to "${DEFAULT_DIALECT}"`,
    );
  } else if (hasOwn(schema, '$schema') && typeof schema.$schema !== 'string') {
    c.error('dialect', '/$schema', '"$schema" must be a string URI', `omit "$schema" or set it to "${DEFAULT_DIALECT}"`);
  }
}

function lintRequired(required: unknown, props: Obj, c: Collector): void {
  if (required === undefined) return;
  if (!Array.isArray(required)) {
    c.error('required-type', '/required', '"required" must be an array of property names', 'use ["field", …]');
    return;
  }
  const seen = new Set<string>();
  required.forEach((name, i) => {
    const path = child('/required', i);
    if (typeof name !== 'string')
      c.error('required-type', path, `"required" entries must be strings (got ${show(name)})`, 'list property names as strings');
    else if (!hasOwn(props, name))
      c.error(
        'required-missing',
        path,
        `"required" names "${name}", which is not in "properties"`,
        `add a "${name}" property or remove it from "required"`,
      );
    else if (seen.has(name)) c.warn('required-duplicate', path, `"${name}" is listed twice in "required"`, 'list it once');
    if (typeof name === 'string') seen.add(name);
  });
}

function lintProperty(name: string, prop: unknown, revision: Revision, c: Collector): void {
  const path = child('/properties', name);
  if (name === '__proto__') {
    c.error(
      'reserved-name',
      path,
      'a field named "__proto__" is dropped or mishandled by JavaScript JSON Schema validators (ajv included), so its answers cannot be validated',
      'rename the field',
    );
    return;
  }
  if (!isObj(prop)) {
    c.error('property-type', path, `property "${name}" must be a schema object`, 'use {"type": "string"} or another primitive schema');
    return;
  }
  const union = Array.isArray(prop.anyOf) ? prop.anyOf : Array.isArray(prop.oneOf) ? prop.oneOf : undefined;
  if ((union && union.some((b) => isObj(b) && b.type === 'null')) || (Array.isArray(prop.type) && prop.type.includes('null'))) {
    c.error(
      'nullable',
      path,
      `property "${name}" is a nullable union; the subset has no null values`,
      'give it one type and leave it out of "required" to make it optional',
    );
    return;
  }
  if (Array.isArray(prop.type)) {
    c.error(
      'property-type',
      child(path, 'type'),
      `property "${name}" has several types ${show(prop.type)}; each field has exactly one`,
      'pick one of string, number, integer, boolean',
    );
    return;
  }
  if (union && !union.every((b) => isObj(b) && 'const' in b)) {
    c.error(
      'union',
      path,
      `property "${name}" is a union of schemas; only titled options ({"const", "title"}) are allowed`,
      'use one type, or a titled enum',
    );
    return;
  }
  if ('$ref' in prop) {
    c.error(
      'ref',
      child(path, '$ref'),
      `property "${name}" uses "$ref"; requestedSchema must be flat, without references`,
      'inline the referenced schema',
    );
    return;
  }
  if (prop.type === 'object' || isObj(prop.properties)) {
    c.error(
      'nested-object',
      path,
      `property "${name}" is a nested object; only top-level primitive properties are allowed`,
      'flatten it into separate top-level fields',
    );
    return;
  }
  const kind = fieldKind(prop);
  if (!kind) {
    if (prop.type === 'array')
      c.error(
        'array-not-enum',
        path,
        `property "${name}" is an array that is not a multi-select enum; only arrays of string enums are allowed`,
        'use {"type":"array","items":{"type":"string","enum":[…]}}',
      );
    else if (prop.type === undefined)
      c.error('missing-type', child(path, 'type'), `property "${name}" has no "type"`, 'set "type" to string, number, integer or boolean');
    else {
      const meant = typeof prop.type === 'string' ? nearest(prop.type, FIELD_TYPES, { aliases: TYPE_ALIASES }) : undefined;
      c.error(
        'property-type',
        child(path, 'type'),
        `property "${name}" has type ${show(prop.type)}${meant ? `: did you mean "${meant}"?` : ''}; allowed: string, number, integer, boolean, or an array of string enums`,
        meant ? `use "type": "${meant}"` : 'use one of the allowed types',
      );
    }
    return;
  }
  if (prop.type === undefined) {
    c.error('missing-type', child(path, 'type'), `enum property "${name}" has no "type"`, 'add "type": "string"');
  }
  if ((kind === 'number' || kind === 'integer' || kind === 'boolean') && hasOwn(prop, 'enum')) {
    c.error(
      'enum-value-type',
      child(path, 'enum'),
      `enum on a ${kind} field "${name}"; enum values must be strings`,
      'use "type": "string" with string values',
    );
  }
  if (!kindAvailable(kind, revision)) {
    c.error(
      'revision',
      path,
      `property "${name}" is a ${kindLabel(kind)}, which revision ${revision} does not have (added in 2025-11-25)`,
      kind === 'titled-enum'
        ? 'for 2025-06-18 peers send the values as "enum" and their titles as "enumNames" (same order)'
        : 'for 2025-06-18 peers ask one boolean field per option instead, or send this form only to 2025-11-25 or later peers',
    );
  }
  const allowed = allowedKeywords(kind, revision);
  for (const key of Object.keys(prop)) {
    if (allowed.includes(key) || (key === 'type' && prop.type === undefined)) continue;
    if (key === 'enum' && (kind === 'number' || kind === 'integer' || kind === 'boolean')) continue; // reported as enum-value-type
    if (key === 'default') {
      c.error(
        'default-revision',
        child(path, 'default'),
        `"default" on ${article(kindLabel(kind))} is not allowed in revision ${revision} (only booleans have defaults before 2025-11-25)`,
        'remove "default" for 2025-06-18 peers',
      );
    } else if (key === 'format') {
      c.warn(
        'unknown-format',
        child(path, key),
        `format ${show(prop.format)} is not allowed on ${article(kindLabel(kind))}; a lenient host ignores it`,
        'remove "format"',
      );
    } else if (key === 'pattern') {
      c.warn(
        'unknown-keyword',
        child(path, key),
        `"pattern" is not part of the normative schema (it appears only on the 2025-11-25 page); peers ignore or strip it`,
        'validate the value in the server instead',
      );
    } else if (kind === 'titled-enum' && key === 'anyOf') {
      c.error(
        'titled-enum-anyof',
        child(path, key),
        `single-select titled enum "${name}" must use "oneOf", not "anyOf"`,
        'rename "anyOf" to "oneOf"',
      );
    } else {
      c.warn(
        'unknown-keyword',
        child(path, key),
        `keyword "${key}" is not allowed on ${article(kindLabel(kind))} in the subset; peers ignore or strip it`,
        `remove "${key}"`,
      );
    }
  }
  for (const key of ['title', 'description'] as const) {
    if (hasOwn(prop, key) && typeof prop[key] !== 'string')
      c.error('keyword-type', child(path, key), `"${key}" must be a string`, `make "${key}" a string or remove it`);
  }
  lintShape(name, prop, kind, path, c);
}

/** `label` with its indefinite article ("an integer", "a string"). */
function article(label: string): string {
  return /^[aeiou]/.test(label) ? `an ${label}` : `a ${label}`;
}

function kindLabel(kind: FieldKind): string {
  return {
    string: 'string',
    number: 'number',
    integer: 'integer',
    boolean: 'boolean',
    enum: 'single-select enum',
    'legacy-titled-enum': 'legacy titled enum (enumNames)',
    'titled-enum': 'titled single-select enum (oneOf)',
    'multi-enum': 'multi-select enum',
    'titled-multi-enum': 'titled multi-select enum (items.anyOf)',
  }[kind];
}

function lintShape(name: string, p: Obj, kind: FieldKind, path: string, c: Collector): void {
  switch (kind) {
    case 'string': {
      for (const k of ['minLength', 'maxLength'])
        if (hasOwn(p, k) && !isNonNegInt(p[k]))
          c.error('bound-type', child(path, k), `"${k}" must be a non-negative integer`, `set "${k}" to 0 or more`);
      if (isNonNegInt(p.minLength) && isNonNegInt(p.maxLength) && p.minLength > p.maxLength)
        c.error(
          'bounds',
          path,
          `"${name}": minLength ${p.minLength} > maxLength ${p.maxLength}; no value can satisfy it`,
          'swap or correct the bounds',
        );
      if (hasOwn(p, 'format') && !(FORMATS as readonly unknown[]).includes(p.format))
        c.warn(
          'unknown-format',
          child(path, 'format'),
          `format ${show(p.format)} is not one of ${FORMATS.join(', ')} (the spec's StringSchema "format"); a lenient host ignores it, a strict client (the SDK v2 Client) refuses the whole request`,
          'remove "format" or use one of the four',
        );
      break;
    }
    case 'number':
    case 'integer': {
      for (const k of ['minimum', 'maximum'])
        if (hasOwn(p, k) && (typeof p[k] !== 'number' || !Number.isFinite(p[k])))
          c.error('bound-type', child(path, k), `"${k}" must be a finite number`, `set "${k}" to a number`);
      if (typeof p.minimum === 'number' && typeof p.maximum === 'number' && p.minimum > p.maximum)
        c.error(
          'bounds',
          path,
          `"${name}": minimum ${p.minimum} > maximum ${p.maximum}; no value can satisfy it`,
          'swap or correct the bounds',
        );
      else if (
        kind === 'integer' &&
        typeof p.minimum === 'number' &&
        typeof p.maximum === 'number' &&
        Math.ceil(p.minimum) > Math.floor(p.maximum)
      )
        c.error('bounds', path, `"${name}": no integer lies between minimum ${p.minimum} and maximum ${p.maximum}`, 'use integer bounds');
      break;
    }
    case 'enum':
    case 'legacy-titled-enum':
      lintValues(p.enum, child(path, 'enum'), c);
      if (hasOwn(p, 'enumNames')) {
        if (!Array.isArray(p.enumNames) || p.enumNames.some((n) => typeof n !== 'string'))
          c.error(
            'enum-names',
            child(path, 'enumNames'),
            '"enumNames" must be an array of strings',
            'give one string label per enum value',
          );
        else if (Array.isArray(p.enum) && p.enumNames.length !== p.enum.length)
          c.error(
            'enum-names',
            child(path, 'enumNames'),
            `"enumNames" has ${p.enumNames.length} entries but "enum" has ${p.enum.length}`,
            'give one label per enum value, in the same order',
          );
      }
      break;
    case 'titled-enum':
      lintTitled(firstArray(p.oneOf, p.anyOf), child(path, Array.isArray(p.oneOf) ? 'oneOf' : 'anyOf'), c);
      break;
    case 'multi-enum':
    case 'titled-multi-enum': {
      const items = p.items as Obj;
      if (kind === 'multi-enum') {
        lintValues(items.enum, child(path, 'items', 'enum'), c);
        if (items.type !== 'string')
          c.warn(
            'missing-items-type',
            child(path, 'items', 'type'),
            `multi-select "${name}" lacks "items.type": "string", which the spec's schema requires; a lenient host reads it anyway, a strict client (the SDK v2 Client) refuses the whole request`,
            'add "type": "string" to "items"',
          );
      } else {
        if ('oneOf' in items)
          c.error(
            'titled-multi-oneof',
            child(path, 'items', 'oneOf'),
            `titled multi-select "${name}" must use "items.anyOf", not "items.oneOf"`,
            'rename to "anyOf"',
          );
        lintTitled(firstArray(items.anyOf, items.oneOf), child(path, 'items', Array.isArray(items.anyOf) ? 'anyOf' : 'oneOf'), c);
      }
      for (const k of ['minItems', 'maxItems'])
        if (hasOwn(p, k) && !isNonNegInt(p[k]))
          c.error('bound-type', child(path, k), `"${k}" must be a non-negative integer`, `set "${k}" to 0 or more`);
      const count = choices(p, kind)?.length ?? 0;
      if (isNonNegInt(p.minItems) && isNonNegInt(p.maxItems) && p.minItems > p.maxItems)
        c.error(
          'bounds',
          path,
          `"${name}": minItems ${p.minItems} > maxItems ${p.maxItems}; no selection can satisfy it`,
          'swap or correct the bounds',
        );
      else if (isNonNegInt(p.minItems) && count > 0 && p.minItems > count)
        c.error(
          'bounds',
          path,
          `"${name}": minItems ${p.minItems} but only ${count} option(s); no selection can satisfy it`,
          `lower minItems to ${count} or add options`,
        );
      break;
    }
  }
  if (hasOwn(p, 'default')) lintDefault(name, p, kind, child(path, 'default'), c);
}

function lintValues(values: unknown, path: string, c: Collector): void {
  if (!Array.isArray(values) || values.length === 0) {
    c.error('enum-empty', path, 'an enum needs a non-empty array of strings', 'list at least one option');
    return;
  }
  values.forEach((v, i) => {
    if (typeof v !== 'string')
      c.error('enum-value-type', child(path, i), `enum values must be strings (got ${show(v)})`, 'quote the value');
  });
  if (new Set(values).size !== values.length) c.error('enum-duplicate', path, 'enum values must be unique', 'remove the repeated values');
}

function lintTitled(options: unknown, path: string, c: Collector): void {
  if (!Array.isArray(options) || options.length === 0) {
    c.error('enum-empty', path, 'a titled enum needs a non-empty array of {"const", "title"} options', 'list at least one option');
    return;
  }
  const seen = new Set<unknown>();
  options.forEach((o, i) => {
    const p = child(path, i);
    if (!isObj(o))
      return c.error(
        'titled-option',
        p,
        'each option must be an object {"const": string, "title": string}',
        'write the option as {"const": "value", "title": "Label"}',
      );
    if (typeof o.const !== 'string') c.error('titled-option', child(p, 'const'), 'option "const" must be a string', 'quote the value');
    if (typeof o.title !== 'string')
      c.error('titled-option', child(p, 'title'), 'option "title" must be a string', 'add a "title" shown to the user');
    if (seen.has(o.const)) c.error('enum-duplicate', child(p, 'const'), `duplicate option ${show(o.const)}`, 'remove the repeated option');
    seen.add(o.const);
  });
}

/** The allowed values of an enum-like property, or undefined for free-form kinds. */
function choices(p: Obj, kind: FieldKind): unknown[] | undefined {
  if (kind === 'enum' || kind === 'legacy-titled-enum') return Array.isArray(p.enum) ? p.enum : [];
  if (kind === 'titled-enum') return (firstArray(p.oneOf, p.anyOf) ?? []).map((o) => (o as Obj)?.const);
  const items = p.items as Obj | undefined;
  if (kind === 'multi-enum') return Array.isArray(items?.enum) ? items.enum : [];
  if (kind === 'titled-multi-enum') return (firstArray(items?.anyOf, items?.oneOf) ?? []).map((o) => (o as Obj)?.const);
  return undefined;
}

/** Describes why `value` breaks `p`'s own constraints, or undefined when it fits. */
export function defaultProblem(p: Obj, kind: FieldKind, value: unknown): string | undefined {
  const options = choices(p, kind);
  switch (kind) {
    case 'string':
      if (typeof value !== 'string') return 'must be a string';
      if (isNonNegInt(p.minLength) && codePoints(value) < p.minLength) return `is shorter than minLength ${p.minLength}`;
      if (isNonNegInt(p.maxLength) && codePoints(value) > p.maxLength) return `is longer than maxLength ${p.maxLength}`;
      if (typeof p.format === 'string' && hasOwn(FORMAT_CHECKS, p.format) && !FORMAT_CHECKS[p.format as keyof typeof FORMAT_CHECKS](value))
        return `is not a valid ${p.format}`;
      return undefined;
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (kind === 'integer' && !Number.isInteger(value)) return 'must be an integer';
      if (typeof p.minimum === 'number' && value < p.minimum) return `is below minimum ${p.minimum}`;
      if (typeof p.maximum === 'number' && value > p.maximum) return `is above maximum ${p.maximum}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    case 'enum':
    case 'legacy-titled-enum':
    case 'titled-enum':
      return typeof value === 'string' && options!.includes(value) ? undefined : `must be one of ${show(options)}`;
    case 'multi-enum':
    case 'titled-multi-enum': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return 'must be an array of strings';
      const bad = value.find((v) => !options!.includes(v));
      if (bad !== undefined) return `contains ${show(bad)}, which is not an option`;
      if (new Set(value).size !== value.length) return 'repeats an option';
      if (isNonNegInt(p.minItems) && value.length < p.minItems) return `has fewer than minItems ${p.minItems}`;
      if (isNonNegInt(p.maxItems) && value.length > p.maxItems) return `has more than maxItems ${p.maxItems}`;
      return undefined;
    }
  }
}

function lintDefault(name: string, p: Obj, kind: FieldKind, path: string, c: Collector): void {
  const problem = defaultProblem(p, kind, p.default);
  if (problem) c.error('default-invalid', path, `default ${show(p.default)} of "${name}" ${problem}`, 'fix the default or remove it');
}
