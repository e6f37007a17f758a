/**
 * The nesting bound of incoming JSON-RPC messages, shared by the toolkit's readers of what clients send
 * (the HTTP body reader `src/server/serve.ts`, the stdio line guard `src/server/stdio-guard.ts`) and the
 * host's readers of what servers send (`src/host/servers/stdio-transport.ts`, `wire-repair.ts`).
 * @module
 */

/**
 * Deepest nesting of arrays and objects parley accepts in one JSON-RPC message (levels; the message itself
 * is level 1). `serve` answers a deeper request body HTTP 400 with JSON-RPC -32600 (Invalid Request) naming
 * this cap, before the body is parsed; the host ends its request with -32600 when a server's response is
 * deeper. No MCP message needs more, and validators that recurse per level, `JSON.stringify` and
 * `structuredClone` overflow the stack on deeper values (about 10 000 levels).
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
