/**
 * parley's own reading of a stdio server's stdout (issue 12 item 5): newline-delimited JSON-RPC, one
 * message per line (`protocol.md` §5.2). The SDK's stdio transport parses each line with its JSON-RPC
 * schema and drops what fails, id and all, and closes the connection when a line outgrows its 10 MiB
 * buffer; this reader hands every line to `stdio-transport.ts`, which answers what it cannot pass on.
 *
 * Bounds: a line over `maxBytes` (default {@link MAX_STDIO_MESSAGE_BYTES}) is not kept: only its first
 * and last {@link PEEK_BYTES} bytes and its length, so memory per connection stays under about
 * `maxBytes`, and reading goes on at the next newline. Work is linear in the bytes read (chunks are
 * joined once per line).
 * @module
 */

/** Largest stdio message (one line, UTF-8 bytes, newline excluded) parley reads: 16 MiB. */
export const MAX_STDIO_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Bytes kept from each end of an oversized line, to read its `id` and `method` from. */
export const PEEK_BYTES = 4096;

/** One line of stdout: its text, or the ends and length of a line over the cap. */
export type Line = { kind: 'line'; text: string } | { kind: 'oversized'; bytes: number; head: string; tail: string };

/** Splits a byte stream into lines of at most `maxBytes` bytes (see the module comment). */
export class LineReader {
  #chunks: Buffer[] = [];
  #size = 0;
  #over: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(
    readonly maxBytes: number = MAX_STDIO_MESSAGE_BYTES,
    readonly peekBytes: number = PEEK_BYTES,
  ) {}

  /** Feeds `chunk`; calls `out` once per complete line, in order. Blank lines are skipped. */
  push(chunk: Buffer, out: (line: Line) => void): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      this.#append(chunk.subarray(start, nl === -1 ? chunk.length : nl));
      if (nl === -1) return;
      const line = this.#finish();
      if (line) out(line);
      start = nl + 1;
    }
  }

  /** Drops a partial line (the stream ended or the transport closed). */
  clear(): void {
    this.#chunks = [];
    this.#size = 0;
    this.#over = undefined;
  }

  #append(piece: Buffer): void {
    if (piece.length === 0) return;
    const over = this.#over;
    if (over) {
      over.bytes += piece.length;
      over.tail = lastBytes([over.tail, piece], this.peekBytes);
      return;
    }
    if (this.#size + piece.length <= this.maxBytes) {
      this.#chunks.push(piece);
      this.#size += piece.length;
      return;
    }
    const parts = [...this.#chunks, piece];
    this.#over = { bytes: this.#size + piece.length, head: firstBytes(parts, this.peekBytes), tail: lastBytes(parts, this.peekBytes) };
    this.#chunks = [];
    this.#size = 0;
  }

  #finish(): Line | undefined {
    const over = this.#over;
    if (over) {
      this.#over = undefined;
      return {
        kind: 'oversized',
        bytes: over.bytes,
        head: over.head.toString('utf8'),
        tail: over.tail.toString('utf8').replace(/\r$/, ''),
      };
    }
    const text = (this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks, this.#size))
      .toString('utf8')
      .replace(/\r$/, '');
    this.#chunks = [];
    this.#size = 0;
    return text.trim() === '' ? undefined : { kind: 'line', text };
  }
}

function firstBytes(parts: Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let got = 0;
  for (const p of parts) {
    if (got >= n) break;
    const take = p.subarray(0, n - got);
    out.push(take);
    got += take.length;
  }
  return Buffer.concat(out, got);
}

function lastBytes(parts: Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let got = 0;
  for (let i = parts.length - 1; i >= 0 && got < n; i--) {
    const p = parts[i];
    const take = p.subarray(Math.max(0, p.length - (n - got)));
    out.unshift(take);
    got += take.length;
  }
  return Buffer.from(Buffer.concat(out, got)); // a copy: the tail must not pin a large chunk
}

/** What the ends of an oversized line say about the message: its top-level `id` and `method`, when there. */
export interface Peek {
  id?: string | number;
  method?: string;
}

/** Commas tried at the end of an oversized line (each try parses at most {@link PEEK_BYTES} bytes). */
const TAIL_TRIES = 32;

/**
 * The top-level members readable from the first and last bytes of a JSON object too large to parse.
 * `head`: scanned from its start (strings and nesting tracked), so the text up to its last top-level
 * comma, closed with `}`, is parsed once. `tail` (ending the line): the text after a comma, opened
 * with `{`, parses only when that comma is a top-level one (a nested or quoted `"id"` never parses
 * that way); up to {@link TAIL_TRIES} commas from the right are tried, the longest parse kept. SDK
 * peers write `id` last (`{"method":…,"params":…,"jsonrpc":"2.0","id":7}`), so both ends are read.
 * Linear in the peeked text.
 */
export function peekMembers(head: string, tail: string): Peek {
  const found: Record<string, unknown> = {};
  const take = (o: unknown) => {
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return false;
    for (const [k, v] of Object.entries(o)) if (!(k in found)) found[k] = v;
    return true;
  };
  const cut = lastTopLevelComma(head);
  if (cut > 0) take(tryParse(`${head.slice(0, cut)}}`));
  const t = tail.trimEnd();
  if (t.endsWith('}')) {
    let best: unknown;
    for (let i = t.lastIndexOf(','), n = 0; i >= 0 && n < TAIL_TRIES; i = i > 0 ? t.lastIndexOf(',', i - 1) : -1, n++) {
      const o = tryParse(`{${t.slice(i + 1)}`);
      if (o !== undefined) best = o;
    }
    take(best);
  }
  const out: Peek = {};
  if (typeof found.id === 'string' || (typeof found.id === 'number' && Number.isInteger(found.id))) out.id = found.id;
  if (typeof found.method === 'string') out.method = found.method;
  return out;
}

/** Index of the last comma directly inside the object `text` opens, or -1 (one pass, strings skipped). */
function lastTopLevelComma(text: string): number {
  let depth = 0;
  let inString = false;
  let last = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth <= 0) return depth === 0 ? i : last; // the object closed: not oversized after all
    } else if (c === 0x2c && depth === 1) last = i;
    else if (depth === 0 && c > 0x20) return -1; // not an object
  }
  return last;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** At most `n` characters of `text` for a log line, with the length when cut. */
export function excerpt(text: string, n = 200): string {
  const cut = text.length > n ? `${text.slice(0, n)}… (${text.length} characters)` : text;
  return JSON.stringify(cut);
}
