/**
 * Terminal output helpers for the CLI: colour only on a TTY and never when `NO_COLOR` is set
 * (https://no-color.org), and the documented exit codes.
 * @module
 */

import { termText } from '../ui/terminal/safe-text.js';
import { parse, type ParseError } from 'jsonc-parser';

/** Exit codes of every `parley` command. */
/**
 * A time as people read it at the terminal and in the console: ISO 8601 UTC to the second,
 * `2026-12-01 19:26:03Z` (the console's `fmtTime` writes the same). `ms` is epoch milliseconds.
 */
export function timeText(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

export const EXIT = {
  /** Success (lint: no errors; warnings allowed). */
  OK: 0,
  /** The command ran and found errors (lint errors, invalid configuration, a failed tool call). */
  FAILED: 1,
  /** Unusable input: unreadable file, bad JSON, unknown document, bad flags. */
  USAGE: 2,
} as const;

/**
 * A server's text as printed to `stream`: on a terminal, its control and bidirectional-control
 * characters are shown instead of obeyed (`termText`, line breaks kept), so a tool result cannot clear
 * the screen, move the cursor or set the window title; piped or redirected, the text is written as it is.
 */
export function serverText(text: string, stream: NodeJS.WriteStream = process.stdout): string {
  return stream.isTTY ? termText(text, { lines: true }) : text;
}

/** Whether to colour `stream`. */
export function useColour(stream: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && env.NO_COLOR === undefined && env.TERM !== 'dumb';
}

type Paint = (s: string) => string;
export interface Palette {
  red: Paint;
  yellow: Paint;
  dim: Paint;
  bold: Paint;
  green: Paint;
}
const code =
  (open: number, close: number): Paint =>
  (s) =>
    `\x1b[${open}m${s}\x1b[${close}m`;
const plain: Paint = (s) => s;

/** ANSI colours when `on`, identity functions otherwise. */
export function palette(on: boolean): Palette {
  return on
    ? { red: code(31, 39), yellow: code(33, 39), dim: code(2, 22), bold: code(1, 22), green: code(32, 39) }
    : { red: plain, yellow: plain, dim: plain, bold: plain, green: plain };
}

/**
 * Where a `JSON.parse` failure is, as people find it in an editor: `line 3, column 14: <reason>`
 * (1-based; columns count UTF-16 code units). The place is the engine's "at position N"; when its
 * message has none (V8's `Unexpected token '}', "…" is not valid JSON`, `Unexpected end of JSON
 * input`), it is the first error jsonc-parser finds parsing `text` as strict JSON (the end of the text
 * for one that ended early). The reason is the engine's, without its quote of the text.
 */
export function jsonErrorText(text: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const at = /\bat position (\d+)/.exec(message);
  const pos = Math.min(at ? Number(at[1]) : strictJsonErrorOffset(text), text.length);
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const column = pos - (before.lastIndexOf('\n') + 1) + 1;
  const reason = message
    .replace(/\s*in JSON at position \d+.*$/s, '')
    .replace(/\s*at position \d+.*$/s, '')
    .replace(/, ".*" is not valid JSON$/s, '');
  return `line ${line}, column ${column}: ${reason}`;
}

/** Offset of the first error in `text` read as strict JSON (no comments, no trailing commas); its length when none is found. */
function strictJsonErrorOffset(text: string): number {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  return errors[0]?.offset ?? text.length;
}

/** Thrown by commands for an expected failure: printed as one line, then exit with `exitCode`. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.USAGE,
  ) {
    super(message);
  }
}

/** `text` without a leading UTF-8 byte-order mark (Windows editors write one; `JSON.parse` refuses it). */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
