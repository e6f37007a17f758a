// The toolkit snippets a server author copies first must compile as written, importing the package by
// name (`mcp-parley/server`, resolved through package.json `exports` to the build, as in a project that
// depends on mcp-parley): README.md's "Writing a server that asks" block, and docs/server.md's runnable
// example with its relative import replaced by the package name. Type-checked in memory with the
// TypeScript compiler API (nothing is written). Needs `npm run build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';

/** The first ```ts block after `heading` in `file`. */
function blockAfter(file: string, heading: string): string {
  const md = readFileSync(file, 'utf8');
  const at = md.indexOf(heading);
  assert.ok(at >= 0, `${file}: no "${heading}"`);
  const block = /```ts\n([\s\S]*?)```/.exec(md.slice(at))?.[1];
  assert.ok(block, `${file}: no ts block after "${heading}"`);
  return block;
}

/** tsc diagnostics of `sources` (virtual files in the package root, so `mcp-parley/*` self-resolves). */
function diagnose(sources: Record<string, string>): string[] {
  const root = process.cwd();
  const files = new Map(Object.entries(sources).map(([name, text]) => [resolve(root, name), text]));
  const options: ts.CompilerOptions = {
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: ['node'],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) =>
    files.has(name) ? ts.createSourceFile(name, files.get(name) as string, lang) : getSourceFile(name, lang, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  const dirs = new Set([...files.keys()].map((f) => dirname(f)));
  const directoryExists = host.directoryExists?.bind(host);
  host.directoryExists = (d) => dirs.has(d) || (directoryExists ? directoryExists(d) : true);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => files.get(name) ?? readFile(name);
  const program = ts.createProgram([...files.keys()], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? `${d.file.fileName.slice(root.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
}

test('README.md and docs/server.md toolkit examples compile as written against mcp-parley/server', () => {
  const readme = blockAfter('README.md', '## Writing a server that asks');
  assert.match(readme, /from 'mcp-parley\/server'/);
  const docs = blockAfter('docs/server.md', '## Runnable example').replace("'../../../src/server/index.js'", "'mcp-parley/server'");
  assert.match(docs, /from 'mcp-parley\/server'/);
  assert.deepEqual(diagnose({ 'readme-server-snippet.ts': readme, 'docs-server-example.ts': docs }), []);
});

test("docs/server.md's testing recipe compiles next to the example, as the page says to save them", () => {
  const example = blockAfter('docs/server.md', '## Runnable example').replace("'../../../src/server/index.js'", "'mcp-parley/server'");
  const recipe = blockAfter('docs/server.md', '## Testing your server');
  assert.match(recipe, /from '\.\/example\.js'/);
  assert.match(recipe, /from 'mcp-parley\/testing'/);
  const dir = 'snippets-not-on-disk';
  assert.deepEqual(diagnose({ [`${dir}/example.ts`]: example, [`${dir}/testing.test.ts`]: recipe }), []);
});

test("docs/server.md's every-field-kind server and its tests compile as the page says to save them", () => {
  const server = blockAfter('docs/server.md', '## Every field kind, URL mode and a template that asks');
  const md = readFileSync('docs/server.md', 'utf8');
  const tests = blockAfter('docs/server.md', 'Its tests, on every revision');
  assert.ok(md.indexOf('Its tests, on every revision') > md.indexOf('## Every field kind'), 'the tests follow the server');
  assert.match(server, /from 'mcp-parley\/server'/);
  assert.match(tests, /from '\.\/every-kind\.js'/);
  const dir = 'snippets-not-on-disk';
  assert.deepEqual(diagnose({ [`${dir}/every-kind.ts`]: server, [`${dir}/every-kind.test.ts`]: tests }), []);
});

test('the snippet check reports a snippet that does not compile (negative control)', () => {
  const bad = "import { createParleyServer } from 'mcp-parley/server';\ncreateParleyServer({ name: 'x' });\n";
  const found = diagnose({ 'bad-snippet.ts': bad });
  assert.equal(found.length, 1, found.join('\n'));
  assert.match(found[0], /^bad-snippet\.ts:2: .*version/s);
});

test('dependsOn.describe receives the typed configuration (z.infer of its schema), as ctx.config returns it', () => {
  const snippet = [
    "import * as z from 'zod/v4';",
    "import { createParleyServer, defineConfig } from 'mcp-parley/server';",
    "const db = defineConfig({ name: 'db', schema: z.object({ host: z.string(), port: z.number().int() }) });",
    "const s = createParleyServer({ name: 'x', version: '1.0.0' });",
    'const on = (c: { host: string; port: number }) => `on ${c.host.toUpperCase()}:${c.port.toFixed(0)}`;',
    "s.tool('q', { description: 'q', inputSchema: z.object({}), dependsOn: { config: db, describe: (c) => on(c) } }, async () => ({ content: [] }));",
    '// @ts-expect-error the configuration has no field "nope"',
    "s.tool('r', { description: 'r', inputSchema: z.object({}), dependsOn: { config: db, describe: (c) => String(c.nope) } }, async () => ({ content: [] }));",
    '',
  ].join('\n');
  assert.deepEqual(diagnose({ 'depends-on-snippet.ts': snippet }), []);
});
