/**
 * A configuration document: its parsed value plus a locator from JSON pointer segments to 1-based
 * line:column. Text is parsed as JSONC (comments and trailing commas allowed) with `jsonc-parser`,
 * which also reports error offsets.
 * @module
 */
import { parseTree, printParseErrorCode } from 'jsonc-parser';
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

/**
 * Maps character offsets of `text` to 1-based line:column: the line starts are found once, each lookup
 * is a binary search (many issues in a large file stay linear overall).
 */
export function positions(text: string): (offset: number) => Position {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo] + 1 };
  };
}

/**
 * The node at `segments` below `root`. An object's properties are indexed by name on first use, so
 * locating every entry of a large object stays linear (jsonc-parser's own lookup scans the siblings).
 */
function nodeAt(root: Node, segments: Segments, index: WeakMap<Node, Map<string, Node>>): Node | undefined {
  let node: Node | undefined = root;
  for (const seg of segments) {
    if (node?.type === 'array') node = typeof seg === 'number' ? node.children?.[seg] : undefined;
    else if (node?.type === 'object') {
      let byName = index.get(node);
      if (!byName) {
        byName = new Map();
        for (const prop of node.children ?? []) {
          const [k, v] = prop.children ?? [];
          if (k && v) byName.set(String(k.value), v); // a repeated key: the last one wins, as in the value
        }
        index.set(node, byName);
      }
      node = byName.get(String(seg));
    } else return undefined;
  }
  return node;
}

/**
 * Parses JSONC text. Syntax errors come back as `parse` issues with line:column; the value is then
 * `undefined` (a half-read configuration must not start servers).
 */
export function parseConfigText(file: string, text: string): { source: ConfigSource; issues: ConfigIssue[] } {
  const errors: ParseError[] = [];
  const body = text.charCodeAt(0) === 0xfeff ? ' ' + text.slice(1) : text; // keep offsets stable under a BOM
  const root = parseTree(body, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const position = positions(body);
  const issues: ConfigIssue[] = errors.map((e) => ({
    code: 'parse',
    path: '',
    severity: 'error',
    message: `invalid JSON: ${describe(printParseErrorCode(e.error))}`,
    fix: 'fix the syntax at this position (comments and trailing commas are allowed)',
    file,
    ...position(e.offset),
  }));
  const value = issues.length === 0 && root ? nodeValue(root) : undefined;
  const index = new WeakMap<Node, Map<string, Node>>();
  const locate = (segments: Segments, opts?: { key?: boolean }): Position | undefined => {
    const node = root && nodeAt(root, segments, index);
    if (!node) return undefined;
    const at = opts?.key && node.parent?.type === 'property' ? node.parent : node;
    return position(at.offset);
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
