/**
 * `normalizeRequestedSchema`: the liberal reader a host applies to what real servers send.
 *
 * It turns near-miss schemas into the flat subset and lists every repair, or refuses with issues
 * when the schema cannot be shown as a flat form (nested objects, arrays of objects, unresolvable
 * or recursive references). Kinds of repair (see `../shared/vectors/schemas.json` S2-S5):
 * non-spec root keys dropped; local `$ref`/`$defs` inlined; `type:"string"` added to enums and
 * titled `oneOf`s; single-select `anyOf` → `oneOf`; nullable unions collapsed; `items.type` added to
 * enum arrays; titled multi-select `items.oneOf` → `items.anyOf`; unknown formats and keywords
 * dropped; defaults that break their own constraints dropped; `required` entries naming missing
 * properties dropped.
 * @module
 */
import type { IssueCode, RepairCode } from './codes.js';
import { defaultProblem } from './lint.js';
import { child } from './pointer.js';
import { getOwn, hasOwn, isObj, setOwn, show, tooDeep } from './safe.js';
import { allowedKeywords, fieldKind, FORMATS, isDialect2020, rootKeys } from './subset.js';
import type { Issue, Repair, RequestedSchema, RevisionOptions } from './types.js';
import { LATEST_REVISION } from './types.js';

type Obj = Record<string, unknown>;

export type NormalizeResult = { ok: true; schema: RequestedSchema; repairs: Repair[] } | { ok: false; issues: Issue<IssueCode>[] };

/** Bound on `$ref` inlining depth; deeper chains are treated as recursive. */
const MAX_REF_DEPTH = 16;

/**
 * Normalises `schema` for `revision` (default 2026-07-28). Never throws.
 * Revision-specific features (multi-select, defaults) are kept even on older revisions: a host
 * renders what it is sent; `lintRequestedSchema` reports the mismatch.
 */
export function normalizeRequestedSchema(schema: unknown, opts: RevisionOptions = {}): NormalizeResult {
  const revision = opts.revision ?? LATEST_REVISION;
  const repairs: Repair[] = [];
  const issues: Issue<IssueCode>[] = [];
  const fail = (code: IssueCode, path: string, message: string, fix?: string) =>
    issues.push({ code, path, severity: 'error', message, ...(fix ? { fix } : {}) });
  const repair = (code: RepairCode, path: string, message: string) => repairs.push({ code, path, message });

  if (!isObj(schema)) {
    fail('not-object', '', 'requestedSchema must be a JSON object', 'send {"type":"object","properties":{…}}');
    return { ok: false, issues };
  }
  if (tooDeep(schema)) {
    fail('too-deep', '', 'requestedSchema nests far too deeply to be shown as a form', 'send a flat object of primitive properties');
    return { ok: false, issues };
  }
  if (schema.type !== 'object') {
    if (schema.type === undefined && isObj(schema.properties)) repair('root-type-added', '/type', 'added "type": "object"');
    else {
      fail('root-type', '/type', `root "type" must be "object" (got ${show(schema.type)})`, 'set "type": "object"');
      return { ok: false, issues };
    }
  }
  let propsIn: unknown = schema.properties;
  if (propsIn === undefined) {
    repair('properties-added', '/properties', 'added empty "properties"');
    propsIn = {};
  }
  if (!isObj(propsIn)) {
    fail('properties-type', '/properties', '"properties" must be an object');
    return { ok: false, issues };
  }
  const defs = { ...(isObj(schema.definitions) ? schema.definitions : {}), ...(isObj(schema.$defs) ? schema.$defs : {}) };
  const out: RequestedSchema = { type: 'object', properties: {} };
  for (const key of Object.keys(schema)) {
    if (key === 'type' || key === 'properties' || key === 'required') continue;
    if (
      key === '$schema' &&
      rootKeys(revision).includes('$schema') &&
      typeof schema.$schema === 'string' &&
      isDialect2020(schema.$schema)
    ) {
      out.$schema = schema.$schema;
      continue;
    }
    repair('root-key-dropped', child('', key), `dropped root key "${key}" (outside the spec)`);
  }

  for (const [name, raw] of Object.entries(propsIn)) {
    const path = child('/properties', name);
    if (name === '__proto__') {
      fail(
        'reserved-name',
        path,
        'a field named "__proto__" cannot be validated safely (JSON Schema validators in JavaScript drop it)',
        'ask the server to rename the field',
      );
      continue;
    }
    const resolved = resolveRefs(raw, defs, path, repair, fail, 0);
    if (resolved === undefined) continue;
    const prop = normalizeProperty(name, resolved, path, revision, repair, fail);
    if (prop) setOwn(out.properties, name, prop);
  }
  if (issues.length > 0) return { ok: false, issues };

  if (schema.required !== undefined) {
    if (!Array.isArray(schema.required)) repair('required-dropped', '/required', 'dropped "required": it is not an array');
    else {
      const req: string[] = [];
      schema.required.forEach((n, i) => {
        if (typeof n === 'string' && hasOwn(out.properties, n) && !req.includes(n)) req.push(n);
        else
          repair(
            'required-entry-dropped',
            child('/required', i),
            `dropped "required" entry ${show(n)} (${typeof n === 'string' && req.includes(n) ? 'listed twice' : 'not a property of the form'})`,
          );
      });
      if (req.length > 0) out.required = req;
    }
  }
  return { ok: true, schema: out, repairs };
}

type RepairFn = (code: RepairCode, path: string, message: string) => void;
type FailFn = (code: IssueCode, path: string, message: string, fix?: string) => void;

function resolveRefs(raw: unknown, defs: Obj, path: string, repair: RepairFn, fail: FailFn, depth: number): Obj | undefined {
  if (!isObj(raw)) {
    fail('property-type', path, 'a property must be a schema object');
    return undefined;
  }
  if (typeof raw.$ref !== 'string') return raw;
  const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(raw.$ref);
  const target = m ? getOwn(defs, m[2].replace(/~1/g, '/').replace(/~0/g, '~')) : undefined;
  if (!m || !isObj(target)) {
    fail(
      'ref-unresolvable',
      child(path, '$ref'),
      `cannot resolve "$ref": ${show(raw.$ref)} (only local #/$defs/… references are inlined)`,
      'inline the referenced schema',
    );
    return undefined;
  }
  if (depth >= MAX_REF_DEPTH) {
    fail('ref-recursive', child(path, '$ref'), `"$ref" chain deeper than ${MAX_REF_DEPTH}: recursive references cannot be shown as a form`);
    return undefined;
  }
  repair('ref-inlined', child(path, '$ref'), `inlined ${raw.$ref}`);
  const { $ref: _ignored, ...rest } = raw;
  const inner = resolveRefs(target, defs, path, repair, fail, depth + 1);
  return inner ? { ...inner, ...rest } : undefined;
}

/** Collapses `anyOf/oneOf: [X, {type:"null"}]` and `type: [T, "null"]` to X / T. */
function collapseNullable(p: Obj, path: string, repair: RepairFn): Obj {
  if (Array.isArray(p.type)) {
    const types = p.type.filter((t) => t !== 'null');
    if (types.length === 1) {
      repair('nullable-collapsed', child(path, 'type'), `"type" ${show(p.type)} → ${show(types[0])}`);
      return { ...p, type: types[0] };
    }
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = p[key];
    if (!Array.isArray(list)) continue;
    const nonNull = list.filter((s) => !(isObj(s) && s.type === 'null'));
    if (nonNull.length === 1 && list.length === 2 && isObj(nonNull[0]) && !('const' in nonNull[0])) {
      repair('nullable-collapsed', child(path, key), `collapsed nullable "${key}" to its non-null branch`);
      const { [key]: _x, ...rest } = p;
      return { ...nonNull[0], ...rest };
    }
  }
  return p;
}

function normalizeProperty(name: string, input: Obj, path: string, revision: string, repair: RepairFn, fail: FailFn): Obj | undefined {
  let p: Obj = collapseNullable({ ...input }, path, repair);
  if (p.type === 'object' || isObj(p.properties)) {
    fail('nested-object', path, `property "${name}" is a nested object; it cannot be shown as a flat form`);
    return undefined;
  }
  if (p.type === 'array') {
    const items = isObj(p.items) ? { ...p.items } : undefined;
    if (!items || !(Array.isArray(items.enum) || Array.isArray(items.anyOf) || Array.isArray(items.oneOf))) {
      fail('array-not-enum', path, `property "${name}" is an array that is not a multi-select of strings; it cannot be shown as a form`);
      return undefined;
    }
    for (const key of Object.keys(items)) {
      if (!['type', 'enum', 'anyOf', 'oneOf'].includes(key))
        repair('keyword-dropped', child(path, 'items', key), `dropped keyword "${key}" of the "${name}" items (outside the subset)`);
    }
    if (!Array.isArray(items.enum) && items.type !== undefined)
      repair(
        'keyword-dropped',
        child(path, 'items', 'type'),
        `dropped "items.type" of titled multi-select "${name}" (items.anyOf carries the options)`,
      );
    if (Array.isArray(items.enum) && items.type !== 'string') {
      items.type = 'string';
      repair('items-type-added', child(path, 'items', 'type'), 'added "type": "string" to the multi-select items');
    }
    if (!Array.isArray(items.enum) && Array.isArray(items.oneOf) && !Array.isArray(items.anyOf)) {
      items.anyOf = items.oneOf;
      delete items.oneOf;
      repair('items-oneof-to-anyof', child(path, 'items', 'oneOf'), 'renamed titled multi-select "items.oneOf" to "items.anyOf"');
    }
    if (!Array.isArray(items.enum)) delete items.type;
    p.items = Array.isArray(items.enum) ? { type: 'string', enum: items.enum } : { anyOf: items.anyOf };
  } else if (p.type === undefined && (Array.isArray(p.enum) || Array.isArray(p.oneOf) || Array.isArray(p.anyOf))) {
    p.type = 'string';
    repair('type-added', child(path, 'type'), `added "type": "string" to enum property "${name}"`);
  }
  if (p.type === 'string' && !Array.isArray(p.enum) && !Array.isArray(p.oneOf) && Array.isArray(p.anyOf)) {
    p = { ...p, oneOf: p.anyOf };
    delete p.anyOf;
    repair('anyof-to-oneof', child(path, 'anyOf'), `renamed single-select "anyOf" of "${name}" to "oneOf"`);
  }
  const kind = fieldKind(p);
  if (!kind) {
    fail(
      'property-type',
      path,
      `property "${name}" (type ${show(p.type)}) is not a string, number, integer, boolean or enum`,
      "use one of the subset's field shapes",
    );
    return undefined;
  }
  if ((kind === 'number' || kind === 'integer' || kind === 'boolean') && hasOwn(p, 'enum')) {
    fail(
      'enum-values',
      child(path, 'enum'),
      `enum on ${kind} field "${name}": only string enums can be shown as choices`,
      'use "type": "string" with string values',
    );
    return undefined;
  }
  // Keep every keyword any revision allows for this kind (liberal), drop the rest.
  const keep = new Set([...allowedKeywords(kind, '2026-07-28'), ...allowedKeywords(kind, '2025-06-18')]);
  for (const key of Object.keys(p)) {
    if (!keep.has(key)) {
      repair('keyword-dropped', child(path, key), `dropped keyword "${key}" of "${name}" (outside the subset)`);
      delete p[key];
    }
  }
  if (hasOwn(p, 'format') && !(FORMATS as readonly unknown[]).includes(p.format)) {
    repair(
      'format-dropped',
      child(path, 'format'),
      `dropped unknown format ${show(p.format)} of "${name}"; validated as a plain ${p.type}`,
    );
    delete p.format;
  }
  for (const key of ['minLength', 'maxLength', 'minItems', 'maxItems', 'minimum', 'maximum'] as const) {
    if (!(key in p)) continue;
    const v = p[key];
    const isCount = key !== 'minimum' && key !== 'maximum';
    const ok = isCount ? Number.isInteger(v) && (v as number) >= 0 : typeof v === 'number' && Number.isFinite(v);
    if (!ok) {
      repair('bound-dropped', child(path, key), `dropped "${key}" of "${name}": ${show(v)} is not a valid bound`);
      delete p[key];
    }
  }
  dropUnsatisfiableBounds(name, p, kind, path, repair);
  for (const key of ['title', 'description'] as const) {
    if (key in p && typeof p[key] !== 'string') {
      repair('keyword-dropped', child(path, key), `dropped non-string "${key}" of "${name}"`);
      delete p[key];
    }
  }
  if (
    kind === 'legacy-titled-enum' &&
    (!Array.isArray(p.enumNames) || p.enumNames.length !== (p.enum as unknown[]).length || p.enumNames.some((n) => typeof n !== 'string'))
  ) {
    repair('enum-names-dropped', child(path, 'enumNames'), `dropped "enumNames" of "${name}": it does not match "enum"`);
    delete p.enumNames;
  }
  if (
    (kind === 'enum' || kind === 'legacy-titled-enum' || kind === 'multi-enum') &&
    !validValues(kind === 'multi-enum' ? (p.items as Obj).enum : p.enum)
  ) {
    fail('enum-values', path, `enum "${name}" needs a non-empty list of unique strings`, 'list at least one string option, each once');
    return undefined;
  }
  if ((kind === 'titled-enum' || kind === 'titled-multi-enum') && !validTitled(kind === 'titled-enum' ? p.oneOf : (p.items as Obj).anyOf)) {
    fail(
      'enum-values',
      path,
      `titled enum "${name}" needs a non-empty list of {"const": string, "title": string} with unique consts`,
      'give each option a unique string "const"',
    );
    return undefined;
  }
  if (kind === 'titled-enum' || kind === 'titled-multi-enum') {
    const list = (kind === 'titled-enum' ? p.oneOf : (p.items as Obj).anyOf) as Obj[];
    const fixed = list.map((o, i) => {
      if (typeof o.title === 'string' && Object.keys(o).length === 2) return o;
      if (typeof o.title === 'string')
        repair(
          'keyword-dropped',
          child(path, kind === 'titled-enum' ? 'oneOf' : 'items', ...(kind === 'titled-enum' ? [i] : ['anyOf', i])),
          `dropped extra keys of option ${show(o.const)} of "${name}"`,
        );
      else
        repair(
          'option-title-added',
          child(path, kind === 'titled-enum' ? 'oneOf' : 'items', ...(kind === 'titled-enum' ? [i] : ['anyOf', i])),
          `option ${show(o.const)} of "${name}" had no title; its value is shown`,
        );
      return { const: o.const, title: typeof o.title === 'string' ? o.title : (o.const as string) };
    });
    if (kind === 'titled-enum') p.oneOf = fixed;
    else p.items = { anyOf: fixed };
  }
  if (hasOwn(p, 'default') && defaultProblem(p, kind, p.default)) {
    repair(
      'default-dropped',
      child(path, 'default'),
      `dropped default ${show(p.default)} of "${name}": it ${defaultProblem(p, kind, p.default)}`,
    );
    delete p.default;
  }
  void revision;
  return p;
}

function validValues(v: unknown): boolean {
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string') && new Set(v).size === v.length;
}

function validTitled(v: unknown): boolean {
  if (!Array.isArray(v) || v.length === 0) return false;
  const consts = v.map((o) =>
    isObj(o) && typeof o.const === 'string' && (o.title === undefined || typeof o.title === 'string') ? o.const : null,
  );
  return consts.every((c) => c !== null) && new Set(consts).size === consts.length;
}

/** Drops bound pairs no value can satisfy (the host would show a form that can never be sent). */
function dropUnsatisfiableBounds(name: string, p: Obj, kind: string, path: string, repair: RepairFn): void {
  const pairs: Array<[string, string]> = [
    ['minLength', 'maxLength'],
    ['minimum', 'maximum'],
    ['minItems', 'maxItems'],
  ];
  for (const [lo, hi] of pairs) {
    const a = p[lo] as number | undefined;
    const b = p[hi] as number | undefined;
    const empty =
      typeof a === 'number' && typeof b === 'number' && (a > b || (kind === 'integer' && lo === 'minimum' && Math.ceil(a) > Math.floor(b)));
    if (empty) {
      repair('bounds-dropped', child(path, lo), `dropped "${lo}" ${a} and "${hi}" ${b} of "${name}": no value satisfies both`);
      delete p[lo];
      delete p[hi];
    }
  }
  if (kind === 'multi-enum' || kind === 'titled-multi-enum') {
    const items = p.items as Obj;
    const count = (
      Array.isArray(items.enum) ? items.enum : Array.isArray(items.anyOf) ? items.anyOf : Array.isArray(items.oneOf) ? items.oneOf : []
    ).length;
    if (typeof p.minItems === 'number' && p.minItems > count) {
      repair(
        'bounds-dropped',
        child(path, 'minItems'),
        `lowered "minItems" ${p.minItems} of "${name}" to ${count}: there are only ${count} option(s)`,
      );
      p.minItems = count;
    }
  }
}
