// `node:fs` plus a minimal `globSync` for the conformance CLI on Node 20 (see node20-preload.mjs).
// The CLI calls globSync only as `globSync('**/checks.json', {cwd})` (tier-check). This supports
// patterns made of `**`, `*` and literal path segments, which covers that call; anything else throws.
import fs from 'node:fs';
import { join, relative, sep } from 'node:path';

export * from 'node:fs';
export default fs;

function segmentRegExp(seg) {
  if (/[?[\]{}!]/.test(seg)) throw new Error(`node20-fs globSync: unsupported pattern segment "${seg}"`);
  return new RegExp(
    '^' +
      seg
        .split('*')
        .map((s) => s.replace(/[.+^$()|\\]/g, '\\$&'))
        .join('[^/]*') +
      '$',
  );
}

function walk(dir, out) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    out.push(p);
    if (e.isDirectory()) walk(p, out);
  }
}

/** `globSync(pattern, {cwd})` → paths relative to cwd, like Node 22's `fs.globSync`. */
export function globSync(pattern, opts = {}) {
  const cwd = opts.cwd ?? process.cwd();
  const parts = String(pattern)
    .split('/')
    .map((s) => (s === '**' ? null : segmentRegExp(s)));
  const match = (segs, i, j) => {
    if (i === parts.length) return j === segs.length;
    if (parts[i] === null) {
      for (let k = j; k <= segs.length; k++) if (match(segs, i + 1, k)) return true;
      return false;
    }
    return j < segs.length && parts[i].test(segs[j]) && match(segs, i + 1, j + 1);
  };
  const all = [];
  walk(cwd, all);
  return all.map((p) => relative(cwd, p)).filter((r) => match(r.split(sep), 0, 0));
}
