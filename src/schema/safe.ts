/**
 * Helpers that keep the schema core total: own-property access (field names such as `__proto__` or
 * `constructor` are ordinary names here), a depth guard for hostile nesting, and a display function
 * that never throws.
 * @module
 */

/** Whether `obj` has `key` as its own property (never an inherited one). */
export function hasOwn(obj: object, key: PropertyKey): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/**
 * Sets an own, enumerable, writable property, even for the key `__proto__` (the one key whose plain
 * assignment would set the prototype instead). Any other key is assigned plainly: on an object with
 * Object.prototype's accessors untouched that also makes an own data property, and keeps the object's
 * fast layout (defineProperty per key costs more and can turn it into a dictionary).
 */
export function setOwn<T extends object>(obj: T, key: string, value: unknown): void {
  if (key === '__proto__' || (!hasOwn(obj, key) && key in obj))
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else (obj as Record<string, unknown>)[key] = value;
}

/** Own property value, or `undefined` when only inherited. */
export function getOwn(obj: object, key: string): unknown {
  return hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/** Nesting depth beyond which inputs are refused (a requestedSchema is at most ~5 levels deep). */
export const MAX_DEPTH = 32;

/** Largest `max` {@link tooDeep} honours (it recurses once per level). */
export const MAX_WALK_DEPTH = 1_000;

/**
 * Whether `value` nests deeper than `max` levels (cycles count as too deep), looking at own enumerable
 * string-keyed members like `Object.values`. Walks at most 1,000,000 objects. Allocates nothing per
 * node (it runs on every answer the broker validates). `max` is capped at {@link MAX_WALK_DEPTH} (the recursion depth).
 */
export function tooDeep(value: unknown, max = MAX_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return deeper(value, 0, { seen: 0, max: Math.min(max, MAX_WALK_DEPTH) });
}

function deeper(v: object, depth: number, w: { seen: number; max: number }): boolean {
  if (depth >= w.max || ++w.seen > 1_000_000) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === 'object' && x !== null && deeper(x, depth + 1, w)) return true;
    }
    return false;
  }
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
    const x: unknown = (v as Record<string, unknown>)[k];
    if (typeof x === 'object' && x !== null && deeper(x, depth + 1, w)) return true;
  }
  return false;
}

/** A short display form of any value for messages: JSON when possible, at most `max` characters. Never throws. */
export function show(value: unknown, max = 80): string {
  let text: string;
  try {
    text = typeof value === 'bigint' ? `${value}n` : (JSON.stringify(value) ?? String(value));
  } catch {
    text = Array.isArray(value) ? '[array]' : typeof value === 'object' ? '[object]' : String(value);
  }
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

/** The first argument that is an array, else `undefined` (for `oneOf`/`anyOf` pairs of unknown shape). */
export function firstArray(...candidates: unknown[]): unknown[] | undefined {
  return candidates.find((c): c is unknown[] => Array.isArray(c));
}

/** A plain JSON object (not null, not an array). */
export function isObj(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
