/**
 * mulberry32: a tiny 32-bit seeded PRNG. Pure integer arithmetic (Math.imul, >>>), so the same seed gives the
 * same sequence on every machine and Node version. Not for cryptography.
 * @param seed any 32-bit integer (taken modulo 2^32)
 * @returns a function giving floats in [0, 1)
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks an index from `weights` (non-negative, not all zero) using one draw of `rand`. */
export function pickWeighted(rand: () => number, weights: readonly number[]): number {
  let total = 0;
  for (const w of weights) total += w;
  let r = rand() * total;
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i];
    if (r < 0) return i;
  }
  return weights.length - 1;
}
