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
// Usage: node scripts/bundle-servers.mjs   (run by `npm run build`; idempotent: on its own output it
// changes nothing; after tsc it replaces the bundles and the old chunks)
import { build } from 'esbuild';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
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
// A second run on its own output (no tsc in between) leaves the bundles as they are: a bundle cannot
// be bundled again, and they are already current for the compiled sources they were made from.
const MARK = '/* parley: bundled by scripts/bundle-servers.mjs */';
if (entries.every((e) => readFileSync(e, 'utf8').includes(MARK))) {
  console.error('bundle-servers: dist/servers is already bundled; `npm run build` recompiles and bundles again');
  process.exit(0);
}
// Build into a scratch directory, then swap, so a failed build leaves the previous output working.
const scratch = join(servers, '.bundle-next');
rmSync(scratch, { recursive: true, force: true });

await build({
  entryPoints: entries,
  outdir: scratch,
  outbase: servers,
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  // Whitespace and syntax only: identifiers stay readable in stack traces; fewer bytes to decode and parse.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  external: ['better-sqlite3', '@resvg/resvg-js', 'vega', 'vega-lite'],
  // CommonJS packages inside the bundle (ajv, …) call require() for Node built-ins.
  banner: {
    js: `${MARK}\nimport { createRequire as __parleyCreateRequire } from 'node:module'; const require = __parleyCreateRequire(import.meta.url);`,
  },
});

rmSync(join(servers, 'chunks'), { recursive: true, force: true });
renameSync(join(scratch, 'chunks'), join(servers, 'chunks'));
for (const n of ['sales', 'charts']) {
  for (const f of ['main.js', 'main.js.map']) renameSync(join(scratch, n, f), join(servers, n, f));
}
rmSync(scratch, { recursive: true, force: true });
