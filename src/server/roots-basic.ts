/**
 * Minimal roots parsing used until `src/server/roots.ts` (owned by the roots helper) lands.
 * TODO(roots): replace with `parseRootsList` / `resolveInRoots` from `./roots.js`.
 * @module
 */
/** One client root (`file://` URI plus optional name). */
export interface ParleyRoot {
  uri: string;
  name?: string;
}

/** Keeps well-formed `file://` roots; everything else is reported in `dropped` (never throws on peer input). */
export function parseRootsListBasic(raw: unknown): { roots: ParleyRoot[]; dropped: Array<{ index: number; reason: string }> } {
  const list = (raw as { roots?: unknown })?.roots;
  const roots: ParleyRoot[] = [];
  const dropped: Array<{ index: number; reason: string }> = [];
  if (!Array.isArray(list)) return { roots, dropped: [{ index: -1, reason: 'result has no roots array' }] };
  list.forEach((r: any, index) => {
    if (typeof r?.uri !== 'string' || !r.uri.startsWith('file://')) dropped.push({ index, reason: 'uri must be a file:// URI' });
    else roots.push(typeof r.name === 'string' ? { uri: r.uri, name: r.name } : { uri: r.uri });
  });
  return { roots, dropped };
}
