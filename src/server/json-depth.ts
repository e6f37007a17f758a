/**
 * The nesting bound of incoming JSON-RPC messages, shared by the HTTP body reader (`./serve.ts`) and the
 * stdio line guard (`./stdio-guard.ts`).
 * @module
 */

/**
 * Deepest nesting of arrays and objects `serve` accepts in a request body (levels; the message itself is
 * level 1). Deeper bodies get HTTP 400 with JSON-RPC -32600 (Invalid Request) naming this cap, before the
 * body is parsed: no MCP message needs more, and validators that recurse per level would fail on them.
 * @default 128
 */
export const MAX_JSON_DEPTH = 128;

/**
 * Position (UTF-16 index into `text`) of the first `[` or `{` that nests deeper than `max` levels, or
 * -1. One linear pass; brackets inside JSON strings do not count.
 */
export function overDeepAt(text: string, max: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}
