// Issue 17 item 2: src/ uses the SDK's public API only. Two checks over every .ts file under src/
// (comments removed first):
// - no call of an underscore member, `x._name(`, `x?._name(` or `x['_name'](` (the SDK's private and
//   protected methods are underscored; `_meta` is a protocol field and is never called);
// - no access, `.name` or `['name']`, to a member the installed SDK packages declare `private` or
//   `protected` in their type declarations and nowhere declare public.
// Each check also runs on a known-bad line, so neither can pass by matching nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const SRC = resolve('src');
const SDK_PACKAGES = ['server', 'client', 'node'].map((p) => resolve('node_modules/@modelcontextprotocol', p, 'dist'));

function walk(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name), ext) : e.name.endsWith(ext) ? [join(dir, e.name)] : [],
  );
}

/** Removes block and line comments (not inside strings: a `//` after `:` or a quote is kept, for URLs). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Member names the SDK declares only as private or protected (its .d.mts files). */
function sdkPrivateNames(): Set<string> {
  const priv = new Set<string>();
  const pub = new Set<string>();
  for (const dir of SDK_PACKAGES.filter((d) => existsSync(d))) {
    for (const f of walk(dir, '.d.mts')) {
      const t = readFileSync(f, 'utf8');
      for (const m of t.matchAll(/^\s*(?:private|protected)\s+(?:(?:readonly|static|abstract|override)\s+)*([A-Za-z_$][\w$]*)/gm))
        priv.add(m[1]);
      for (const m of t.matchAll(/^\s*(?:(?:readonly|static|abstract|override|get|set|async)\s+)*([A-Za-z_$][\w$]*)\s*\??\s*[(:<]/gm))
        if (!/^\s*(?:private|protected)\b/.test(m[0])) pub.add(m[1]);
    }
  }
  return new Set([...priv].filter((n) => !pub.has(n)));
}

const UNDERSCORE_CALL = /(?:\?\.|\.)\s*(_[A-Za-z]\w*)\s*\(|\[\s*['"`](_[A-Za-z]\w*)['"`]\s*\]\s*\(/g;

function underscoreCalls(text: string): string[] {
  return [...code(text).matchAll(UNDERSCORE_CALL)].map((m) => m[1] ?? m[2]);
}

function privateAccesses(text: string, names: Set<string>): string[] {
  const out: string[] = [];
  for (const m of code(text).matchAll(/(?:\?\.|\.)\s*([A-Za-z_$][\w$]*)|\[\s*['"`]([A-Za-z_$][\w$]*)['"`]\s*\]/g)) {
    const n = m[1] ?? m[2];
    if (names.has(n)) out.push(n);
  }
  return out;
}

const BAD = `const inner = (mcp.server as unknown as { _getRequestHandler(m: string): unknown })._getRequestHandler('tools/call');`;

test('the checks catch a private SDK call (self-test on a known-bad line)', () => {
  const names = sdkPrivateNames();
  assert.ok(names.size > 50, `expected the SDK's private/protected member names, read ${names.size} from ${SDK_PACKAGES.join(', ')}`);
  assert.ok(names.has('_getRequestHandler') && names.has('setToolRequestHandlers'), 'the SDK declarations changed: update this test');
  assert.deepEqual(underscoreCalls(BAD), ['_getRequestHandler']);
  assert.deepEqual(underscoreCalls(`x?._onrequest(m); y['_wrapHandler'](a)`), ['_onrequest', '_wrapHandler']);
  assert.ok(privateAccesses(BAD, names).includes('_getRequestHandler'));
  assert.deepEqual(privateAccesses(`const h = mcp['_registeredTools']; s.setToolRequestHandlers;`, names), [
    '_registeredTools',
    'setToolRequestHandlers',
  ]);
  assert.deepEqual(underscoreCalls(`params._meta; // x._getRequestHandler('a')\n/* y._onclose() */`), []);
});

test('src/ calls no private or protected SDK member', () => {
  const names = sdkPrivateNames();
  const found: string[] = [];
  for (const f of walk(SRC, '.ts')) {
    const text = readFileSync(f, 'utf8');
    const rel = relative(process.cwd(), f);
    for (const n of underscoreCalls(text)) found.push(`${rel}: call of underscore member ${n}()`);
    for (const n of privateAccesses(text, names)) found.push(`${rel}: access to SDK-private member ${n}`);
  }
  assert.deepEqual(
    found,
    [],
    'src/ must use the SDK public API only (issue 17 item 2); replace these with public SDK calls (docs/server.md, "How the toolkit hooks into McpServer")',
  );
});
