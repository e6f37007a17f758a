/**
 * "Did you mean …?" for a misspelt name: {@link editDistance} and {@link nearest}.
 * Pure; bounded: words longer than {@link NEAR_MAX_CHARS} characters are never compared, so one
 * comparison is at most 24 × 24 steps.
 * @module
 */

/** Longest word {@link nearest} compares, characters. */
export const NEAR_MAX_CHARS = 24;

/**
 * Edit distance between `a` and `b`: insertions, deletions, substitutions and swaps of two neighbours
 * (`stido` → `stdio` is 1), each of one UTF-16 unit (optimal string alignment). O(|a| × |b|).
 */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) cur[j] = Math.min(cur[j], before[j - 2] + 1);
    }
    before = prev;
    prev = cur;
  }
  return prev[b.length];
}

/**
 * The candidate `word` was most likely meant as, case ignored: an `aliases` entry (lower-case key →
 * candidate), else the closest candidate within `maxEdits` (default: 1 for words of up to 4
 * characters, 2 for longer ones), the first in order on a tie. `undefined` when none is that close, or
 * for a word that already is a candidate or is longer than {@link NEAR_MAX_CHARS}.
 */
export function nearest<T extends string>(
  word: string,
  candidates: readonly T[],
  o: { aliases?: Readonly<Record<string, T>>; maxEdits?: number } = {},
): T | undefined {
  if (word.length > NEAR_MAX_CHARS || (candidates as readonly string[]).includes(word)) return undefined;
  const w = word.toLowerCase();
  if (o.aliases && Object.hasOwn(o.aliases, w)) return o.aliases[w];
  const max = o.maxEdits ?? (w.length <= 4 ? 1 : 2);
  let best: T | undefined;
  let bestD = max + 1;
  for (const c of candidates) {
    if (c.length > NEAR_MAX_CHARS) continue;
    const d = editDistance(w, c.toLowerCase());
    if (d < bestD) (best = c), (bestD = d);
  }
  return best;
}
