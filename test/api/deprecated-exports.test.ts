// mcp-parley/server's internal pieces stay exported (removing them breaks callers) but are marked
// `@deprecated` at the public name, saying what to use instead or that they go in the next major; no
// other export is deprecated; and docs/server.md "Exports" lists every public name in its public table
// and the deprecated ones only in its deprecated table. Reads the build's declaration files (tsc
// output): needs `npm run build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';

const DEPRECATED = ['ConfigCache', 'ListChange', 'ListChanges', 'StatePayload', 'argsDigest'];

/** Every export of the `./server` subpath's declaration file → the `@deprecated` texts of its declarations. */
function deprecations(): Map<string, string[]> {
  const entry = resolve('dist/src/server/index.d.ts');
  const program = ts.createProgram([entry], {
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  assert.ok(source, `${entry} not built (npm run build)`);
  const module = checker.getSymbolAtLocation(source);
  assert.ok(module);
  const out = new Map<string, string[]>();
  for (const exported of checker.getExportsOfModule(module)) {
    const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const texts: string[] = [];
    for (const d of target.declarations ?? []) {
      const tag = ts.getJSDocTags(d).find((t) => t.tagName.text === 'deprecated');
      texts.push(tag ? (ts.getTextOfJSDocComment(tag.comment) ?? '') : '<none>');
    }
    out.set(exported.name, texts);
  }
  return out;
}

test('the internal exports of mcp-parley/server are still exported, each marked @deprecated with what to do', async () => {
  const found = deprecations();
  const runtime = Object.keys(await import('mcp-parley/server'));
  for (const name of DEPRECATED) {
    const texts = found.get(name);
    assert.ok(texts?.length, `${name} is no longer exported: removing it breaks callers`);
    for (const text of texts)
      assert.match(
        text,
        /(\bUse\s|\buse\s|\b[Nn]o\s+replacement)[\s\S]*next\s+major\s+version/,
        `${name}: @deprecated must say what to use instead and when it goes`,
      );
  }
  for (const name of ['argsDigest', 'ConfigCache', 'ListChanges']) assert.ok(runtime.includes(name), `${name} is still a run-time export`);
  const others = [...found].filter(([name, texts]) => !DEPRECATED.includes(name) && texts.some((t) => t !== '<none>')).map(([n]) => n);
  assert.deepEqual(others, [], 'only the internal pieces are deprecated');
});

test("docs/server.md 'Exports': public names in the public table, deprecated ones only in the deprecated table", () => {
  const md = readFileSync('docs/server.md', 'utf8');
  const start = md.indexOf('## Exports');
  assert.ok(start >= 0, 'docs/server.md has no "## Exports" section');
  const section = md.slice(start, md.indexOf('\n## ', start + 1));
  const split = section.indexOf('**Deprecated:**');
  assert.ok(split > 0, 'the Exports section has no "**Deprecated:**" part');
  const names = (text: string) =>
    new Set(
      text
        .split('\n')
        .filter((l) => l.startsWith('| ') && !l.startsWith('|---'))
        .flatMap((l) => [...l.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((m) => m[1])),
    );
  const api = JSON.parse(readFileSync('test/api/exports.json', 'utf8'))['./server'] as { values: string[]; types: string[] };
  const all = new Set([...api.values, ...api.types]);
  const publicNames = [...all].filter((n) => !DEPRECATED.includes(n)).sort();
  const publicTable = [...names(section.slice(0, split))].filter((n) => all.has(n)).sort();
  assert.deepEqual(publicTable, publicNames);
  for (const name of DEPRECATED) assert.ok(!names(section.slice(0, split)).has(name), `${name} is listed as public`);
  const deprecatedTable = section
    .slice(split)
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => /^\| `([A-Za-z_][A-Za-z0-9_]*)`/.exec(l)?.[1])
    .sort();
  assert.deepEqual(deprecatedTable, [...DEPRECATED].sort());
});
