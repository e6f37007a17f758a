/**
 * Where `generate_chart` may read a CSV file: only inside the client's roots (roots.mdx §Security
 * Considerations: servers SHOULD validate all paths against the provided roots).
 *
 * Interim: the toolkit's `ctx.resolveInRoots` (branch feat/roots, `src/server/roots.ts`) has not landed in
 * this branch yet. {@link resolveDataPath} uses it when the context offers it, and otherwise this small
 * check with the same rules for an existing file: `file://` URIs decoded, relative paths against the first
 * root, real paths on both sides (a symlink inside a root that points outside is refused), containment by
 * path segments (`/data2` is not inside `/data`).
 */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParleyContext } from '../../src/server/index.js';

/** A path the chart may not read; the message names the path, the roots and the fix. */
export class DataPathError extends Error {
  override name = 'DataPathError';
}

function toPath(pathOrUri: string): string {
  if (pathOrUri.startsWith('file:')) {
    try {
      return fileURLToPath(pathOrUri);
    } catch (e) {
      throw new DataPathError(`'${pathOrUri}' is not a usable file:// URI (${(e as Error).message})`);
    }
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]+:\/\//.test(pathOrUri)) throw new DataPathError(`'${pathOrUri}': only file paths, file:// URIs and sales://results/{id} are data sources`);
  return pathOrUri;
}

const inside = (root: string, target: string) => {
  const rel = relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
};

/**
 * Resolves `pathOrUri` to the real path of an existing regular file inside one of `rootUris`.
 * @throws DataPathError when there are no roots, the file is missing or not a file, or it lies outside
 */
export async function resolveInRootsLocal(pathOrUri: string, rootUris: readonly string[]): Promise<string> {
  if (pathOrUri === '' || pathOrUri.includes('\0')) throw new DataPathError('data_source is empty or contains NUL; give a CSV path inside your roots');
  if (rootUris.length === 0) throw new DataPathError(`the client shares no roots, so no file may be read (asked for '${pathOrUri}'); add the folder as a root`);
  const roots = await Promise.all(rootUris.map(async (u) => {
    const p = resolve(toPath(u));
    return realpath(p).catch(() => p);
  }));
  const candidate = resolve(roots[0], toPath(pathOrUri));
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    throw new DataPathError(`'${pathOrUri}' does not exist (looked at ${candidate}); give a CSV file inside your roots: ${roots.join(', ')}`);
  }
  if (!roots.some((r) => inside(r, real))) {
    throw new DataPathError(`'${pathOrUri}' resolves to ${real}, outside the client's roots (${roots.join(', ')}); only files inside a root may be read`);
  }
  if (!(await stat(real)).isFile()) throw new DataPathError(`'${pathOrUri}' is not a regular file (${real})`);
  return real;
}

/** The toolkit's resolver when present, else {@link resolveInRootsLocal} over `ctx.roots()`. */
export async function resolveDataPath(ctx: ParleyContext, pathOrUri: string): Promise<string> {
  const own = (ctx as ParleyContext & { resolveInRoots?: (p: string) => Promise<string> }).resolveInRoots;
  if (typeof own === 'function') return own.call(ctx, pathOrUri);
  const roots = await ctx.roots();
  return resolveInRootsLocal(pathOrUri, roots.map((r) => r.uri));
}
