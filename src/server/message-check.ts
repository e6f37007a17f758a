/**
 * The JSON-RPC 2.0 shape check of one incoming message (already parsed), shared by the stdio line guard
 * (`./stdio-guard.ts`) and the HTTP body reader of 2025-era sessions (`./serve.ts`): the SDK's transports
 * answer such a message -32700 Parse error with `id: null` (HTTP) or drop it (stdio), where JSON-RPC 2.0
 * §5.1 asks for -32600 Invalid Request, with the request's id when it has one. Constant time apart from
 * the top-level key scan.
 * @module
 */

/** The error reply for a refused message. */
export interface JsonRpcRefusal {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

/** A refusal with `code`, `message` and `id` (`null` when it cannot be known). */
export const refusal = (code: number, message: string, id: string | number | null = null): JsonRpcRefusal => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const validId = (v: unknown): v is string | number => typeof v === 'string' || Number.isInteger(v);

/**
 * What is wrong with message `m`, or `undefined` when it is a JSON-RPC 2.0 request, notification or
 * response. A batch (a JSON array; MCP has none since 2025-06-18) and a non-object get -32600 with
 * `id: null`; any other fault -32600 with the request's `id` when it has a valid one (string or integer)
 * and a `method`, else `id: null` (a malformed response is never answered with its own id, which would
 * read as the answer to one of the client's own requests). `unit` names what carried it ("line", "body").
 */
export function checkJsonRpcMessage(m: unknown, unit: 'line' | 'body'): JsonRpcRefusal | undefined {
  if (Array.isArray(m))
    return refusal(
      -32600,
      `Invalid Request: JSON-RPC batches are not part of MCP (since 2025-06-18); send one message per ${unit === 'line' ? 'line' : 'request'}`,
    );
  if (!isObject(m)) return refusal(-32600, 'Invalid Request: a JSON-RPC message is a JSON object');
  const isCall = 'method' in m;
  const id = isCall && validId(m.id) ? m.id : null;
  const bad = (why: string) => refusal(-32600, `Invalid Request: ${why}`, id);
  if (m.jsonrpc !== '2.0') return bad('"jsonrpc" must be "2.0"');
  if ('id' in m && !validId(m.id)) return bad('"id" must be a string or an integer');
  if (isCall) {
    if (typeof m.method !== 'string') return bad('"method" must be a string');
    if ('params' in m && !isObject(m.params)) return bad('"params" must be an object');
    return undefined;
  }
  if (!('id' in m)) return bad('a message needs a "method" (request, notification) or an "id" (response)');
  if ('result' in m === 'error' in m) return bad('a response has exactly one of "result" and "error"');
  if ('result' in m && !isObject(m.result)) return bad('"result" must be an object');
  if ('error' in m) {
    const e = m.error;
    if (!isObject(e) || !Number.isInteger(e.code) || typeof e.message !== 'string')
      return bad('"error" must be an object with an integer "code" and a string "message"');
  }
  return undefined;
}
