/**
 * Bridge to the schema core (`src/schema`). Until `toRequestedSchema`, `lintRequestedSchema`,
 * `detectSensitiveFields` and `readElicitResult` land on `main`, this file holds minimal versions with
 * the same signatures; afterwards it only re-exports. Nothing else in `src/server` imports the schema
 * layer directly, so the swap touches one file.
 * @module
 */
import * as z from 'zod/v4';
import type { Content, Issue, RequestedSchema, Revision } from '../schema/types.js';

/** Result of reading a raw `ElicitResult` (same shape as the schema core's `ReadElicitResult`). */
export type ReadElicitResult =
  | { ok: true; result: { action: 'accept'; content: Content } | { action: 'decline' } | { action: 'cancel' } }
  | { ok: false; code: -32602; message: string; issues: Issue[] };

const PROP_KEYS = new Set(['type', 'title', 'description', 'minLength', 'maxLength', 'format', 'default', 'minimum', 'maximum', 'enum', 'enumNames', 'oneOf', 'items', 'minItems', 'maxItems']);

/** Converts a zod object to the restricted wire shape; throws `TypeError` naming the field on unsupported shapes. */
export function toRequestedSchema(schema: z.ZodObject): RequestedSchema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' }) as Record<string, any>;
  const properties: Record<string, any> = {};
  for (const [k, p] of Object.entries<any>(json.properties ?? {})) {
    if (p.type === 'object' || (p.type === 'array' && !p.items?.enum && !p.items?.anyOf)) throw new TypeError(`requestedSchema field "${k}": nested objects and arrays are not part of the elicitation schema subset; use a flat primitive`);
    if (p.pattern !== undefined) throw new TypeError(`requestedSchema field "${k}": "pattern" is not part of the elicitation schema subset; validate after the answer`);
    if (!p.type && Array.isArray(p.oneOf)) p.type = 'string';
    const out: Record<string, unknown> = {};
    for (const [pk, v] of Object.entries(p)) if (PROP_KEYS.has(pk)) out[pk] = v;
    if (out.type === 'array' && p.items) out.items = p.items.enum ? { type: 'string', enum: p.items.enum } : { anyOf: p.items.anyOf };
    properties[k] = out;
  }
  const required = (json.required ?? []) as string[];
  return { type: 'object', properties, ...(required.length ? { required } : {}) } as RequestedSchema;
}

/** Minimal lint: flat object of primitives; arrays not in 2025-06-18. */
export function lintRequestedSchema(schema: unknown, opts: { revision?: Revision } = {}): Issue[] {
  const issues: Issue[] = [];
  const s = schema as RequestedSchema;
  if (!s || typeof s !== 'object' || s.type !== 'object' || typeof s.properties !== 'object') {
    return [{ code: 'root', path: '', severity: 'error', message: 'requestedSchema must be {type:"object", properties:{...}}' }];
  }
  for (const [k, p] of Object.entries<any>(s.properties)) {
    const path = `/properties/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (!['string', 'number', 'integer', 'boolean', 'array'].includes(p?.type)) issues.push({ code: 'type', path, severity: 'error', message: `field "${k}" has unsupported type ${JSON.stringify(p?.type)}` });
    if (p?.type === 'array' && opts.revision === '2025-06-18') issues.push({ code: 'array-in-2025-06-18', path, severity: 'error', message: `field "${k}": multi-select arrays are not part of revision 2025-06-18`, fix: 'use a single-select enum' });
  }
  for (const r of s.required ?? []) if (!(r in s.properties)) issues.push({ code: 'required', path: '/required', severity: 'error', message: `required field "${r}" is not in properties` });
  return issues;
}

const SENSITIVE = /pass(word|phrase|wd)?\b|secret|token|api[ _-]?key|apikey|private[ _-]?key|card[ _-]?number|cvv|cvc|\bpin\b|one[ _-]?time[ _-]?code|otp|credential|密码|口令|密钥|令牌|验证码|信用卡/i;

/** Minimal sensitive-field detection over names, titles and descriptions. */
export function detectSensitiveFields(schema: unknown): Array<{ field: string; path: string; rule: string; matched: string }> {
  const out: Array<{ field: string; path: string; rule: string; matched: string }> = [];
  const props = (schema as RequestedSchema)?.properties ?? {};
  for (const [k, p] of Object.entries<any>(props)) {
    for (const text of [k.replace(/([a-z])([A-Z])/g, '$1 $2'), p?.title, p?.description]) {
      const m = typeof text === 'string' ? SENSITIVE.exec(text) : null;
      if (m) { out.push({ field: k, path: `/properties/${k}`, rule: 'sensitive-term', matched: m[0] }); break; }
    }
  }
  return out;
}

function checkValue(k: string, p: any, v: unknown): string | null {
  const t = p.type;
  if (t === 'boolean') return typeof v === 'boolean' ? null : 'must be a boolean';
  if (t === 'number' || t === 'integer') {
    if (typeof v !== 'number' || !Number.isFinite(v)) return `must be a ${t}`;
    if (t === 'integer' && !Number.isInteger(v)) return 'must be an integer';
    if (p.minimum !== undefined && v < p.minimum) return `must be >= ${p.minimum} (minimum)`;
    if (p.maximum !== undefined && v > p.maximum) return `must be <= ${p.maximum} (maximum)`;
    return null;
  }
  if (t === 'array') {
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) return 'must be an array of strings';
    const allowed: string[] = p.items?.enum ?? (p.items?.anyOf ?? []).map((o: any) => o.const);
    const bad = v.find((x) => !allowed.includes(x));
    if (bad !== undefined) return `contains ${JSON.stringify(bad)}, not one of ${allowed.join(', ')}`;
    if (p.minItems !== undefined && v.length < p.minItems) return `needs at least ${p.minItems} items (minItems)`;
    if (p.maxItems !== undefined && v.length > p.maxItems) return `allows at most ${p.maxItems} items (maxItems)`;
    return null;
  }
  if (typeof v !== 'string') return 'must be a string';
  const allowed: string[] | undefined = p.enum ?? p.oneOf?.map((o: any) => o.const);
  if (allowed && !allowed.includes(v)) return `must be one of ${allowed.join(', ')} (enum)`;
  if (p.minLength !== undefined && v.length < p.minLength) return `must have at least ${p.minLength} characters (minLength)`;
  if (p.maxLength !== undefined && v.length > p.maxLength) return `must have at most ${p.maxLength} characters (maxLength)`;
  return null;
}

/** Reads a raw `ElicitResult`; accepted content is validated against `schema` (no coercion, no extra fields). */
export function readElicitResult(raw: unknown, schema?: RequestedSchema): ReadElicitResult {
  const r = raw as { action?: unknown; content?: unknown };
  const action = r?.action;
  if (action === 'decline' || action === 'cancel') return { ok: true, result: { action } };
  if (action !== 'accept') {
    return { ok: false, code: -32602, message: `unknown elicitation action ${JSON.stringify(action)}; allowed: accept, decline, cancel`, issues: [{ code: 'action', path: '/action', severity: 'error', message: 'action must be accept, decline or cancel' }] };
  }
  const content = (r.content ?? {}) as Record<string, unknown>;
  if (typeof content !== 'object' || Array.isArray(content)) return { ok: false, code: -32602, message: 'accepted content must be an object', issues: [{ code: 'type', path: '/content', severity: 'error', message: 'content must be an object' }] };
  const issues: Issue[] = [];
  if (schema) {
    for (const k of schema.required ?? []) if (content[k] === undefined) issues.push({ code: 'required', path: `/content/${k}`, severity: 'error', message: `field "${k}" is required` });
    for (const [k, v] of Object.entries(content)) {
      const p = schema.properties[k];
      if (!p) { issues.push({ code: 'additional', path: `/content/${k}`, severity: 'error', message: `field "${k}" was not asked for` }); continue; }
      const msg = checkValue(k, p, v);
      if (msg) issues.push({ code: 'value', path: `/content/${k}`, severity: 'error', message: `field "${k}" ${msg}` });
    }
  }
  if (issues.length) return { ok: false, code: -32602, message: issues.map((i) => i.message).join('; '), issues };
  return { ok: true, result: { action: 'accept', content: content as Content } };
}
