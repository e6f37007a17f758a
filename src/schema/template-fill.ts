/**
 * Which variables of a resource template a URI leaves out (MCP `resources/templates/list`, RFC 6570):
 * reading `sql-query://orders` against `sql-query://{table}{?range}` gives `{table: 'orders'}` known
 * and `range` missing, so a host can ask a person for `range` and expand the template again.
 *
 * PURE, and no template parser of its own: the caller passes the SDK's `UriTemplate` (anything with
 * `variableNames` and `expand`). For each set of missing variables, smallest first, the template is
 * expanded with sentinel values for the others; the literal text between sentinels is located in the
 * URI left to right (`indexOf`, no regular expression, linear in the URI per candidate); every
 * candidate is then checked by expanding the template with the values found, which must give the URI
 * exactly. Ambiguous candidates (two variables with no literal text between them) are skipped.
 * @module
 */

/** What this module needs of a template: the SDK's `UriTemplate` fits. */
export interface TemplateLike {
  readonly variableNames: string[];
  expand(variables: Record<string, string | string[]>): string;
}

/** Longest URI looked at, in characters (longer ones never match). */
export const TEMPLATE_FILL_MAX_URI = 2048;
/** Most variables a template may have to be completed (2^n candidate sets are tried). */
export const TEMPLATE_FILL_MAX_VARS = 8;

export interface TemplateFill {
  /** Variables the URI gives, decoded. */
  known: Record<string, string>;
  /** Variables the URI leaves out, in template order; empty when the URI matches fully. */
  missing: string[];
}

const sentinel = (i: number) => `PaRlEyVaR${i}x`;

/** Subsets of `n` indexes with `k` members, in lexicographic order. */
function* combinations(n: number, k: number, start = 0, acc: number[] = []): Generator<number[]> {
  if (acc.length === k) return void (yield [...acc]);
  for (let i = start; i <= n - (k - acc.length); i++) {
    acc.push(i);
    yield* combinations(n, k, i + 1, acc);
    acc.pop();
  }
}

function decode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** Tries `missing` as the left-out set: values of the other variables, or undefined. */
function tryMissing(t: TemplateLike, names: string[], missing: Set<string>, uri: string): Record<string, string> | undefined {
  const present = names.filter((n) => !missing.has(n));
  const vars: Record<string, string> = {};
  present.forEach((n, i) => (vars[n] = sentinel(i)));
  let pattern: string;
  try {
    pattern = t.expand(vars);
  } catch {
    return undefined;
  }
  // Split the pattern into literal text and sentinels, in order of appearance.
  const parts: Array<{ lit: string } | { v: string }> = [];
  let rest = pattern;
  for (;;) {
    let at = -1;
    let which = -1;
    present.forEach((_, i) => {
      const j = rest.indexOf(sentinel(i));
      if (j >= 0 && (at < 0 || j < at)) (at = j), (which = i);
    });
    if (at < 0) break;
    parts.push({ lit: rest.slice(0, at) }, { v: present[which] });
    rest = rest.slice(at + sentinel(which).length);
  }
  parts.push({ lit: rest });
  const seen = parts.filter((p) => 'v' in p).map((p) => (p as { v: string }).v);
  if (seen.length !== present.length || new Set(seen).size !== seen.length) return undefined; // a variable expanded twice or not at all
  // Walk the URI: literal parts must appear in order; a variable takes the text up to the next literal.
  const known: Record<string, string> = {};
  let pos = 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if ('lit' in p) {
      if (!uri.startsWith(p.lit, pos)) return undefined;
      pos += p.lit.length;
      continue;
    }
    const next = parts[i + 1] as { lit: string };
    if (next.lit === '' && i + 2 < parts.length) return undefined; // two variables back to back: ambiguous
    const end = i + 2 >= parts.length ? uri.length - next.lit.length : uri.indexOf(next.lit, pos);
    if (end < pos) return undefined;
    const value = decode(uri.slice(pos, end));
    if (value === undefined || value === '') return undefined;
    known[p.v] = value;
    pos = end;
  }
  if (pos !== uri.length) return undefined;
  // The proof: the template expanded with these values is the URI.
  try {
    return t.expand(known) === uri ? known : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The smallest set of variables `uri` leaves out of `t`, with the values it gives for the others.
 * @returns undefined when the URI is no expansion of the template with some variables left out, is
 *   longer than {@link TEMPLATE_FILL_MAX_URI}, or the template has more than {@link TEMPLATE_FILL_MAX_VARS}
 *   variables. `missing` is empty when the URI gives every variable.
 */
export function fillFromUri(t: TemplateLike, uri: string): TemplateFill | undefined {
  if (typeof uri !== 'string' || uri.length > TEMPLATE_FILL_MAX_URI) return undefined;
  const names = [...new Set(t.variableNames)];
  if (names.length > TEMPLATE_FILL_MAX_VARS) return undefined;
  for (let k = 0; k <= names.length; k++) {
    for (const idx of combinations(names.length, k)) {
      const missing = new Set(idx.map((i) => names[i]));
      const known = tryMissing(t, names, missing, uri);
      if (known) return { known, missing: names.filter((n) => missing.has(n)) };
    }
  }
  return undefined;
}
