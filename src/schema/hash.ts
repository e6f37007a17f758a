/**
 * Stable hashing of JSON values, independent of key order. Pure (no node:crypto) so the schema
 * layer stays I/O-free; not a cryptographic hash: use it for cache keys and remembered answers.
 */

/** JSON text with object keys sorted at every level; `undefined` members are dropped. */
export function canonicalJson(value: unknown): string {
  return canon(value, 0);
}

/** Deeper than this (or a cycle) is written as `"[too deep]"` instead of recursing. */
const MAX_CANON_DEPTH = 64;

function canon(value: unknown, depth: number): string {
  if (typeof value === 'bigint') return JSON.stringify(`${value}n`);
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function')
    value = (value as { toJSON: () => unknown }).toJSON();
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depth >= MAX_CANON_DEPTH) return '"[too deep]"';
  if (Array.isArray(value)) return '[' + value.map((v) => canon(v === undefined ? null : v, depth + 1)).join(',') + ']';
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canon(obj[k], depth + 1)).join(',') + '}';
}

function fnv1a(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * 64-bit hash (two FNV-1a lanes with different seeds) of the canonical JSON of `value`, as 16 hex
 * characters. Equal for schemas that differ only in key order.
 */
export function schemaHash(value: unknown): string {
  const text = canonicalJson(value);
  const a = fnv1a(text, 0x811c9dc5);
  const b = fnv1a(text, 0x9747b28c);
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}
