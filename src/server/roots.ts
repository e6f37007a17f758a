/**
 * Server-toolkit helpers for consuming MCP roots: parse a `roots/list` result entry by entry, keep
 * paths inside the roots (real paths, segment containment), and cache the list per session.
 *
 * Spec: `client/roots.mdx` (2025-06-18, 2025-11-25) §Data Types (`Root.uri` MUST be `file://`) and
 * §Security Considerations (servers SHOULD validate all paths against the provided roots, respect root
 * boundaries, handle roots becoming unavailable; SHOULD cache root information appropriately).
 * On 2026-07-28 roots are deprecated but still answerable through `inputRequests`; the result shape is
 * the same, so these helpers apply to both.
 * @module
 */
import { promises as fs } from 'node:fs';
import nodePath from 'node:path';
import * as z from 'zod';
import { fileUriToPath, isFileUri, UriError, type PathPlatform } from '../schema/uri.js';

/** A root the server may use: the wire `uri`/`name` plus the decoded local `path`. */
export interface ParsedRoot {
  uri: string;
  name?: string;
  /** Absolute local path decoded from `uri` for the chosen platform. */
  path: string;
}

/** An entry of `roots/list` that was ignored, and why. `index` is -1 when the whole value was unusable. */
export interface DroppedRoot {
  index: number;
  entry: unknown;
  reason: string;
}

/** Optional sink for dropped entries; receives a one-line message and the drop record. */
export type RootsLog = (message: string, dropped: DroppedRoot) => void;

const hostPlatform = (): PathPlatform => (process.platform === 'win32' ? 'win32' : 'posix');

/**
 * Parses the result of `roots/list` (`{roots: Root[]}`) or a bare `Root[]`. Invalid entries are
 * dropped one by one (and logged) instead of rejecting the whole list — unlike SDK v1's
 * `ListRootsResultSchema`, which fails the entire result on one non-`file://` root.
 *
 * Dropped: non-objects, `uri` not a string, non-`file:` schemes, malformed file URIs (see
 * `fileUriToPath`), `name` present but not a string, duplicates (same decoded path).
 *
 * @param raw the peer's result, untrusted.
 * @param log called once per dropped entry.
 * @param opts.platform path syntax; @default the host OS.
 */
export function parseRootsList(
  raw: unknown,
  log?: RootsLog,
  opts: { platform?: PathPlatform } = {},
): { roots: ParsedRoot[]; dropped: DroppedRoot[] } {
  const platform = opts.platform ?? hostPlatform();
  const roots: ParsedRoot[] = [];
  const dropped: DroppedRoot[] = [];
  const drop = (index: number, entry: unknown, reason: string) => {
    const d = { index, entry, reason };
    dropped.push(d);
    log?.(index < 0 ? `roots/list result ignored: ${reason}` : `roots/list entry /roots/${index} ignored: ${reason}`, d);
  };
  const list = Array.isArray(raw) ? raw : raw !== null && typeof raw === 'object' ? (raw as { roots?: unknown }).roots : undefined;
  if (!Array.isArray(list)) {
    drop(-1, raw, 'expected {roots: Root[]} (ListRootsResult) or an array of Root');
    return { roots, dropped };
  }
  const seen = new Set<string>();
  list.forEach((entry, index) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
      return drop(index, entry, 'a Root must be an object {uri, name?}');
    const { uri, name } = entry as { uri?: unknown; name?: unknown };
    if (typeof uri !== 'string') return drop(index, entry, '"uri" must be a string');
    if (name !== undefined && typeof name !== 'string') return drop(index, entry, '"name" must be a string when present');
    if (!isFileUri(uri)) return drop(index, entry, `"uri" must be a file:// URI (roots.mdx §Data Types); got ${JSON.stringify(uri)}`);
    let path: string;
    try {
      path = fileUriToPath(uri, { platform });
    } catch (e) {
      return drop(index, entry, e instanceof UriError ? e.message : String(e));
    }
    const trimmed = path.length > 1 && /[\\/]$/.test(path) && !/^[A-Za-z]:\\$/.test(path) ? path.slice(0, -1) : path;
    const key = platform === 'win32' ? trimmed.toLowerCase() : trimmed;
    if (seen.has(key)) return drop(index, entry, `duplicate of an earlier root (${path})`);
    seen.add(key);
    roots.push(name === undefined ? { uri, path } : { uri, name, path });
  });
  return { roots, dropped };
}

/** Accepts any object result; entries are checked by {@link parseRootsList}, not by the SDK. */
const LooseListRootsResult = z.looseObject({ roots: z.unknown() });

/** The part of an SDK `Server` (v2 `@modelcontextprotocol/server`, or v1) that {@link requestRoots} uses. */
export interface RootsRequester {
  request(
    req: { method: 'roots/list' },
    resultSchema: typeof LooseListRootsResult,
    options?: { timeout?: number; signal?: AbortSignal },
  ): Promise<unknown>;
}

/**
 * Sends `roots/list` (legacy eras) and parses the answer entry by entry. The SDK's own
 * `server.listRoots()` validates every `uri` with `startsWith("file://")` and rejects the WHOLE
 * result on one bad entry (v2: `SdkError` `INVALID_RESULT`; v1: a raw ZodError); this helper asks
 * with a loose result schema so one bad root costs only that root.
 *
 * @param server the low-level SDK server (`mcpServer.server`).
 * @param opts.timeoutMs request timeout in ms; @default the SDK default (60000).
 * @throws whatever the SDK throws for transport errors, timeouts and JSON-RPC errors (e.g. -32601
 *   when the client has no roots capability).
 */
export async function requestRoots(
  server: RootsRequester,
  log?: RootsLog,
  opts: { platform?: PathPlatform; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<{ roots: ParsedRoot[]; dropped: DroppedRoot[] }> {
  const raw = await server.request({ method: 'roots/list' }, LooseListRootsResult, { timeout: opts.timeoutMs, signal: opts.signal });
  return parseRootsList(raw, log, opts);
}

/**
 * Reads a `roots/list` answer from MRTR `inputResponses` (2026-07-28: `inputRequests: {key:
 * {method: 'roots/list'}}`, answered with a bare `ListRootsResult`) and parses it entry by entry.
 * Measured on SDK v2 2.4: on a modern connection the SDK passes the client's roots through
 * unvalidated (`inputResponse(...).roots` may hold `https://` URIs), so this check is the only one.
 * On a legacy connection the SDK shim instead fails the whole tool call on one bad root.
 *
 * @param inputResponses `ctx.mcpReq.inputResponses` (untrusted).
 * @returns `undefined` when `key` has no answer yet (ask with `inputRequired.listRoots()`).
 */
export function rootsFromInputResponses(
  inputResponses: unknown,
  key: string,
  log?: RootsLog,
  opts: { platform?: PathPlatform } = {},
): { roots: ParsedRoot[]; dropped: DroppedRoot[] } | undefined {
  if (inputResponses === null || typeof inputResponses !== 'object') return undefined;
  const answer = (inputResponses as Record<string, unknown>)[key];
  return answer === undefined ? undefined : parseRootsList(answer, log, opts);
}

export type RootsAccessErrorCode = 'OUTSIDE_ROOTS' | 'NO_ROOTS' | 'INVALID_PATH' | 'UNRESOLVABLE' | 'HARD_LINK';

/**
 * A path that may not be used. `candidate` is what was asked for; `roots` the real root paths checked.
 * The message names only these: never the real path a link resolved to outside the roots.
 */
export class RootsAccessError extends Error {
  override readonly name = 'RootsAccessError';
  constructor(
    readonly code: RootsAccessErrorCode,
    readonly candidate: string,
    readonly roots: string[],
    detail: string,
  ) {
    super(
      `${detail}: ${JSON.stringify(candidate)} (allowed roots: ${roots.length ? roots.map((r) => JSON.stringify(r)).join(', ') : 'none'})`,
    );
  }
}

const MAX_LINKS = 40;

/**
 * `fs.realpath` that also works for paths that do not exist yet: it realpaths the nearest existing
 * ancestor and re-appends the rest. A dangling symlink on the way is followed through its target so a
 * not-yet-created file behind it cannot escape. @throws the fs error for anything but ENOENT/ENOTDIR.
 */
async function realpathLoose(p: string, depth = 0): Promise<string> {
  if (depth > MAX_LINKS) throw Object.assign(new Error(`too many symbolic links at ${p}`), { code: 'ELOOP' });
  try {
    return await fs.realpath(p);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
  }
  const st = await fs.lstat(p).catch(() => undefined);
  if (st?.isSymbolicLink()) {
    const target = await fs.readlink(p);
    return realpathLoose(nodePath.resolve(nodePath.dirname(p), target), depth + 1);
  }
  const parent = nodePath.dirname(p);
  if (parent === p) return p;
  return nodePath.join(await realpathLoose(parent, depth), nodePath.basename(p));
}

/** True when `target` equals `root` or lies under it, compared by path segments (not string prefix). */
export function isPathInside(root: string, target: string, platform: PathPlatform = hostPlatform()): boolean {
  const P = platform === 'win32' ? nodePath.win32 : nodePath.posix;
  const rel = P.relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith('..' + P.sep) && !P.isAbsolute(rel));
}

/** Options of {@link resolveInRoots}. */
export interface ResolveInRootsOptions {
  /** Path syntax. @default the host OS (a foreign one makes the check lexical only). */
  platform?: PathPlatform;
  /**
   * What to do with a regular file that has more than one name (`nlink > 1`, a hard link). A hard link
   * cannot be told from its original by path: both are the same file, and its other names may lie
   * outside the roots. `'refuse'` refuses every such file (code `HARD_LINK`); `'allow'` accepts it, a
   * known limit (docs/server.md §Roots: hard links). @default 'allow'
   */
  hardLinks?: 'allow' | 'refuse';
}

/**
 * Resolves `pathOrUri` and checks it lies inside one of `roots`.
 *
 * - `file:` URIs are decoded; relative paths resolve against the FIRST root; `..` is resolved.
 * - On the host platform both roots and target go through `fs.realpath` (a missing target: its nearest
 *   existing ancestor), so a symlink inside a root that points outside is refused.
 *   With a foreign `platform` (e.g. `'win32'` on Linux) the check is lexical only.
 * - Containment is by path segments (`/srv/data2` is not inside `/srv/data`); case-insensitive on win32.
 *
 * @param roots parsed roots (`{path}`), or root paths / file URIs as strings.
 * @returns the real absolute path to use (use it, not the input, to avoid re-following links).
 * - Hard links: see {@link ResolveInRootsOptions.hardLinks} (allowed by default; `'refuse'` to refuse).
 * - Refusals name the path as given and the roots, never the real path a link resolved to.
 *
 * @throws {RootsAccessError} `NO_ROOTS`, `INVALID_PATH` (bad or non-file URI, NUL), `UNRESOLVABLE` (fs error other
 *   than not-found, e.g. EACCES, ELOOP), `OUTSIDE_ROOTS`, `HARD_LINK` (with `hardLinks: 'refuse'`).
 */
export async function resolveInRoots(
  pathOrUri: string,
  roots: ReadonlyArray<{ path: string } | string>,
  opts: ResolveInRootsOptions = {},
): Promise<string> {
  const platform = opts.platform ?? hostPlatform();
  const P = platform === 'win32' ? nodePath.win32 : nodePath.posix;
  const real = platform === hostPlatform();
  const toPath = (r: { path: string } | string): string => {
    const s = typeof r === 'string' ? r : r.path;
    return isFileUri(s) ? fileUriToPath(s, { platform }) : s;
  };
  let rootPaths: string[];
  try {
    rootPaths = roots.map((r) => P.resolve(toPath(r)));
  } catch (e) {
    throw new RootsAccessError('INVALID_PATH', String(pathOrUri), [], `A root is not a usable file URI or path (${(e as Error).message})`);
  }
  if (rootPaths.length === 0) throw new RootsAccessError('NO_ROOTS', pathOrUri, [], 'No roots are available, so no path is allowed');
  if (typeof pathOrUri !== 'string' || pathOrUri === '' || pathOrUri.includes('\u0000')) {
    throw new RootsAccessError(
      'INVALID_PATH',
      String(pathOrUri),
      rootPaths,
      'Expected a non-empty path or file:// URI without NUL characters',
    );
  }
  if (!isFileUri(pathOrUri) && /^[A-Za-z][A-Za-z0-9+.-]+:\/\//.test(pathOrUri)) {
    throw new RootsAccessError(
      'INVALID_PATH',
      pathOrUri,
      rootPaths,
      'Only file:// URIs name local paths; other schemes are never inside a root',
    );
  }
  let candidate: string;
  try {
    candidate = isFileUri(pathOrUri) ? fileUriToPath(pathOrUri, { platform }) : pathOrUri;
  } catch (e) {
    throw new RootsAccessError('INVALID_PATH', pathOrUri, rootPaths, (e as Error).message);
  }
  let target = P.resolve(rootPaths[0], candidate);
  let realRoots = rootPaths;
  if (real) {
    try {
      realRoots = await Promise.all(rootPaths.map((r) => realpathLoose(r)));
      target = await realpathLoose(target);
    } catch (e) {
      throw new RootsAccessError(
        'UNRESOLVABLE',
        pathOrUri,
        rootPaths,
        `Cannot resolve the real path (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
  }
  if (!realRoots.some((r) => isPathInside(r, target, platform))) {
    // The real target is not named: it may be a file outside the roots that a link inside points to.
    const viaLink = target !== P.resolve(rootPaths[0], candidate);
    throw new RootsAccessError(
      'OUTSIDE_ROOTS',
      pathOrUri,
      realRoots,
      `Access denied: the path ${viaLink ? 'resolves (through a symbolic link) to a place' : 'is'} outside every root`,
    );
  }
  if (real && opts.hardLinks === 'refuse') {
    const st = await fs.stat(target).catch(() => undefined);
    if (st?.isFile() && st.nlink > 1) {
      throw new RootsAccessError(
        'HARD_LINK',
        pathOrUri,
        realRoots,
        `Access denied: the file has ${st.nlink} names (hard links), and another may lie outside the roots (hardLinks: 'refuse')`,
      );
    }
  }
  return target;
}

/**
 * A small per-session cache of parsed roots (spec: servers SHOULD cache root information
 * appropriately and handle list changes). Call `invalidate(session)` on
 * `notifications/roots/list_changed`; `ttlMs` bounds staleness for clients that never notify.
 */
export class RootsCache {
  private readonly entries = new Map<string, { roots: ParsedRoot[]; at: number }>();
  /**
   * @param opts.ttlMs entry lifetime in ms; @default Infinity (until invalidated).
   * @param opts.now clock in epoch ms; @default Date.now.
   */
  constructor(private readonly opts: { ttlMs?: number; now?: () => number } = {}) {}

  /** Cached roots for `session` (@default `'default'`), or undefined when missing or expired. */
  get(session = 'default'): ParsedRoot[] | undefined {
    const e = this.entries.get(session);
    if (!e) return undefined;
    if ((this.opts.now ?? Date.now)() - e.at > (this.opts.ttlMs ?? Infinity)) {
      this.entries.delete(session);
      return undefined;
    }
    return e.roots;
  }

  set(roots: ParsedRoot[], session = 'default'): void {
    this.entries.set(session, { roots, at: (this.opts.now ?? Date.now)() });
  }

  /** Drops one session's entry, or every entry when `session` is omitted. */
  invalidate(session?: string): void {
    if (session === undefined) this.entries.clear();
    else this.entries.delete(session);
  }
}
