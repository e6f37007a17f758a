/**
 * A small glob → RegExp compiler for URI routes. Own code because `minimatch`/`picomatch` are not
 * dependencies; the syntax is deliberately small:
 *
 * - `**` any run of characters including `/` (a whole segment `/**` at the end also matches the
 *   directory itself: `file:///srv/data/**` matches `file:///srv/data`);
 * - `*` any run of characters except `/`;
 * - `?` exactly one character except `/`;
 * - `\x` the literal `x`; every other character is literal (no `{a,b}`, no `[...]`).
 *
 * Matching is anchored (the whole URI) and case-sensitive; callers normalise URIs first.
 * @module
 */
import { LinearPattern, type Token } from './pattern.js';

/**
 * Compiles `glob` to an anchored matcher (`test(uri)`), linear in the URI's length (`pattern.ts`: no
 * backtracking RegExp, so `a*b*c*d` cannot take polynomial time on a long URI). Never throws: every
 * input is a valid glob here.
 */
export function globToRegExp(glob: string): LinearPattern {
  const toks: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\' && i + 1 < glob.length) {
      toks.push({ kind: 'lit', ch: glob[++i] });
    } else if (c === '*' && glob[i + 1] === '*') {
      while (glob[i + 1] === '*') i++;
      const last = toks[toks.length - 1];
      // "/**" at the end: the directory itself or anything below it.
      if (last?.kind === 'lit' && last.ch === '/' && i === glob.length - 1) toks[toks.length - 1] = { kind: 'opt', first: '/', excl: '' };
      else toks.push({ kind: 'star', excl: '' });
    } else if (c === '*') toks.push({ kind: 'star', excl: '/' });
    else if (c === '?') toks.push({ kind: 'one', excl: '/' });
    else toks.push({ kind: 'lit', ch: c });
  }
  return new LinearPattern(toks);
}
