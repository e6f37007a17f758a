/**
 * The store's error family: one class, string codes, messages that name the database file and the fix.
 * @module
 */

/**
 * Why a store operation failed.
 * - `'STORE_CLOSED'`: the store was closed with `close()`; open a new one.
 * - `'STORE_CORRUPT'`: the file is not a SQLite database, or its pages fail SQLite's checks.
 * - `'STORE_IO'`: the file or its directory cannot be created, read or written (permissions, disk full,
 *   a lock held too long by another process).
 * - `'STORE_VERSION'`: the database was written by a newer parley whose schema this code does not know.
 * - `'STORE_UNAVAILABLE'`: the database server (PostgreSQL) cannot be reached or refused the login;
 *   the pool reconnects on the next call once it is back.
 */
export type StoreErrorCode = 'STORE_CLOSED' | 'STORE_CORRUPT' | 'STORE_IO' | 'STORE_VERSION' | 'STORE_UNAVAILABLE';

const BRAND = Symbol.for('mcp-parley.StoreError');

/**
 * Thrown by every {@link Store} implementation for failures of the storage itself. Programming errors
 * (an invalid argument) are `TypeError`s instead.
 */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  readonly code: StoreErrorCode;
  /** Database the failure concerns: a file path, `':memory:'`, or a PostgreSQL URL without password. */
  readonly file: string;
  /** The underlying driver code when there is one, e.g. `'SQLITE_NOTADB'`. */
  readonly driverCode?: string;

  constructor(code: StoreErrorCode, file: string, message: string, options?: { cause?: unknown; driverCode?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.file = file;
    if (options?.driverCode) this.driverCode = options.driverCode;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** `true` for a `StoreError` from any copy of this package (brand check, not `instanceof`). */
  static is(value: unknown): value is StoreError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

const CORRUPT = /^SQLITE_(NOTADB|CORRUPT)/;
const IO = /^SQLITE_(IOERR|CANTOPEN|FULL|READONLY|PERM|BUSY|LOCKED|AUTH|NOLFS|PROTOCOL)/;

/**
 * Maps a driver or file-system error to a {@link StoreError}; anything else (a `TypeError` from our own
 * argument checks, a constraint error the caller must see) is returned unchanged.
 * @param action What was being done, e.g. `'append an audit record'`, used in the message.
 */
export function toStoreError(err: unknown, file: string, action: string): unknown {
  if (StoreError.is(err)) return err;
  const code = typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : '';
  const detail = err instanceof Error ? err.message : String(err);
  if (CORRUPT.test(code)) {
    return new StoreError(
      'STORE_CORRUPT',
      file,
      `Cannot ${action}: ${file} is not a valid parley store (${code}: ${detail}). ` +
        'Move the file aside (keep it for inspection) and start parley again to create a fresh store, ' +
        'or restore it from a backup.',
      { cause: err, driverCode: code },
    );
  }
  if (IO.test(code) || /^E[A-Z]+$/.test(code) || /directory does not exist/.test(detail)) {
    const hint = /BUSY|LOCKED/.test(code)
      ? 'Another process holds a lock on it for longer than the busy timeout; stop that process or raise busyTimeoutMs.'
      : 'Check that the path is writable and the disk has free space, or choose another store path.';
    return new StoreError('STORE_IO', file, `Cannot ${action}: I/O failure on ${file} (${code || 'error'}: ${detail}). ${hint}`, {
      cause: err,
      driverCode: code || undefined,
    });
  }
  return err;
}
