// Layer rules (README "Layers"): schema is pure; server and host sit on schema; gateway on server and
// host; ui and cli sit on top.
// Each rule is re-derived here from the import statements so it cannot silently weaken.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';

const SRC = resolve('src');
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.ts$/.test(n) ? [p] : [];
  });
}
const IMPORT = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
export function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2]);
}
function layerOf(file: string): string {
  return relative(SRC, file).split(/[\\/]/)[0];
}
function targetLayer(file: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const abs = resolve(dirname(file), spec);
  const rel = relative(SRC, abs);
  return rel.startsWith('..') ? 'outside' : rel.split(/[\\/]/)[0];
}
// Which layers each layer may import (besides itself).
const ALLOWED: Record<string, string[]> = {
  schema: [],
  server: ['schema'],
  host: ['schema'],
  testing: ['schema', 'server', 'host'],
  // The gateway serves upstream with the toolkit's dual-era serve() and runs hosts; it never imports UI
  // (the console reaches it as a fallback presenter, injected by the CLI).
  gateway: ['schema', 'server', 'host'],
  ui: ['schema', 'host'],
  cli: ['schema', 'host', 'server', 'ui', 'gateway'],
};

test('every src file belongs to a known layer and imports only what its layer allows', () => {
  const bad: string[] = [];
  for (const f of files(SRC)) {
    const layer = layerOf(f);
    if (layer.endsWith('.ts')) continue; // src/index.ts: the package root re-exports
    assert.ok(layer in ALLOWED, `unknown layer folder src/${layer}`);
    for (const spec of importsOf(f)) {
      const t = targetLayer(f, spec);
      if (t && t !== layer && !ALLOWED[layer].includes(t)) bad.push(`${relative(SRC, f)} imports ${spec} (layer ${t})`);
    }
  }
  assert.deepEqual(bad, []);
});

test('src/schema is pure: no node: modules and no I/O packages', () => {
  const bad: string[] = [];
  for (const f of files(join(SRC, 'schema'))) {
    for (const spec of importsOf(f)) {
      if (spec.startsWith('node:') || ['fs', 'path', 'child_process', 'http', 'net', 'os', 'crypto'].includes(spec))
        bad.push(`${relative(SRC, f)}: ${spec}`);
      if (spec.startsWith('@modelcontextprotocol/') || spec === 'better-sqlite3' || spec === 'hono')
        bad.push(`${relative(SRC, f)}: ${spec}`);
    }
  }
  assert.deepEqual(bad, []);
});

test('the rule checker itself sees a forbidden import (negative control)', () => {
  assert.deepEqual(importsOf(join(SRC, '..', 'test', 'fixtures', 'boundary-violation.ts.txt')), ['node:fs', '../ui/console.js']);
});
