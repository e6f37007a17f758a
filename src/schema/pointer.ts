/** JSON pointers (RFC 6901) for issue paths. */

/** Escapes one reference token (`~` → `~0`, `/` → `~1`). */
export function escapeToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Builds a pointer from tokens: `pointer('properties', 'a/b')` → `/properties/a~1b`. */
export function pointer(...tokens: Array<string | number>): string {
  return tokens.map((t) => '/' + escapeToken(t)).join('');
}

/** Appends tokens to an existing pointer. */
export function child(base: string, ...tokens: Array<string | number>): string {
  return base + pointer(...tokens);
}
