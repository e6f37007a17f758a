/**
 * Bounded capture of a stdio server's stderr. Keeps the newest lines within both bounds:
 * at most {@link STDERR_MAX_LINES} lines and {@link STDERR_MAX_BYTES} bytes (UTF-8) in total; a single
 * line longer than {@link STDERR_MAX_LINE_BYTES} is truncated and marked with `…`.
 * stderr is informational (`protocol.md` §5.2: not treated as errors).
 * @module
 */
export const STDERR_MAX_LINES = 500;
export const STDERR_MAX_BYTES = 64 * 1024;
export const STDERR_MAX_LINE_BYTES = 4096;

export class StderrRing {
  #lines: string[] = [];
  #bytes = 0;
  #partial = '';

  constructor(
    private readonly maxLines = STDERR_MAX_LINES,
    private readonly maxBytes = STDERR_MAX_BYTES,
  ) {}

  /** Feeds a raw chunk; returns the complete lines it finished (for per-line events). */
  write(chunk: string): string[] {
    const parts = (this.#partial + chunk).split(/\r?\n/);
    this.#partial = parts.pop() ?? '';
    if (Buffer.byteLength(this.#partial) > STDERR_MAX_LINE_BYTES) {
      parts.push(this.#partial);
      this.#partial = '';
    }
    const done = parts.map(truncate);
    for (const line of done) this.#push(line);
    return done;
  }

  /** Flushes an unterminated last line (call when the stream ends). */
  end(): string[] {
    if (!this.#partial) return [];
    const line = truncate(this.#partial);
    this.#partial = '';
    this.#push(line);
    return [line];
  }

  lines(): string[] {
    return [...this.#lines];
  }

  #push(line: string): void {
    this.#lines.push(line);
    this.#bytes += Buffer.byteLength(line) + 1;
    while (this.#lines.length > this.maxLines || (this.#bytes > this.maxBytes && this.#lines.length > 1)) {
      this.#bytes -= Buffer.byteLength(this.#lines.shift()!) + 1;
    }
  }
}

function truncate(line: string): string {
  if (Buffer.byteLength(line) <= STDERR_MAX_LINE_BYTES) return line;
  return Buffer.from(line).subarray(0, STDERR_MAX_LINE_BYTES).toString('utf8') + '…';
}
