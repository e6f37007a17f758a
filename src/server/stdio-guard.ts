/**
 * The line guard in front of `serve({stdio: true})`'s transport (and so of `parley serve --stdio`). The
 * SDK's `StdioServerTransport` drops a line that is not JSON without a word, reports a line that is not a
 * JSON-RPC message only to `onerror`, and closes the connection once 10 MB arrive without a newline: the
 * client that sent it waits for an answer that never comes, or loses the connection. This guard reads
 * stdin line by line first and answers each line it refuses (JSON-RPC 2.0 §5.1), keeping the connection:
 * - a line over {@link MAX_STDIO_LINE_BYTES}: -32600, `id: null` (the line is not kept while it arrives);
 * - nesting deeper than {@link MAX_JSON_DEPTH}: -32600, `id: null`;
 * - not JSON: -32700 Parse error, `id: null`;
 * - a batch (a JSON array; MCP has none since 2025-06-18): -32600, `id: null`;
 * - not a JSON-RPC 2.0 request, notification or response: -32600 with the request's `id` when it has a
 *   valid one (string or integer) and a `method`, else `id: null` (a malformed response is never answered
 *   with its own id, which would read as the answer to one of the client's own requests).
 * Lines that pass go on unchanged, so the SDK parses and validates them as before. Blank lines are
 * skipped. Every check is one linear pass over a bounded line.
 * @module
 */
import { Transform } from 'node:stream';
import type { Readable } from 'node:stream';
import { MAX_JSON_DEPTH, overDeepAt } from '../schema/json-depth.js';
import { checkJsonRpcMessage, refusal } from './message-check.js';
import type { JsonRpcRefusal } from './message-check.js';

/** Longest stdin line (one JSON-RPC message, newline excluded) `serve({stdio: true})` reads, bytes: 8 MiB. */
export const MAX_STDIO_LINE_BYTES = 8 * 1024 * 1024;

/** The error reply for a refused line. */
export type StdioRefusal = JsonRpcRefusal;

/** What is wrong with one line, or `undefined` when it may go on to the SDK. Exported for its unit test. */
export function checkStdioLine(text: string): StdioRefusal | undefined {
  const deep = overDeepAt(text, MAX_JSON_DEPTH);
  if (deep >= 0)
    return refusal(
      -32600,
      `Invalid Request: the message nests arrays/objects deeper than ${MAX_JSON_DEPTH} levels (at character ${deep}), the most parley reads (MAX_JSON_DEPTH)`,
    );
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch (e) {
    return refusal(-32700, `Parse error: the line is not JSON (${(e as Error).message.slice(0, 200)}); send one JSON-RPC message per line`);
  }
  return checkJsonRpcMessage(m, 'line');
}

/**
 * `input` (stdin) with every refused line answered through `reply` and left out; the lines that pass,
 * each with its newline, for the SDK's `StdioServerTransport`. Memory: at most one line of
 * {@link MAX_STDIO_LINE_BYTES} plus one chunk.
 */
export function guardStdin(input: Readable, reply: (r: StdioRefusal) => void, maxLine = MAX_STDIO_LINE_BYTES): Readable {
  let parts: Buffer[] = [];
  let size = 0;
  /** Bytes of the current line when it went over the cap (the rest is skipped up to its newline). */
  let over = 0;
  const line = (t: Transform, buf: Buffer) => {
    let text = buf.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (!text.trim()) return;
    const r = checkStdioLine(text);
    if (r) reply(r);
    else t.push(Buffer.concat([buf, NEWLINE]));
  };
  const out = new Transform({
    transform(chunk: Buffer, _enc, done) {
      let start = 0;
      while (start <= chunk.length) {
        const nl = chunk.indexOf(0x0a, start);
        const end = nl < 0 ? chunk.length : nl;
        if (over) over += end - start;
        else if (size + end - start > maxLine) {
          over = size + end - start;
          parts = [];
          size = 0;
        } else if (end > start) {
          parts.push(chunk.subarray(start, end));
          size += end - start;
        }
        if (nl < 0) break;
        if (over)
          reply(
            refusal(
              -32600,
              `Invalid Request: a message of ${over} bytes, over ${maxLine} bytes, the most parley reads from one line (MAX_STDIO_LINE_BYTES); send smaller messages`,
            ),
          );
        else line(this, parts.length === 1 ? parts[0] : Buffer.concat(parts, size));
        parts = [];
        size = 0;
        over = 0;
        start = nl + 1;
      }
      done();
    },
  });
  input.on('error', (e) => out.destroy(e));
  return input.pipe(out);
}

const NEWLINE = Buffer.from('\n');
