/**
 * The key that encrypts stored OAuth credentials, and AES-256-GCM sealing with it.
 *
 * The key never lives in the database:
 * - `PARLEY_SECRET` (environment): any string of at least 32 characters; the key is its SHA-256.
 *   Several processes (replicas, `parley auth list` beside `parley up`) then share it.
 * - otherwise a key file beside the database, `<database dir>/credentials.key`: 32 random bytes
 *   (base64), created on first use with mode 0600 (the directory is created 0700 if missing). A key file
 *   readable by group or others is refused.
 * A sealed value is `v1.<iv>.<tag>.<ciphertext>` (base64url; 12-byte IV, 16-byte tag). The AAD binds it
 * to its row (tenant, user, server), so a value copied to another row does not open.
 * @module
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Minimum length of `PARLEY_SECRET`, characters. */
export const MIN_SECRET_CHARS = 32;
/** File name of the generated key, beside the database. */
export const KEY_FILE = 'credentials.key';

/** A missing, weak or unreadable key. `code` names the rule. */
export class CredentialKeyError extends Error {
  override readonly name = 'CredentialKeyError';
  constructor(
    readonly code: 'SECRET_TOO_SHORT' | 'KEY_FILE_MODE' | 'KEY_FILE_INVALID' | 'NO_KEY_LOCATION',
    message: string,
  ) {
    super(message);
  }
}

/** A sealed value that does not open (wrong key, tampered, or moved to another row). */
export class CredentialDecryptError extends Error {
  override readonly name = 'CredentialDecryptError';
}

/**
 * Resolves the 32-byte key: `env.PARLEY_SECRET`, else the key file beside `dbFile` (created when missing).
 * @param dbFile the database path; `':memory:'` needs `PARLEY_SECRET` or `keyFile`.
 * @throws CredentialKeyError
 */
export function loadCredentialKey(opts: { env?: Record<string, string | undefined>; dbFile?: string; keyFile?: string }): Buffer {
  const secret = opts.env?.PARLEY_SECRET;
  if (secret !== undefined && secret !== '') {
    if (secret.length < MIN_SECRET_CHARS)
      throw new CredentialKeyError(
        'SECRET_TOO_SHORT',
        `PARLEY_SECRET has ${secret.length} characters; at least ${MIN_SECRET_CHARS} are required (e.g. \`openssl rand -base64 32\`).`,
      );
    return createHash('sha256').update(secret, 'utf8').digest();
  }
  const file = opts.keyFile ?? (opts.dbFile && opts.dbFile !== ':memory:' ? join(dirname(opts.dbFile), KEY_FILE) : undefined);
  if (!file)
    throw new CredentialKeyError(
      'NO_KEY_LOCATION',
      'No key for stored credentials: set PARLEY_SECRET (32+ characters) or use a database file (the key file goes beside it).',
    );
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another process made it first
    }
  }
  const mode = statSync(file).mode & 0o777;
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new CredentialKeyError('KEY_FILE_MODE', `${file} is readable by others (mode ${mode.toString(8)}); run \`chmod 600 ${file}\`.`);
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32)
    throw new CredentialKeyError(
      'KEY_FILE_INVALID',
      `${file} does not hold a 32-byte base64 key; delete it to make a new one (stored sign-ins are then lost).`,
    );
  return key;
}

const b64 = (b: Buffer) => b.toString('base64url');

/** AES-256-GCM seals `plain` under `key`, bound to `aad`. */
export function seal(key: Buffer, plain: string, aad: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return `v1.${b64(iv)}.${b64(c.getAuthTag())}.${b64(body)}`;
}

/** Opens a value of {@link seal}. @throws CredentialDecryptError */
export function open(key: Buffer, sealed: string, aad: string): string {
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== 'v1') throw new CredentialDecryptError('stored credential has an unknown format');
  try {
    const d = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[1]!, 'base64url'));
    d.setAAD(Buffer.from(aad, 'utf8'));
    d.setAuthTag(Buffer.from(parts[2]!, 'base64url'));
    return Buffer.concat([d.update(Buffer.from(parts[3]!, 'base64url')), d.final()]).toString('utf8');
  } catch {
    throw new CredentialDecryptError(
      'stored credential does not open with this key (PARLEY_SECRET or the key file changed, or the row was altered)',
    );
  }
}
