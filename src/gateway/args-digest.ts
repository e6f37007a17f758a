/**
 * Digest of a tool call's key parameters (tool name and arguments) that the gateway seals into its
 * 2026-07-28 `requestState`, so that a retry carrying the state is refused when it names another tool or
 * changes the arguments (basic/patterns/mrtr §Security Considerations: bind the state to "an identifier of
 * the originating request", method plus a digest of its salient params).
 *
 * Canonical JSON: object keys sorted (UTF-16 code unit order) at every level, `undefined` members
 * dropped, no whitespace; written with an explicit stack (no recursion), so any nesting depth is digested
 * in time and memory linear in the arguments' JSON size. That size is bounded by the request body cap
 * (`MAX_REQUEST_BODY_BYTES` in ../server/serve.ts, 4 MiB).
 */
import { createHash } from 'node:crypto';

/**
 * SHA-256 (base64url, 43 characters) of the canonical JSON of `[tool, args]` (`args` absent counts as `{}`).
 * @param tool the tool's exposed name (`server__tool`). @param args the call's `arguments`, as parsed from JSON.
 */
export function callDigest(tool: string, args: unknown): string {
  const hash = createHash('sha256');
  let buf = '';
  const out = (s: string) => {
    buf += s;
    if (buf.length >= 65_536) {
      hash.update(buf);
      buf = '';
    }
  };
  // Work items: a string is written as is; an object `{ v }` is a value still to be written.
  const stack: Array<string | { v: unknown }> = [{ v: [tool, args ?? {}] }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      out(item);
      continue;
    }
    const v = item.v;
    if (v === null || typeof v !== 'object') {
      out(typeof v === 'bigint' ? JSON.stringify(`${v}n`) : (JSON.stringify(v) ?? 'null'));
      continue;
    }
    if (Array.isArray(v)) {
      stack.push(']');
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ v: v[i] === undefined ? null : v[i] });
        if (i > 0) stack.push(',');
      }
      out('[');
      continue;
    }
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    stack.push('}');
    for (let i = keys.length - 1; i >= 0; i--) {
      stack.push({ v: obj[keys[i]] });
      stack.push(`${JSON.stringify(keys[i])}:`);
      if (i > 0) stack.push(',');
    }
    out('{');
  }
  hash.update(buf);
  return hash.digest('base64url');
}
