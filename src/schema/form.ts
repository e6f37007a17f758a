/**
 * Form helpers shared by the web console, the terminal and `--answers` files.
 *
 * Spec: 2025-11-25 elicitation §Requested Schema l.233 (clients that support defaults SHOULD
 * pre-populate form fields with them).
 * @module
 */
import type { IssueCode } from './codes.js';
import { child } from './pointer.js';
import { hasOwn, setOwn, show } from './safe.js';
import { enumOptions, fieldKind } from './subset.js';
import type { Checked, Content, ContentValue, Issue, RequestedSchema } from './types.js';

type Obj = Record<string, unknown>;

/**
 * Returns a copy of `content` with every missing property that has a `default` filled in
 * (arrays copied). Present values are never replaced.
 */
export function applyDefaults(schema: RequestedSchema, content: Content = {}): Content {
  const out: Content = {};
  for (const [k, v] of Object.entries(content ?? {})) setOwn(out, k, v);
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const d = hasOwn(prop, 'default') ? (prop as { default?: unknown }).default : undefined;
    if ((!hasOwn(out, name) || out[name] === undefined) && d !== undefined)
      setOwn(out, name, (Array.isArray(d) ? [...d] : d) as ContentValue);
  }
  return out;
}

/** Plain decimal numbers only: no hex, binary, octal or `Infinity`. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
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
 * into typed content. Empty strings mean "not provided" and are left out; an explicit empty
 * selection (`[]`) of a multi-select is kept, so `minItems` and `required` judge it.
 * Numbers accept `1e3`, `-2.5`; booleans accept true/false, yes/no, on/off, 1/0; enums accept the
 * value or its label; multi-selects accept arrays or comma-separated text.
 * Returns issues for input that does not parse and for fields not in the schema; the result still
 * needs `validateContent` for bounds, formats and `required`.
 */
export function coerceFormValues(schema: RequestedSchema, raw: Record<string, unknown>): Checked<Content> {
  const value: Content = {};
  const issues: Issue<IssueCode>[] = [];
  const bad = (field: string, code: IssueCode, message: string, fix?: string) =>
    issues.push({ code, path: child('', field), severity: 'error', message, ...(fix ? { fix } : {}) });
  const set = (field: string, v: ContentValue) => setOwn(value, field, v);
  const props = (schema.properties ?? {}) as Record<string, unknown>;
  for (const [field, input] of Object.entries(raw ?? {})) {
    const prop = hasOwn(props, field) ? (props[field] as Obj) : undefined;
    if (!prop || typeof prop !== 'object') {
      bad(field, 'unknown-field', `"${field}" is not a field of this form`, 'remove it');
      continue;
    }
    const kind = fieldKind(prop);
    const multi = kind === 'multi-enum' || kind === 'titled-multi-enum';
    if (input === undefined || input === null || input === '' || (Array.isArray(input) && input.length === 0 && !multi)) continue;
    if (typeof input === 'object' && !(multi && Array.isArray(input))) {
      bad(field, 'not-text', `"${field}" needs a single value, not ${Array.isArray(input) ? 'a list' : 'an object'}`);
      continue;
    }
    const text = typeof input === 'string' ? input : undefined;
    switch (kind) {
      case 'string':
        set(field, text ?? String(input));
        break;
      case 'number':
      case 'integer': {
        const n = typeof input === 'number' ? input : text !== undefined && DECIMAL.test(text.trim()) ? Number(text.trim()) : NaN;
        if (!Number.isFinite(n))
          bad(field, 'not-a-number', `"${field}" must be a number (got ${show(input)})`, 'type digits, e.g. 42 or 3.5');
        else if (kind === 'integer' && !Number.isInteger(n))
          bad(field, 'not-an-integer', `"${field}" must be a whole number (got ${show(input)})`, 'type a whole number');
        else set(field, n);
        break;
      }
      case 'boolean': {
        if (typeof input === 'boolean') set(field, input);
        else if (text !== undefined && TRUE.has(text.trim().toLowerCase())) set(field, true);
        else if (text !== undefined && FALSE.has(text.trim().toLowerCase())) set(field, false);
        else bad(field, 'not-a-boolean', `"${field}" must be yes or no (got ${show(input)})`, 'answer yes or no');
        break;
      }
      case 'enum':
      case 'legacy-titled-enum':
      case 'titled-enum': {
        const v = pickOption(prop, String(input));
        if (v === undefined)
          bad(
            field,
            'not-an-option',
            `"${field}" must be one of ${enumOptions(prop)
              .map((o) => o.label)
              .join(', ')} (got ${show(input)})`,
            'pick one of the options',
          );
        else set(field, v);
        break;
      }
      case 'multi-enum':
      case 'titled-multi-enum': {
        // A whole typed string that names one option (even one containing commas) wins over splitting.
        const list = Array.isArray(input)
          ? input.map(String)
          : pickOption(prop, String(input)) !== undefined
            ? [String(input)]
            : String(input)
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean);
        const picked: string[] = [];
        for (const item of list) {
          const v = pickOption(prop, item);
          if (v === undefined)
            bad(
              field,
              'not-an-option',
              `"${field}": ${show(item)} is not one of ${enumOptions(prop)
                .map((o) => o.label)
                .join(', ')}`,
              'pick from the options',
            );
          else if (!picked.includes(v)) picked.push(v);
        }
        set(field, picked);
        break;
      }
      default:
        bad(field, 'unsupported-field', `"${field}" has a schema outside the subset and cannot be filled in`);
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
}
