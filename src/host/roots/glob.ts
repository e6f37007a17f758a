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

/** Compiles `glob` to an anchored RegExp. Never throws: every input is a valid glob here. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\' && i + 1 < glob.length) {
      re += escape(glob[++i]);
    } else if (c === '*' && glob[i + 1] === '*') {
      while (glob[i + 1] === '*') i++;
      // "/**" at the end: the directory itself or anything below it.
      if (re.endsWith('/') && i === glob.length - 1) re = re.slice(0, -1) + '(?:/.*)?';
      else re += '.*';
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += escape(c);
  }
  return new RegExp(`^${re}$`, 's');
}

function escape(c: string): string {
  return /[.*+?^${}()|[\]\\]/.test(c) ? '\\' + c : c;
}
