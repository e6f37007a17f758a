/**
 * File-URI logic shared by the host (root registry) and the server toolkit (roots consumers).
 * PURE: string logic only, no `node:` imports; the caller names the path platform.
 *
 * Implements RFC 8089 (`file` URI scheme) with RFC 3986 percent-encoding, for the `Root.uri` rule of
 * the MCP roots feature (2025-06-18 / 2025-11-25 `client/roots.mdx` §Data Types: roots MUST be
 * `file://` URIs).
 * @module
 */

/** Path semantics: `'posix'` (`/a/b`) or `'win32'` (`C:\a\b`, UNC `\\server\share\x`). */
export type PathPlatform = 'posix' | 'win32';

export interface UriOptions {
  /** Which path syntax to produce or accept. Required: pure code cannot ask the OS. */
  platform: PathPlatform;
}

/** Why a URI or path was rejected. */
export type UriErrorCode = 'NOT_FILE_URI' | 'MALFORMED_URI' | 'UNSUPPORTED_HOST' | 'RELATIVE_PATH' | 'INVALID_PATH';

/** Thrown by every function in this module for bad input. `input` is the rejected string. */
export class UriError extends Error {
  override readonly name = 'UriError';
  constructor(
    readonly code: UriErrorCode,
    readonly input: string,
    message: string,
  ) {
    super(`${message} (input: ${JSON.stringify(input)})`);
  }
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
/** Characters left unencoded in a path segment: RFC 3986 unreserved, sub-delims, ':' and '@'. */
const SEGMENT_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@]/;
const DRIVE = /^([A-Za-z])[:|]$/;

/** True when `uri` is a string whose scheme is `file` (case-insensitive). Does not validate the rest. */
export function isFileUri(uri: unknown): uri is string {
  return typeof uri === 'string' && SCHEME.exec(uri)?.[1].toLowerCase() === 'file';
}

/** The lower-cased scheme of `uri`, or `undefined` when it has none. */
export function uriScheme(uri: string): string | undefined {
  return SCHEME.exec(uri)?.[1].toLowerCase();
}

/** Percent-encodes one path segment (UTF-8, upper-case hex). Throws `INVALID_PATH` on lone surrogates. */
export function encodeSegment(segment: string, input = segment): string {
  let out = '';
  for (const ch of segment) {
    if (ch.length === 1 && SEGMENT_SAFE.test(ch)) {
      out += ch;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff)
      throw new UriError('INVALID_PATH', input, 'The path contains a lone UTF-16 surrogate, which has no UTF-8 encoding');
    for (const b of new TextEncoder().encode(ch)) out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** Decodes one segment's percent-escapes. Throws `MALFORMED_URI` on a bad escape or invalid UTF-8. */
export function decodeSegment(segment: string, input: string): string {
  if (/%(?![0-9A-Fa-f]{2})/.test(segment)) {
    throw new UriError(
      'MALFORMED_URI',
      input,
      `Bad percent-escape in "${segment}": '%' must be followed by two hex digits (write '%25' for a literal '%')`,
    );
  }
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new UriError('MALFORMED_URI', input, `Percent-escapes in "${segment}" are not valid UTF-8`);
  }
}

interface ParsedFileUri {
  /** Lower-cased host; '' for local (`file:///…` and `file://localhost/…`). */
  host: string;
  /** Raw (still encoded) path, starting with '/'. */
  rawPath: string;
}

function parseFileUri(uri: string): ParsedFileUri {
  if (typeof uri !== 'string') throw new UriError('MALFORMED_URI', String(uri), 'A URI must be a string');
  const scheme = uriScheme(uri);
  if (scheme === undefined)
    throw new UriError(
      'MALFORMED_URI',
      uri,
      'Not a URI: no scheme (expected "file:///absolute/path"); convert a plain path with pathToFileUri()',
    );
  if (scheme !== 'file') throw new UriError('NOT_FILE_URI', uri, `Scheme "${scheme}:" is not "file:"; only file:// URIs name local paths`);
  if (/[?#]/.test(uri))
    throw new UriError('MALFORMED_URI', uri, "A file URI must not carry a query or fragment; percent-encode '?' as %3F and '#' as %23");
  if (/[\s\\]/.test(uri) || /[\u0000-\u001f\u007f]/.test(uri)) {
    throw new UriError('MALFORMED_URI', uri, 'Whitespace, control characters and backslashes must be percent-encoded in a URI');
  }
  const rest = uri.slice(scheme.length + 1);
  if (rest === '//') throw new UriError('MALFORMED_URI', uri, 'A file URI needs a path: "file:///" for the root directory');
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const host = (slash === -1 ? rest.slice(2) : rest.slice(2, slash)).toLowerCase();
    const rawPath = slash === -1 ? '/' : rest.slice(slash);
    if (/[@]/.test(host) || /:\d*$/.test(host))
      throw new UriError('MALFORMED_URI', uri, 'A file URI authority must be a plain host name: no user info and no port');
    return { host: host === 'localhost' ? '' : decodeSegment(host, uri), rawPath };
  }
  if (rest.startsWith('/')) return { host: '', rawPath: rest }; // RFC 8089 minimal form `file:/path`
  throw new UriError('MALFORMED_URI', uri, 'A file URI needs an absolute path: "file:///path" (three slashes)');
}

function decodedSegments(rawPath: string, uri: string, platform: PathPlatform): string[] {
  return rawPath
    .slice(1)
    .split('/')
    .map((s) => {
      const d = decodeSegment(s, uri);
      if (d.includes('/') || (platform === 'win32' && d.includes('\\'))) {
        throw new UriError(
          'MALFORMED_URI',
          uri,
          `Segment "${s}" decodes to a path separator; an encoded separator would change which directory the URI names`,
        );
      }
      if (d.includes('\u0000'))
        throw new UriError('MALFORMED_URI', uri, `Segment "${s}" decodes to a NUL character, which no file system accepts`);
      return d;
    });
}

/**
 * Converts a `file:` URI to a path for `platform`.
 *
 * - Percent-escapes are decoded per segment (`%20` → space, UTF-8 multi-byte escapes supported).
 * - win32: `file:///c%3A/temp`, `file:///C:/temp`, `file:///c|/temp` → `C:\temp` (drive letter upper-cased);
 *   `file://server/share/x` and `file:////server/share/x` → `\\server\share\x` (UNC).
 * - posix: `file:///a/b` → `/a/b`; a host other than empty/`localhost` is rejected (`UNSUPPORTED_HOST`).
 * - Dot segments are kept as written (callers resolve them); a trailing slash is kept.
 *
 * @throws {UriError} `NOT_FILE_URI` for other schemes; `MALFORMED_URI` for a missing path, bad escapes,
 *   encoded separators or NUL, query/fragment, raw whitespace; `RELATIVE_PATH` for a win32 path without
 *   a drive or UNC host.
 */
export function fileUriToPath(uri: string, opts: UriOptions): string {
  const { host, rawPath } = parseFileUri(uri);
  const segs = decodedSegments(rawPath, uri, opts.platform);
  if (opts.platform === 'posix') {
    if (host !== '')
      throw new UriError(
        'UNSUPPORTED_HOST',
        uri,
        `Host "${host}" cannot be mapped to a POSIX path; use file:///path (empty host) or file://localhost/path`,
      );
    return '/' + segs.join('/');
  }
  if (host !== '') {
    if (segs.length === 0 || segs[0] === '')
      throw new UriError('MALFORMED_URI', uri, 'A UNC file URI needs a share name: file://server/share/path');
    return `\\\\${host}\\${segs.join('\\')}`;
  }
  // file:////server/share → UNC written with an empty authority.
  if (segs[0] === '' && segs.length > 2 && segs[1] !== '') return `\\\\${segs[1]}\\${segs.slice(2).join('\\')}`;
  const drive = DRIVE.exec(segs[0] ?? '');
  if (!drive)
    throw new UriError(
      'RELATIVE_PATH',
      uri,
      'A Windows file URI must start with a drive letter (file:///C:/dir) or a UNC host (file://server/share/dir)',
    );
  const rest = segs.slice(1);
  return `${drive[1].toUpperCase()}:\\${rest.join('\\')}`;
}

/**
 * Converts an absolute path to a `file:` URI (RFC 8089), percent-encoding each segment (RFC 3986:
 * everything but unreserved, sub-delims, ':' and '@'; UTF-8, upper-case hex).
 *
 * - posix: `/a b/c` → `file:///a%20b/c`.
 * - win32: `C:\temp` or `c:/temp` → `file:///C:/temp`; `\\server\share\x` → `file://server/share/x`.
 *   Both `\` and `/` separate segments. `\\?\` long-path prefixes are rejected (`INVALID_PATH`).
 *
 * @throws {UriError} `RELATIVE_PATH` for a relative (or win32 drive-less) path; `INVALID_PATH` for NUL,
 *   lone surrogates, or unsupported win32 forms.
 */
export function pathToFileUri(path: string, opts: UriOptions): string {
  if (typeof path !== 'string' || path === '') throw new UriError('RELATIVE_PATH', String(path), 'Expected an absolute path');
  if (path.includes('\u0000')) throw new UriError('INVALID_PATH', path, 'The path contains a NUL character');
  const enc = (segs: string[]) => segs.map((s) => encodeSegment(s, path)).join('/');
  if (opts.platform === 'posix') {
    if (!path.startsWith('/'))
      throw new UriError('RELATIVE_PATH', path, 'A POSIX path must be absolute (start with "/"); resolve it first');
    return 'file:///' + enc(path.slice(1).split('/'));
  }
  if (/^[\\/][\\/][?.][\\/]/.test(path))
    throw new UriError(
      'INVALID_PATH',
      path,
      'Win32 device and long-path prefixes (\\\\?\\, \\\\.\\) cannot be written as file URIs; strip the prefix',
    );
  const segs = path.split(/[\\/]/);
  if (segs[0] === '' && segs[1] === '' && segs.length > 3 && segs[2] !== '') {
    return `file://${encodeSegment(segs[2].toLowerCase(), path)}/${enc(segs.slice(3))}`;
  }
  const drive = /^([A-Za-z]):$/.exec(segs[0]);
  if (!drive || segs.length < 2)
    throw new UriError(
      'RELATIVE_PATH',
      path,
      'A Windows path must be absolute: a drive and separator (C:\\dir) or UNC (\\\\server\\share\\dir)',
    );
  return `file:///${drive[1].toUpperCase()}:/${enc(segs.slice(1))}`;
}

/** RFC 3986 §5.2.4 remove_dot_segments on already-decoded segments; never climbs above the root. */
function removeDots(segs: string[]): string[] {
  const out: string[] = [];
  segs.forEach((s, i) => {
    const last = i === segs.length - 1;
    if (s === '.') {
      if (last) out.push('');
    } else if (s === '..') {
      out.pop();
      if (last) out.push('');
    } else out.push(s);
  });
  return out;
}

/**
 * Canonical form of a root URI, used as the registry key so that equal roots compare equal.
 *
 * For every scheme: lower-case scheme; for `scheme://authority`, a lower-cased host (`localhost` is
 * dropped for `file:`); path segments decoded then re-encoded (so `%7E` ≡ `~`, `%3a` ≡ `:`); dot segments
 * removed; no trailing slash except the root (`file:///`, `file:///C:/`). For `file:` a drive letter is
 * upper-cased. Query and fragment of non-file URIs are kept verbatim.
 *
 * @throws {UriError} `MALFORMED_URI` when there is no scheme or an escape is bad; file URIs also get the
 *   checks of {@link fileUriToPath} (no query/fragment, no encoded separators).
 */
export function normalizeRootUri(uri: string): string {
  const scheme = typeof uri === 'string' ? uriScheme(uri) : undefined;
  if (scheme === undefined) throw new UriError('MALFORMED_URI', String(uri), 'A root URI needs a scheme, e.g. "file:///home/me/project"');
  if (scheme === 'file') {
    const { host, rawPath } = parseFileUri(uri);
    const segs = removeDots(decodedSegments(rawPath, uri, 'posix'));
    const drive = DRIVE.exec(segs[0] ?? '');
    if (drive) segs[0] = `${drive[1].toUpperCase()}:`;
    while (segs.length > 1 && segs[segs.length - 1] === '' && !(drive && segs.length === 2)) segs.pop();
    if (drive && segs.length === 1) segs.push('');
    return `file://${host === '' ? '' : encodeSegment(host, uri)}/${segs.map((s) => encodeSegment(s, uri)).join('/')}`;
  }
  const body = uri.slice(scheme.length + 1);
  const m = /^(\/\/[^/?#]*)?([^?#]*)(.*)$/s.exec(body)!;
  const authority = m[1] === undefined ? '' : m[1].toLowerCase();
  let path = m[2];
  if (path !== '') {
    const absolute = path.startsWith('/');
    let segs = (absolute ? path.slice(1) : path).split('/').map((s) => decodeSegment(s, uri));
    if (absolute) segs = removeDots(segs);
    while (segs.length > 1 && segs[segs.length - 1] === '') segs.pop();
    path = (absolute ? '/' : '') + segs.map((s) => encodeSegment(s, uri)).join('/');
    if (path === '/' && authority !== '') path = '';
  }
  return `${scheme}:${authority}${path}${m[3]}`;
}
