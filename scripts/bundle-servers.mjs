#!/usr/bin/env node
// Bundles the two bundled servers (`parley-sales`, `parley-charts`) after `tsc` has built dist/:
// dist/servers/<name>/main.js is replaced by one ES module holding the server, the toolkit, the SDK and
// zod, with lazily loaded parts (HTTP serving, chart rendering, charts' in-process sales backend) in
// shared chunks under dist/servers/chunks/.
//
// Why: `parley up` starts both servers at once, and on a small machine their start-up is mostly Node's
// ES module loader resolving and reading ~150 files each (docs/benchmarks-method.md §startup). One file
// per server cuts each child's start-up CPU by about a quarter, which is what lets both start in
// parallel within the issue-5 target. Native or large lazily used packages stay external and load from
// node_modules: better-sqlite3 and @resvg/resvg-js (native), vega and vega-lite (only when rendering).
//
// Usage: node scripts/bundle-servers.mjs   (run by `npm run build`; idempotent: old chunks are removed)
import { build } from 'esbuild';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const servers = join(root, 'dist', 'servers');
const entries = ['sales', 'charts'].map((n) => join(servers, n, 'main.js'));
for (const e of entries) {
  if (!existsSync(e)) {
    console.error(`bundle-servers: ${e} is missing; run tsc first (npm run build does both)`);
    process.exit(1);
  }
}
rmSync(join(servers, 'chunks'), { recursive: true, force: true });

await build({
  entryPoints: entries,
  outdir: servers,
  outbase: servers,
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  allowOverwrite: true,
  sourcemap: 'linked',
  // Whitespace and syntax only: identifiers stay readable in stack traces; fewer bytes to decode and parse.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  external: ['better-sqlite3', '@resvg/resvg-js', 'vega', 'vega-lite'],
  // CommonJS packages inside the bundle (ajv, …) call require() for Node built-ins.
  banner: { js: "import { createRequire as __parleyCreateRequire } from 'node:module'; const require = __parleyCreateRequire(import.meta.url);" },
});
