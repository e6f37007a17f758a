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

/** Sets an own, enumerable property, even for keys like `__proto__`. */
export function setOwn<T extends object>(obj: T, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Own property value, or `undefined` when only inherited. */
export function getOwn(obj: object, key: string): unknown {
  return hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/** Nesting depth beyond which inputs are refused (a requestedSchema is at most ~5 levels deep). */
export const MAX_DEPTH = 32;

/** Whether `value` nests deeper than `max` levels (cycles count as too deep). Iterative: no recursion. */
export function tooDeep(value: unknown, max = MAX_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  let seen = 0;
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d >= max || ++seen > 1_000_000) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, d + 1]);
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
