// File-URI logic (src/schema/uri.ts): vector RT1 and its kind, RFC 8089 forms, round trips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { fileUriToPath, isFileUri, normalizeRootUri, pathToFileUri, UriError } from '../src/schema/uri.js';
import { verifies } from './helpers/verifies.js';

const vectors = JSON.parse(readFileSync('/work/shared/vectors/roots.json', 'utf8')) as Array<{ id: string; input: unknown }>;
const vec = (id: string) => vectors.find((v) => v.id === id)!;
const win = { platform: 'win32' } as const;
const posix = { platform: 'posix' } as const;

test('RT1: file:///c%3A/temp resolves to C:\\temp with win32 semantics on any OS', () => {
  verifies('ROOTS-URI-FILE');
  assert.equal(fileUriToPath(vec('RT1-windows-encoded-drive').input as string, win), 'C:\\temp');
});

test('RT1 kind: every spelling of a drive letter maps to one Windows path', () => {
  for (const u of [
    'file:///c%3A/temp',
    'file:///C:/temp',
    'file:///c:/temp',
    'file:///c%3a/temp',
    'file:///c|/temp',
    'FILE:///C:/temp',
    'file://localhost/C:/temp',
  ]) {
    assert.equal(fileUriToPath(u, win), 'C:\\temp', u);
  }
  assert.equal(fileUriToPath('file:///C:', win), 'C:\\');
  assert.equal(fileUriToPath('file:///C:/', win), 'C:\\');
  assert.equal(fileUriToPath('file:///C:/Program%20Files/%C3%A9t%C3%A9', win), 'C:\\Program Files\\été');
});

test('win32 UNC: file://server/share/x and the four-slash form', () => {
  assert.equal(fileUriToPath('file://server/share/x', win), '\\\\server\\share\\x');
  assert.equal(fileUriToPath('file:////server/share/x', win), '\\\\server\\share\\x');
  assert.equal(pathToFileUri('\\\\server\\share\\x y', win), 'file://server/share/x%20y');
  assert.throws(
    () => fileUriToPath('file://server', win),
    (e: UriError) => e.code === 'MALFORMED_URI',
  );
});

test('posix: decodes escapes; a remote host is refused', () => {
  assert.equal(fileUriToPath('file:///home/u/my%20project', posix), '/home/u/my project');
  assert.equal(fileUriToPath('file:/home/u', posix), '/home/u');
  assert.equal(fileUriToPath('file://localhost/etc', posix), '/etc');
  assert.equal(fileUriToPath('file:///C:/x', posix), '/C:/x');
  assert.throws(
    () => fileUriToPath('file://server/share', posix),
    (e: UriError) => e.code === 'UNSUPPORTED_HOST' && /server/.test(e.message),
  );
});

test('non-file schemes and malformed URIs are refused with a clear error', () => {
  const bad: Array<[string, string, RegExp]> = [
    ['https://example.com/repo', 'NOT_FILE_URI', /https/],
    ['sales://emea', 'NOT_FILE_URI', /sales/],
    ['/home/u/project', 'MALFORMED_URI', /no scheme/],
    ['file:home/u', 'MALFORMED_URI', /three slashes/],
    ['file://', 'MALFORMED_URI', /needs a path/],
    ['file:///a%zz', 'MALFORMED_URI', /two hex digits/],
    ['file:///a%', 'MALFORMED_URI', /two hex digits/],
    ['file:///a%FF', 'MALFORMED_URI', /UTF-8/],
    ['file:///a%2Fb', 'MALFORMED_URI', /separator/],
    ['file:///a%00b', 'MALFORMED_URI', /NUL/],
    ['file:///a?x=1', 'MALFORMED_URI', /query/],
    ['file:///a b', 'MALFORMED_URI', /Whitespace/],
    ['file://user@host/a', 'MALFORMED_URI', /user info/],
  ];
  for (const [u, code, msg] of bad) {
    assert.throws(
      () => fileUriToPath(u, posix),
      (e: unknown) => e instanceof UriError && e.code === code && msg.test(e.message) && e.message.includes(JSON.stringify(u)),
      u,
    );
  }
  assert.throws(
    () => fileUriToPath('file:///temp', win),
    (e: UriError) => e.code === 'RELATIVE_PATH',
  );
  assert.throws(
    () => fileUriToPath('file:///C:/a%5Cb', win),
    (e: UriError) => e.code === 'MALFORMED_URI',
  );
});

test('pathToFileUri encodes per RFC 3986 and refuses relative paths', () => {
  assert.equal(pathToFileUri('/a b/100%/#?/é', posix), 'file:///a%20b/100%25/%23%3F/%C3%A9');
  assert.equal(pathToFileUri('C:\\temp', win), 'file:///C:/temp');
  assert.equal(pathToFileUri('c:/temp/', win), 'file:///C:/temp/');
  for (const [p, o] of [
    ['rel/x', posix],
    ['C:rel', win],
    ['\\temp', win],
    ['', posix],
  ] as const) {
    assert.throws(
      () => pathToFileUri(p, o),
      (e: UriError) => e.code === 'RELATIVE_PATH',
      p,
    );
  }
  assert.throws(
    () => pathToFileUri('\\\\?\\C:\\x', win),
    (e: UriError) => e.code === 'INVALID_PATH',
  );
  assert.throws(
    () => pathToFileUri('/a\u0000', posix),
    (e: UriError) => e.code === 'INVALID_PATH',
  );
});

test('isFileUri checks the scheme only', () => {
  assert.equal(isFileUri('FILE:///x'), true);
  assert.equal(isFileUri('https://x'), false);
  assert.equal(isFileUri(42), false);
  assert.equal(isFileUri('/x'), false);
});

test('normalizeRootUri: one canonical spelling per root', () => {
  const same = ['file:///c%3A/temp/', 'FILE:///C:/temp', 'file://localhost/c:/temp', 'file:///C:/x/../temp/.', 'file:///C%3a/te%6Dp'];
  for (const u of same) assert.equal(normalizeRootUri(u), 'file:///C:/temp', u);
  assert.equal(normalizeRootUri('file:///'), 'file:///');
  assert.equal(normalizeRootUri('file:///c:'), 'file:///C:/');
  assert.equal(normalizeRootUri('file:///C:/'), 'file:///C:/');
  assert.equal(normalizeRootUri('file:///a/../..'), 'file:///');
  assert.equal(normalizeRootUri('file:///home/u/my%20project/'), 'file:///home/u/my%20project');
  assert.equal(normalizeRootUri('file:///home/%7Eu/a b'.replace(' ', '%20')), 'file:///home/~u/a%20b');
  assert.equal(normalizeRootUri('HTTPS://Example.COM/Repo/'), 'https://example.com/Repo');
  assert.equal(normalizeRootUri('sales://EMEA/q%33'), 'sales://emea/q3');
  assert.equal(normalizeRootUri('https://example.com/'), 'https://example.com');
  assert.throws(
    () => normalizeRootUri('no-scheme'),
    (e: UriError) => e.code === 'MALFORMED_URI',
  );
  assert.throws(
    () => normalizeRootUri('file:///%zz'),
    (e: UriError) => e.code === 'MALFORMED_URI',
  );
});

// Path segments without separators or NUL; any Unicode (whole code points), '%', spaces, '#', '?'.
const seg = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }).filter((s) => !/[\\/\u0000]/.test(s));

test('property: fileUriToPath(pathToFileUri(p)) === p for posix paths', () => {
  fc.assert(
    fc.property(fc.array(seg, { maxLength: 6 }), fc.boolean(), (segs, slash) => {
      const p = '/' + segs.join('/') + (slash && segs.length ? '/' : '');
      assert.equal(fileUriToPath(pathToFileUri(p, posix), posix), p);
    }),
    { numRuns: 500 },
  );
});

test('property: fileUriToPath(pathToFileUri(p)) === p for win32 drive and UNC paths', () => {
  const drive = fc.constantFrom(...'ABCDXYZ').map((d) => `${d}:\\`);
  const host = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,10}$/).map((h) => `\\\\${h}\\`);
  const winSeg = seg.filter((s) => !/[:|]/.test(s));
  fc.assert(
    fc.property(fc.oneof(drive, host), fc.array(winSeg, { minLength: 1, maxLength: 5 }), (prefix, segs) => {
      const p = prefix + segs.join('\\');
      assert.equal(fileUriToPath(pathToFileUri(p, win), win), p);
    }),
    { numRuns: 500 },
  );
});

test('property: normalizeRootUri is idempotent and stable under re-encoding', () => {
  fc.assert(
    fc.property(fc.array(seg, { maxLength: 5 }), (segs) => {
      const u = pathToFileUri('/' + segs.join('/'), posix);
      const n = normalizeRootUri(u);
      assert.equal(normalizeRootUri(n), n);
      // Encoding every unreserved ASCII letter must not change the canonical form.
      assert.equal(normalizeRootUri('file://' + u.slice(7).replace(/[a-z]/g, (c) => '%' + c.charCodeAt(0).toString(16))), n);
    }),
    { numRuns: 300 },
  );
});
