/**
 * Where `generate_chart` may read a CSV file: only inside the client's roots (roots.mdx §Security
 * Considerations: servers SHOULD validate all paths against the provided roots and respect root boundaries).
 *
 * Containment is the toolkit's `resolveInRoots` (`src/server/roots.ts`: `file://` URIs decoded, relative paths
 * against the first root, real paths on both sides so a symlink escape is refused, segment containment).
 * This module only adds what a reader needs on top: the file must exist and be a regular file.
 */
import { stat } from 'node:fs/promises';
import { resolveInRoots, RootsAccessError } from '../../src/server/index.js';
import type { ParleyContext } from '../../src/server/index.js';

/** A data path the chart may not read; the message names the path, the reason and the fix. */
export class DataPathError extends Error {
  override name = 'DataPathError';
}

/**
 * Resolves `pathOrUri` to the real path of an existing regular file inside one of `rootUris`.
 * @throws DataPathError for no roots, a path outside them, a bad URI, a missing file or a non-file
 */
export async function resolveCsvInRoots(pathOrUri: string, rootUris: readonly string[]): Promise<string> {
  let real: string;
  try {
    real = await resolveInRoots(pathOrUri, rootUris);
  } catch (e) {
    if (!(e instanceof RootsAccessError)) throw e;
    const hint =
      e.code === 'NO_ROOTS'
        ? 'the client shares no roots; add the folder holding the CSV as a root'
        : "give a CSV file inside one of the client's roots, or a sales://results/{id} URI";
    throw new DataPathError(`${e.message}; ${hint}`);
  }
  const st = await stat(real).catch(() => undefined);
  if (!st) throw new DataPathError(`'${pathOrUri}' does not exist (looked at ${real}); give a CSV file inside the client's roots`);
  if (!st.isFile()) throw new DataPathError(`'${pathOrUri}' is not a regular file (${real})`);
  return real;
}

/**
 * Resolves a data path against the client's current roots (`ctx.roots()`), with the reader's checks
 * (exists, regular file) and a hint on refusal; containment itself is the toolkit's `resolveInRoots`.
 */
export async function resolveDataPath(ctx: ParleyContext, pathOrUri: string): Promise<string> {
  const roots = await ctx.roots();
  return resolveCsvInRoots(
    pathOrUri,
    roots.map((r) => r.uri),
  );
}
