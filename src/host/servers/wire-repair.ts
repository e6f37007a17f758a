/**
 * Raw-message repair for Streamable HTTP. The SDK v2 transports parse each incoming
 * message with their JSON-RPC schema and drop, unanswered, a request whose `params` is not an object
 * (`null`, an array, a value) or whose `params._meta` is not an object: its id never reaches any hook.
 * Over HTTP parley sees the bytes first, through the transport's public `fetch` option: such a request
 * is rewritten to `params: {_meta: {[ORIGINAL_PARAMS]: <the original params>}}`, which the transport
 * accepts; the screen (`screen.ts`) then hands the original to the broker, which answers -32602.
 * Everything else passes byte for byte. parley's stdio transport (`stdio-transport.ts`) reads its lines
 * itself and wraps the same way ({@link repairMessage}). It also tells which 2025-era tool call a
 * server request on a POST's SSE stream belongs to ({@link repairingFetch} `streams`, `calls.ts`).
 *
 * A response (JSON body, one of a batch, or SSE event) nesting arrays/objects deeper than `MAX_JSON_DEPTH`
 * is replaced by a -32600 error response of the same id ({@link TOO_DEEP}): the SDK would hand the value
 * on, and `JSON.stringify` overflows the stack on it (~10 000 levels), so the gateway could never pass it
 * to its client. The id is read from the message's top level (or, for an event too long to parse here,
 * from its first and last 4 KiB). Requests and notifications that deep pass (the screen refuses a deep
 * `requestedSchema`; parley's stdio reader answers them itself).
 *
 * Bounds: one SSE event is buffered at a time; one over {@link MAX_EVENT_CHARS} characters is not parsed
 * (only its nesting is checked), and one (or a JSON body, or the body of an error status) over {@link MAX_HTTP_MESSAGE_CHARS}
 * ends the body with an error;
 * work is linear in the bytes received.
 * @module
 */

import { CALL_HEADER, type StreamCalls } from './calls.js';
import { MAX_JSON_DEPTH, overDeepAt } from '../../schema/json-depth.js';
import { PEEK_BYTES, peekMembers } from './stdio-lines.js';

/** How a message nesting too deeply is described (the error message of the response that replaces it). */
export const TOO_DEEP = `nests arrays/objects deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH), the most parley reads`;

/** The `_meta` key that carries a request's original, non-object `params` past the SDK's parse. */
export const ORIGINAL_PARAMS = 'io.parley/original-params';

/** Longest SSE event (characters) looked at; longer ones pass through untouched. */
export const MAX_EVENT_CHARS = 4 * 1024 * 1024;

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The message with unparseable `params` wrapped (see the module comment), or `undefined` when it needs nothing. */
export function repairMessage(m: unknown): Record<string, unknown> | undefined {
  if (!isPlain(m) || typeof m.method !== 'string' || !('params' in m)) return undefined;
  const p = m.params;
  if (isPlain(p) && (!('_meta' in p) || isPlain(p._meta))) return undefined;
  return { ...m, params: { _meta: { [ORIGINAL_PARAMS]: p } } };
}

/** The -32600 error response that stands for a response nesting too deeply. */
function deepError(id: string | number): Record<string, unknown> {
  return { jsonrpc: '2.0', id, error: { code: -32600, message: `the server's response ${TOO_DEEP}` } };
}

/** Whether `v` nests arrays/objects deeper than `max` levels (itself level 1); iterative, linear in its size. */
function deeperThan(v: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[v, 1]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    if (d > max) return true;
    for (const c of Array.isArray(x) ? x : Object.values(x)) if (typeof c === 'object' && c !== null) stack.push([c, d + 1]);
  }
  return false;
}

/**
 * `deepError` for `m` when it is a response (no method, a usable id) nesting too deeply (`known`: the
 * caller's text scan already found that it does); else `undefined`.
 */
function deepOne(m: unknown, known: boolean): Record<string, unknown> | undefined {
  if (!isPlain(m) || 'method' in m) return undefined;
  const id = m.id;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isInteger(id))) return undefined;
  return known || deeperThan(m, MAX_JSON_DEPTH) ? deepError(id) : undefined;
}

/**
 * JSON text of a message too long to parse here (an SSE event over {@link MAX_EVENT_CHARS}): the
 * `deepError` of its id when it is a response nesting too deeply, else the same text.
 */
function deepLongText(text: string): string {
  if (overDeepAt(text, MAX_JSON_DEPTH) < 0) return text;
  const { id, method } = peekMembers(text.slice(0, PEEK_BYTES), text.slice(-PEEK_BYTES));
  return method === undefined && id !== undefined ? JSON.stringify(deepError(id)) : text;
}

/** JSON text of one message or a batch, repaired; the same text when nothing needed repair or it is not JSON. */
export function repairJsonText(text: string, seen?: (message: unknown) => void): string {
  // Nesting deeper than MAX_JSON_DEPTH takes at least twice as many characters.
  const deep = text.length > 2 * MAX_JSON_DEPTH && overDeepAt(text, MAX_JSON_DEPTH) >= 0;
  // A deep response whose id shows in its first or last 4 KiB is answered without parsing it: parsing
  // a value nested 10^5 levels deep costs more than linear time (the young-generation GC copies the
  // whole live chain at each scavenge).
  if (deep && text.trimStart().startsWith('{')) {
    const fixed = deepLongText(text);
    if (fixed !== text) return fixed;
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return text;
  }
  seen?.(v);
  if (Array.isArray(v)) {
    let changed = false;
    const out = v.map((m) => {
      const r = repairMessage(m) ?? (deep ? deepOne(m, false) : undefined);
      if (r) changed = true;
      return r ?? m;
    });
    return changed ? JSON.stringify(out) : text;
  }
  const r = repairMessage(v) ?? (deep ? deepOne(v, true) : undefined);
  return r ? JSON.stringify(r) : text;
}

/**
 * Largest SSE event (characters, its lines together, the line still arriving included) and largest JSON
 * body (UTF-8 bytes) parley reads from a Streamable HTTP server: 16 MiB, as a stdio line
 * (`MAX_STDIO_MESSAGE_BYTES`). Over it the body ends with an error naming this cap, so a server that
 * sends one endless line cannot grow the host's memory without bound.
 */
export const MAX_HTTP_MESSAGE_CHARS = 16 * 1024 * 1024;

const overCap = (what: string, max: number) =>
  new Error(`the server sent ${what} over ${max} characters (MAX_HTTP_MESSAGE_CHARS), the most parley reads; the response was cut off`);

/**
 * A TransformStream over an SSE body that repairs each event's `data` (text in, text out). Each chunk
 * is scanned once (the line still arriving is kept as pieces), so work is linear in the bytes received.
 */
function sseRepair(max: number, cut: (what: string) => Error, seen?: (message: unknown) => void): TransformStream<string, string> {
  let pieces: string[] = [];
  let partial = 0;
  let event: string[] = [];
  let size = 0;
  const flushEvent = (out: TransformStreamDefaultController<string>, end: string) => {
    const data = event.filter((l) => l.startsWith('data:')).map((l) => (l.startsWith('data: ') ? l.slice(6) : l.slice(5)));
    if (data.length) {
      const joined = data.join('\n');
      const fixed = size <= MAX_EVENT_CHARS ? repairJsonText(joined, seen) : deepLongText(joined);
      if (fixed !== joined) {
        const others = event.filter((l) => !l.startsWith('data:'));
        out.enqueue([...others, `data: ${fixed}`].join('\n') + '\n' + end);
        event = [];
        size = 0;
        return;
      }
    }
    out.enqueue(event.map((l) => l + '\n').join('') + end);
    event = [];
    size = 0;
  };
  return new TransformStream<string, string>({
    transform(chunk, out) {
      let start = 0;
      for (;;) {
        const at = chunk.indexOf('\n', start);
        const piece = at < 0 ? chunk.slice(start) : chunk.slice(start, at);
        if (size + partial + piece.length > max) {
          pieces = [];
          event = [];
          return out.error(cut('an SSE event'));
        }
        if (at < 0) {
          if (piece) pieces.push(piece);
          partial += piece.length;
          return;
        }
        let line = pieces.length ? pieces.join('') + piece : piece;
        pieces = [];
        partial = 0;
        if (line.endsWith('\r')) line = line.slice(0, -1);
        if (line === '') flushEvent(out, '\n');
        else {
          event.push(line);
          size += line.length;
        }
        start = at + 1;
      }
    },
    flush(out) {
      if (pieces.length) event.push(pieces.join(''));
      if (event.length) out.enqueue(event.join('\n'));
    },
  });
}

/** Notes each server request (a message with `method` and an `id`) of one call's stream in `streams`. */
function noteRequests(streams: StreamCalls, callId: string): (message: unknown) => void {
  return (m) => {
    const r = m as { id?: unknown; method?: unknown };
    if (isPlain(r) && typeof r.method === 'string' && (typeof r.id === 'number' || typeof r.id === 'string')) streams.note(r.id, callId);
  };
}

/** The body as text, or an error once it goes over `max` UTF-8 bytes (read no further). */
async function textUpTo(res: Response, max: number, cut: (what: string) => Error): Promise<string> {
  const reader = res.body!.getReader();
  const parts: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > max) {
      await reader.cancel().catch(() => undefined);
      throw cut('a JSON body');
    }
    parts.push(value);
  }
  return Buffer.concat(parts, n).toString('utf8');
}

/** A byte stream that errors (naming the cap) once more than `max` bytes went through. */
function byteCap(max: number, cut: (what: string) => Error): TransformStream<Uint8Array, Uint8Array> {
  let n = 0;
  return new TransformStream({
    transform(chunk, out) {
      n += chunk.length;
      if (n > max) out.error(cut('an error body'));
      else out.enqueue(chunk);
    },
  });
}

/**
 * The `CALL_HEADER` value of a request, removed from `init.headers` (a `Headers`, as the SDK's Streamable
 * HTTP transport sends); `undefined` when absent.
 */
function takeCallHeader(init: RequestInit | undefined): string | undefined {
  const h = init?.headers;
  if (!(h instanceof Headers)) return undefined;
  const v = h.get(CALL_HEADER);
  if (v !== null) h.delete(CALL_HEADER);
  return v ?? undefined;
}

/**
 * A `fetch` for the SDK's HTTP transports that repairs incoming messages and caps their size (see the
 * module comment). `onOverCap` is told (with the error the body ends with) when a body goes over `max`:
 * the legacy HTTP+SSE transport closes itself then, as its EventSource would otherwise reconnect.
 * With `streams`, a POST carrying `CALL_HEADER` (a 2025-era `tools/call`, `tool-call.ts`) is sent
 * without it, and each server request on its SSE response is noted as that call's (`calls.ts`).
 */
export function repairingFetch(
  inner: typeof fetch = fetch,
  max = MAX_HTTP_MESSAGE_CHARS,
  onOverCap?: (err: Error) => void,
  streams?: StreamCalls,
): typeof fetch {
  const cut = (what: string) => {
    const err = overCap(what, max);
    onOverCap?.(err);
    return err;
  };
  return async (input, init) => {
    const callId = streams ? takeCallHeader(init) : undefined;
    const res = await inner(input, init);
    const type = res.headers.get('content-type') ?? '';
    if (!res.body) return res;
    // An error status's body is read whole by the SDK for its message (`response.text()`): capped too.
    if (!res.ok) return new Response(res.body.pipeThrough(byteCap(max, cut)), res);
    if (type.includes('text/event-stream')) {
      const seen = callId !== undefined && streams ? noteRequests(streams, callId) : undefined;
      const body = res.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(sseRepair(max, cut, seen))
        .pipeThrough(new TextEncoderStream());
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    if (type.includes('application/json')) {
      const text = await textUpTo(res, max, cut);
      const fixed = repairJsonText(text);
      const headers = new Headers(res.headers);
      headers.delete('content-length');
      return new Response(fixed, { status: res.status, statusText: res.statusText, headers });
    }
    return res;
  };
}
