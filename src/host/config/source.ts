/**
 * A configuration document: its parsed value plus a locator from JSON pointer segments to 1-based
 * line:column. Text is parsed as JSONC (comments and trailing commas allowed) with `jsonc-parser`,
 * which also reports error offsets.
 * @module
 */
import { findNodeAtLocation, parseTree, printParseErrorCode } from 'jsonc-parser';
import type { Node, ParseError } from 'jsonc-parser';
import type { ConfigIssue } from './issues.js';

export type Segments = ReadonlyArray<string | number>;

export interface Position {
  line: number;
  column: number;
}

export interface ConfigSource {
  /** File path, `'<embedded>'` or `'<flag>'`. */
  file: string;
  /** The parsed value; `undefined` when parsing failed. */
  value: unknown;
  /** Position of the value at `segments`; with `key: true`, of its property name. `undefined` when unknown. */
  locate(segments: Segments, opts?: { key?: boolean }): Position | undefined;
}

/** Maps a character offset to 1-based line:column. */
export function offsetToPosition(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Parses JSONC text. Syntax errors come back as `parse` issues with line:column; the value is then
 * `undefined` (a half-read configuration must not start servers).
 */
export function parseConfigText(file: string, text: string): { source: ConfigSource; issues: ConfigIssue[] } {
  const errors: ParseError[] = [];
  const body = text.charCodeAt(0) === 0xfeff ? ' ' + text.slice(1) : text; // keep offsets stable under a BOM
  const root = parseTree(body, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const issues: ConfigIssue[] = errors.map((e) => ({
    code: 'parse',
    path: '',
    severity: 'error',
    message: `invalid JSON: ${describe(printParseErrorCode(e.error))}`,
    fix: 'fix the syntax at this position (comments and trailing commas are allowed)',
    file,
    ...offsetToPosition(body, e.offset),
  }));
  const value = issues.length === 0 && root ? nodeValue(root) : undefined;
  const locate = (segments: Segments, opts?: { key?: boolean }): Position | undefined => {
    if (!root) return undefined;
    const node = findNodeAtLocation(root, [...segments]);
    if (!node) return undefined;
    const at = opts?.key && node.parent?.type === 'property' ? node.parent : node;
    return offsetToPosition(body, at.offset);
  };
  return { source: { file, value, locate }, issues };
}

/** A source for a value that has no text (the caller's embedded default). */
export function valueSource(file: string, value: unknown): ConfigSource {
  return { file, value, locate: () => undefined };
}

function describe(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

// Own value builder so that a `"__proto__"` key in a file stays plain data (defineProperty, not assignment).
function nodeValue(node: Node): unknown {
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const prop of node.children ?? []) {
        const [k, v] = prop.children ?? [];
        if (k && v)
          Object.defineProperty(out, String(k.value), { value: nodeValue(v), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case 'array':
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}
