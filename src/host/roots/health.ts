/**
 * Root health checks (spec: clients MUST monitor root accessibility and SHOULD validate accessibility
 * before exposing roots — `client/roots.mdx` §Security Considerations, §Implementation Guidelines).
 * @module
 */
import { constants, promises as fs } from 'node:fs';
import { fileUriToPath, isFileUri, type PathPlatform } from '../../schema/uri.js';

/**
 * Result of one check.
 * - `ok`: exists and is readable (`kind` says directory or file);
 * - `missing`: does not exist (or a path component is not a directory);
 * - `unreadable`: exists but `R_OK` is denied, or stat failed otherwise (see `error`);
 * - `timeout`: the file system did not answer within the bound (e.g. a hung network mount);
 * - `virtual`: not a `file:` URI; nothing to check.
 */
export interface RootHealth {
  status: 'ok' | 'missing' | 'unreadable' | 'timeout' | 'virtual';
  kind?: 'directory' | 'file' | 'other';
  /** Epoch ms when the check finished. */
  checkedAt: number;
  /** The fs error code or message for non-ok statuses. */
  error?: string;
}

/** @default 2000 ms: bound on a single check. */
export const DEFAULT_HEALTH_TIMEOUT_MS = 2000;

/**
 * Checks one root: exists, directory or file, readable. Never throws; never waits longer than
 * `timeoutMs` (@default {@link DEFAULT_HEALTH_TIMEOUT_MS}). `opts.fs` replaces `stat`/`access` (tests,
 * virtual file systems).
 */
export async function checkRootHealth(
  uri: string,
  opts: { timeoutMs?: number; now?: () => number; platform?: PathPlatform; fs?: Pick<typeof fs, 'stat' | 'access'> } = {},
): Promise<RootHealth> {
  const fsx = opts.fs ?? fs;
  const now = opts.now ?? Date.now;
  if (!isFileUri(uri)) return { status: 'virtual', checkedAt: now() };
  const platform = opts.platform ?? (process.platform === 'win32' ? 'win32' : 'posix');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<RootHealth>((resolve) => {
    timer = setTimeout(
      () => resolve({ status: 'timeout', checkedAt: now(), error: `no answer within ${opts.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS} ms` }),
      opts.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS,
    );
  });
  const probe = (async (): Promise<RootHealth> => {
    let path: string;
    try {
      path = fileUriToPath(uri, { platform });
    } catch (e) {
      return { status: 'unreadable', checkedAt: now(), error: (e as Error).message };
    }
    try {
      const st = await fsx.stat(path);
      const kind = st.isDirectory() ? 'directory' : st.isFile() ? 'file' : 'other';
      await fsx.access(path, constants.R_OK | (kind === 'directory' ? constants.X_OK : 0));
      return { status: 'ok', kind, checkedAt: now() };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? String(e);
      return { status: code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unreadable', checkedAt: now(), error: code };
    }
  })();
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
