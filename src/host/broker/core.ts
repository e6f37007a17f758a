/**
 * The broker's view of the schema core (`src/schema`). Until the schema core's functions land on
 * `main`, this file holds a minimal stand-in with the same signatures; afterwards it only re-exports.
 * Keeping one import point means the broker never reaches into schema internals.
 * @module
 */
import { createHash } from 'node:crypto';
import type {
  Content,
  ContentValue,
  Issue,
  PrimitiveSchemaDefinition,
  Repair,
  RequestedSchema,
  Revision,
  RevisionOptions,
} from '../../schema/index.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const ptr = (...parts: string[]) => parts.map((p) => '/' + p.replace(/~/g, '~0').replace(/\//g, '~1')).join('');
const FORMATS = new Set(['email', 'uri', 'date', 'date-time']);
const ROOT_KEYS = new Set(['type', 'properties', 'required', '$schema']);

export type Normalized = { ok: true; schema: RequestedSchema; repairs: Repair[] } | { ok: false; issues: Issue[] };

/** Stand-in for the schema core's `normalizeRequestedSchema` (liberal reader with repairs). */
export function normalizeRequestedSchema(schema: unknown, opts: RevisionOptions = {}): Normalized {
  const rev: Revision = opts.revision ?? '2026-07-28';
  const repairs: Repair[] = [];
  const issues: Issue[] = [];
  if (!isObj(schema)) return { ok: false, issues: [{ code: 'not-object', path: '', severity: 'error', message: 'requestedSchema must be a JSON object.' }] };
  for (const k of Object.keys(schema)) {
    if (!ROOT_KEYS.has(k) || (k === '$schema' && rev === '2025-06-18'))
      repairs.push({ code: 'root-key-ignored', path: ptr(k), message: `Root key "${k}" is not part of requestedSchema; ignored.` });
  }
  const props = schema.properties ?? {};
  if (!isObj(props)) return { ok: false, issues: [{ code: 'properties', path: '/properties', severity: 'error', message: 'properties must be an object.' }] };
  const out: Record<string, PrimitiveSchemaDefinition> = {};
  for (const [name, raw] of Object.entries(props)) {
    const p = ptr('properties', name);
    if (!isObj(raw)) { issues.push({ code: 'property', path: p, severity: 'error', message: `Property "${name}" must be an object schema.` }); continue; }
    const d: Obj = { ...raw };
    if (d.type === undefined && Array.isArray(d.oneOf)) { d.type = 'string'; repairs.push({ code: 'missing-type', path: p, message: 'Titled enum without type; assumed "string".' }); }
    if (d.type === undefined && Array.isArray(d.enum)) { d.type = 'string'; repairs.push({ code: 'missing-type', path: p, message: 'Enum without type; assumed "string".' }); }
    if (d.type === 'array') {
      const items = d.items;
      if (!isObj(items) || !(Array.isArray(items.enum) || Array.isArray(items.anyOf))) { issues.push({ code: 'nested-array', path: p, severity: 'error', message: `Property "${name}" is an array that is not a multi-select enum; a flat form cannot show it.`, fix: 'Use items.enum or items.anyOf of strings.' }); continue; }
      if (Array.isArray(items.enum) && items.type === undefined) { d.items = { ...items, type: 'string' }; repairs.push({ code: 'missing-items-type', path: p + '/items', message: 'Multi-select items without type; assumed "string".' }); }
      if (rev === '2025-06-18') repairs.push({ code: 'array-revision', path: p, message: 'Multi-select arrays are not part of revision 2025-06-18; shown anyway.' });
    } else if (d.type === 'object' || isObj(d.properties)) {
      issues.push({ code: 'nested-object', path: p, severity: 'error', message: `Property "${name}" is a nested object; requestedSchema allows only flat primitive properties.`, fix: 'Flatten the object into top-level properties.' }); continue;
    } else if (!['string', 'number', 'integer', 'boolean'].includes(d.type as string)) {
      issues.push({ code: 'type', path: p, severity: 'error', message: `Property "${name}" has unsupported type ${JSON.stringify(d.type)}.` }); continue;
    }
    if (d.format !== undefined && !FORMATS.has(d.format as string)) { repairs.push({ code: 'unknown-format', path: p + '/format', message: `Format "${String(d.format)}" is not email|uri|date|date-time; ignored.` }); delete d.format; }
    if (d.pattern !== undefined) { repairs.push({ code: 'pattern-ignored', path: p + '/pattern', message: 'pattern is not part of requestedSchema; ignored.' }); delete d.pattern; }
    out[name] = d as unknown as PrimitiveSchemaDefinition;
  }
  if (issues.length) return { ok: false, issues };
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]).filter((r): r is string => typeof r === 'string' && r in out) : undefined;
  const norm: RequestedSchema = { type: 'object', properties: out, ...(required && required.length ? { required } : {}) };
  return { ok: true, schema: norm, repairs };
}

function optionsOf(d: Obj): string[] | undefined {
  if (Array.isArray(d.enum)) return d.enum as string[];
  if (Array.isArray(d.oneOf)) return (d.oneOf as Obj[]).map((o) => o.const as string);
  return undefined;
}

/** Stand-in for the schema core's `validateContent`. */
export function validateContent(schema: RequestedSchema, content: unknown): { ok: true; value: Content } | { ok: false; issues: Issue[] } {
  if (!isObj(content)) return { ok: false, issues: [{ code: 'content', path: '', severity: 'error', message: 'content must be an object.' }] };
  const issues: Issue[] = [];
  const err = (code: string, name: string, message: string) => issues.push({ code, path: ptr(name), severity: 'error', message });
  for (const r of schema.required ?? []) if (content[r] === undefined) err('required', r, `Field "${r}" is required.`);
  for (const [name, v] of Object.entries(content)) {
    const d = schema.properties[name] as unknown as Obj | undefined;
    if (!d) { err('additional', name, `Field "${name}" was not asked for.`); continue; }
    if (v === undefined) continue;
    if (d.type === 'boolean') { if (typeof v !== 'boolean') err('type', name, `Field "${name}" must be a boolean.`); continue; }
    if (d.type === 'number' || d.type === 'integer') {
      if (typeof v !== 'number' || !Number.isFinite(v)) { err('type', name, `Field "${name}" must be a number.`); continue; }
      if (d.type === 'integer' && !Number.isInteger(v)) err('integer', name, `Field "${name}" must be an integer.`);
      if (typeof d.minimum === 'number' && v < d.minimum) err('minimum', name, `Field "${name}" must be ≥ ${d.minimum}.`);
      if (typeof d.maximum === 'number' && v > d.maximum) err('maximum', name, `Field "${name}" must be ≤ ${d.maximum}.`);
      continue;
    }
    if (d.type === 'array') {
      const items = d.items as Obj;
      const opts = Array.isArray(items.enum) ? (items.enum as string[]) : (items.anyOf as Obj[]).map((o) => o.const as string);
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || !opts.includes(x))) { err('enum', name, `Field "${name}" must be a list of ${opts.join(', ')}.`); continue; }
      if (typeof d.minItems === 'number' && v.length < d.minItems) err('minItems', name, `Field "${name}" needs at least ${d.minItems} items.`);
      if (typeof d.maxItems === 'number' && v.length > d.maxItems) err('maxItems', name, `Field "${name}" allows at most ${d.maxItems} items.`);
      continue;
    }
    if (typeof v !== 'string') { err('type', name, `Field "${name}" must be a string.`); continue; }
    const opts = optionsOf(d);
    if (opts && !opts.includes(v)) err('enum', name, `Field "${name}" must be one of ${opts.join(', ')}.`);
    if (typeof d.minLength === 'number' && v.length < d.minLength) err('minLength', name, `Field "${name}" must have at least ${d.minLength} characters.`);
    if (typeof d.maxLength === 'number' && v.length > d.maxLength) err('maxLength', name, `Field "${name}" must have at most ${d.maxLength} characters.`);
  }
  return issues.length ? { ok: false, issues } : { ok: true, value: content as Content };
}

/** Stand-in for the schema core's `applyDefaults`: fills missing fields from `default`. */
export function applyDefaults(schema: RequestedSchema, content: Content): Content {
  const out: Content = { ...content };
  for (const [name, d] of Object.entries(schema.properties)) {
    const def = (d as { default?: ContentValue }).default;
    if (out[name] === undefined && def !== undefined) out[name] = def;
  }
  return out;
}

const SENSITIVE = /(pass(word|phrase|code)?|pwd|secret|token|api[\s_-]?key|private[\s_-]?key|card[\s_-]?number|credit[\s_-]?card|cvv|cvc|\bpin\b|one[\s_-]?time|otp|密码|口令|密钥|令牌|验证码)/i;
const splitCamel = (s: string) => s.replace(/([a-z])([A-Z])/g, '$1 $2');

/** Stand-in for the schema core's `detectSensitiveFields`. */
export function detectSensitiveFields(schema: unknown): Array<{ field: string; path: string; rule: string; matched: string }> {
  if (!isObj(schema) || !isObj(schema.properties)) return [];
  const out: Array<{ field: string; path: string; rule: string; matched: string }> = [];
  for (const [name, d] of Object.entries(schema.properties)) {
    const texts: Array<[string, unknown]> = [['name', splitCamel(name)], ['title', isObj(d) ? d.title : undefined], ['description', isObj(d) ? d.description : undefined]];
    for (const [rule, t] of texts) {
      const m = typeof t === 'string' ? SENSITIVE.exec(t) : null;
      if (m) { out.push({ field: name, path: ptr('properties', name), rule, matched: m[0] }); break; }
    }
  }
  return out;
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (isObj(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])]));
  return v;
}

/** Stand-in for the schema core's `schemaHash`: SHA-256 of canonical JSON, hex. */
export function schemaHash(schema: unknown): string {
  return createHash('sha256').update(JSON.stringify(canonical(schema))).digest('hex');
}
