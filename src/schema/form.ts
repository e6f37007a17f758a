/**
 * Form helpers shared by the web console, the terminal and `--answers` files.
 *
 * Spec: 2025-11-25 elicitation §Requested Schema l.233 (clients that support defaults SHOULD
 * pre-populate form fields with them).
 * @module
 */
import { child } from './pointer.js';
import { enumOptions, fieldKind } from './subset.js';
import type { Checked, Content, ContentValue, Issue, RequestedSchema } from './types.js';

type Obj = Record<string, unknown>;

/**
 * Returns a copy of `content` with every missing property that has a `default` filled in
 * (arrays copied). Present values are never replaced.
 */
export function applyDefaults(schema: RequestedSchema, content: Content = {}): Content {
  const out: Content = { ...content };
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const d = (prop as { default?: unknown }).default;
    if (out[name] === undefined && d !== undefined) out[name] = (Array.isArray(d) ? [...d] : d) as ContentValue;
  }
  return out;
}

const TRUE = new Set(['true', 'yes', 'y', 'on', '1']);
const FALSE = new Set(['false', 'no', 'n', 'off', '0']);

/** Maps a typed label or value to the option value (labels compared case-insensitively). */
function pickOption(prop: Obj, typed: string): string | undefined {
  const opts = enumOptions(prop);
  const t = typed.trim();
  return opts.find((o) => o.value === t)?.value ?? opts.find((o) => o.label.toLowerCase() === t.toLowerCase())?.value;
}

/**
 * Turns what a person typed (strings from a form or terminal; already-typed values pass through)
 * into typed content. Empty strings and empty selections mean "not provided" and are left out.
 * Numbers accept `1e3`, `-2.5`; booleans accept true/false, yes/no, on/off, 1/0; enums accept the
 * value or its label; multi-selects accept arrays or comma-separated text.
 * Returns issues for input that does not parse and for fields not in the schema; the result still
 * needs `validateContent` for bounds, formats and `required`.
 */
export function coerceFormValues(schema: RequestedSchema, raw: Record<string, unknown>): Checked<Content> {
  const value: Content = {};
  const issues: Issue[] = [];
  const bad = (field: string, code: string, message: string) => issues.push({ code, path: child('', field), severity: 'error', message });
  for (const [field, input] of Object.entries(raw ?? {})) {
    const prop = (schema.properties ?? {})[field] as unknown as Obj | undefined;
    if (!prop) {
      bad(field, 'unknown-field', `"${field}" is not a field of this form`);
      continue;
    }
    if (input === undefined || input === null || input === '') continue;
    const kind = fieldKind(prop);
    const text = typeof input === 'string' ? input : undefined;
    switch (kind) {
      case 'string':
        value[field] = text ?? String(input);
        break;
      case 'number':
      case 'integer': {
        if (typeof input === 'number') {
          value[field] = input;
          break;
        }
        const n = text !== undefined && text.trim() !== '' ? Number(text.trim()) : NaN;
        if (!Number.isFinite(n)) bad(field, 'not-a-number', `"${field}" must be a number (got ${JSON.stringify(input)})`);
        else if (kind === 'integer' && !Number.isInteger(n)) bad(field, 'not-an-integer', `"${field}" must be a whole number (got ${JSON.stringify(input)})`);
        else value[field] = n;
        break;
      }
      case 'boolean': {
        if (typeof input === 'boolean') value[field] = input;
        else if (text !== undefined && TRUE.has(text.trim().toLowerCase())) value[field] = true;
        else if (text !== undefined && FALSE.has(text.trim().toLowerCase())) value[field] = false;
        else bad(field, 'not-a-boolean', `"${field}" must be yes or no (got ${JSON.stringify(input)})`);
        break;
      }
      case 'enum':
      case 'legacy-titled-enum':
      case 'titled-enum': {
        const v = pickOption(prop, String(input));
        if (v === undefined) bad(field, 'not-an-option', `"${field}" must be one of ${enumOptions(prop).map((o) => o.label).join(', ')} (got ${JSON.stringify(input)})`);
        else value[field] = v;
        break;
      }
      case 'multi-enum':
      case 'titled-multi-enum': {
        const list = Array.isArray(input) ? input.map(String) : String(input).split(',').map((s) => s.trim()).filter(Boolean);
        const picked: string[] = [];
        for (const item of list) {
          const v = pickOption(prop, item);
          if (v === undefined) bad(field, 'not-an-option', `"${field}": ${JSON.stringify(item)} is not one of ${enumOptions(prop).map((o) => o.label).join(', ')}`);
          else if (!picked.includes(v)) picked.push(v);
        }
        if (picked.length > 0) value[field] = picked;
        break;
      }
      default:
        bad(field, 'unsupported-field', `"${field}" has a schema outside the subset and cannot be filled in`);
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
}
