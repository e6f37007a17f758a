/**
 * Per-schema cache of the broker's form checks: `normalizeRequestedSchema`, `lintRequestedSchema` and
 * sensitive-field detection of one `requestedSchema` under one revision, plus its remember key
 * (`schemaHash` of the normalised schema, computed on first use only). A server sends the same form
 * again and again, each time as a fresh object parsed off the wire; with the cache a repeat costs one
 * `JSON.stringify` and a map lookup instead of the whole pipeline.
 *
 * Key: revision + the schema's JSON text. A text key is exact only for a value that its text describes
 * completely, so only *JSON-faithful* schemas are cached: plain objects (prototype `Object.prototype`,
 * own enumerable string keys only), dense plain arrays without extra keys, strings, booleans, `null`
 * and finite numbers other than -0, at most {@link MAX_FAITHFUL_DEPTH} levels and
 * {@link MAX_FAITHFUL_NODES} objects, text at most {@link MAX_CACHED_TEXT} characters. The checks run
 * on a private `JSON.parse` copy of the text, whose checks equal those of the value itself, so a cached
 * result shares nothing with the caller's object. Anything else (an `undefined` member, `NaN`, a
 * `Date`, a class instance, a null-prototype object, a symbol or non-enumerable key, a cycle) is
 * checked directly and not cached, exactly as without the cache. Accessors are read like data
 * properties. There is no object-identity level (unlike the validator cache in
 * `src/schema/validate.ts`): a caller may mutate an object and send it again.
 *
 * Cached results are deep-frozen, since every request with the same form shares them: the
 * `requestedSchema`, `repairs`, `lint` and `sensitiveFields` a presenter or listener sees are read-only.
 * @module
 */
import type { ContentValue, Issue, NormalizeResult, Revision } from '../../schema/index.js';
import { hasOwn } from '../../schema/safe.js';
import { checkSchemaLimits, detectSensitiveFields, lintRequestedSchema, normalizeRequestedSchema, schemaHash } from './core.js';

/** The broker's checks of one form request. */
export interface FormCheck {
  normalized: NormalizeResult;
  /** `lintRequestedSchema` findings (only when `normalized.ok`, else empty). */
  lint: Issue[];
  /** Unique names of the fields that look like requests for secrets, in schema order (only when `normalized.ok`). */
  sensitive: string[];
  /** The same names as a set (shared: do not change it). */
  sensitiveSet: ReadonlySet<string>;
  /** `[field, default]` of every field of the normalised schema with a `default`, in schema order (frozen). */
  defaults: ReadonlyArray<readonly [string, ContentValue]>;
  /** `schemaHash` of the normalised schema (the remember key); computed on the first call, `''` when not ok. Bound. */
  hash: () => string;
}

/** Most cached form texts (each with its checks for up to three revisions); beyond it the oldest is evicted. */
export const FORM_CACHE_SIZE = 256;
/** Longest JSON text (characters) of a cached schema; longer schemas are checked every time. */
export const MAX_CACHED_TEXT = 16_384;
/** Deepest nesting of a cached schema (a form is ~5 levels deep). */
export const MAX_FAITHFUL_DEPTH = 16;
/** Most objects and arrays in a cached schema. */
export const MAX_FAITHFUL_NODES = 2_048;

/** JSON text → checks by revision (the text alone is the key: no concatenation per lookup). */
const cache = new Map<string, Partial<Record<Revision, Check>>>();

class Check implements FormCheck {
  #hash: string | undefined;
  readonly sensitiveSet: ReadonlySet<string>;
  readonly defaults: ReadonlyArray<readonly [string, ContentValue]>;
  constructor(
    readonly normalized: NormalizeResult,
    readonly lint: Issue[],
    readonly sensitive: string[],
  ) {
    this.sensitiveSet = new Set(sensitive);
    const out: Array<readonly [string, ContentValue]> = [];
    if (normalized.ok)
      for (const [field, prop] of Object.entries(normalized.schema.properties)) {
        const d = hasOwn(prop, 'default') ? (prop as { default?: unknown }).default : undefined;
        if (d !== undefined) out.push(Object.freeze([field, d as ContentValue] as const));
      }
    this.defaults = Object.freeze(out);
  }
  /** Bound: may be passed detached. */
  readonly hash = (): string => {
    this.#hash ??= this.normalized.ok ? schemaHash(this.normalized.schema) : '';
    return this.#hash;
  };
}

function compute(schema: unknown, revision: Revision): Check {
  // Size caps first (limits.ts): every check after them reads bounded text.
  const over = checkSchemaLimits(schema);
  if (over.length) return new Check({ ok: false, issues: over }, [], []);
  const normalized = normalizeRequestedSchema(schema, { revision });
  if (!normalized.ok) return new Check(normalized, [], []);
  const lint = lintRequestedSchema(schema, { revision });
  // The raw schema too: normalising drops the marks a server sets on a secret (`format: "password"`,
  // `writeOnly`, `x-sensitive`), and a marked field must still be masked, redacted and never remembered.
  const props = normalized.schema.properties;
  const raw = detectSensitiveFields(schema).filter((h) => Object.prototype.hasOwnProperty.call(props, h.field));
  const sensitive = [...new Set([...detectSensitiveFields(normalized.schema), ...raw].map((f) => f.field))];
  return new Check(normalized, lint, sensitive);
}

/**
 * The checks of `requestedSchema` under `revision`: from the cache when the schema is JSON-faithful
 * (see the module comment), else computed on the value itself. Never throws.
 */
export function checkForm(requestedSchema: unknown, revision: Revision): FormCheck {
  const text = faithfulText(requestedSchema);
  if (text === undefined) return compute(requestedSchema, revision);
  let byRevision = cache.get(text);
  if (!byRevision) {
    if (cache.size >= FORM_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    byRevision = {};
    cache.set(text, byRevision);
  }
  let hit = byRevision[revision];
  if (!hit) {
    hit = compute(JSON.parse(text), revision);
    deepFreeze(hit.normalized);
    deepFreeze(hit.lint);
    Object.freeze(hit.sensitive);
    byRevision[revision] = hit;
  }
  return hit;
}

/** Number of cached forms (for tests). */
export function formCacheSize(): number {
  return cache.size;
}

/** The JSON text of `value` when it is JSON-faithful and short enough to cache, else `undefined`. */
export function faithfulText(value: unknown): string | undefined {
  return faithful(value, 0, { left: MAX_FAITHFUL_NODES }) ? cacheKey(value) : undefined;
}

/** `JSON.stringify(value)` when it succeeds and has at most {@link MAX_CACHED_TEXT} characters. */
function cacheKey(value: unknown): string | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined;
  }
  return text !== undefined && text.length <= MAX_CACHED_TEXT ? text : undefined;
}

function faithful(v: unknown, depth: number, budget: { left: number }): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v) && !Object.is(v, -0);
    case 'object':
      break;
    default:
      return false;
  }
  if (v === null) return true;
  if (depth >= MAX_FAITHFUL_DEPTH || --budget.left < 0) return false;
  if (Array.isArray(v)) {
    // Own keys = the indices and `length` only: no holes, no extra keys.
    if (Object.getPrototypeOf(v) !== Array.prototype || Reflect.ownKeys(v).length !== v.length + 1) return false;
    for (let i = 0; i < v.length; i++) if (!faithful(v[i], depth + 1, budget)) return false;
    return true;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return false;
  // Own enumerable string keys by for-in (no key array per object); an inherited enumerable key (a
  // polluted Object.prototype) makes the value unfaithful. Then: no symbol or non-enumerable own keys.
  let n = 0;
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k) || !faithful((v as Record<string, unknown>)[k], depth + 1, budget)) return false;
    n++;
  }
  return Object.getOwnPropertyNames(v).length === n && Object.getOwnPropertySymbols(v).length === 0;
}

function deepFreeze<T>(v: T): T {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return v;
  Object.freeze(v);
  for (const child of Object.values(v)) deepFreeze(child);
  return v;
}
