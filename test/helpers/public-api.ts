// The package's public API as data: for each subpath of package.json `exports`, the names its built
// module exports at run time and the exported names its declaration file (`tsc` output) gives a type
// meaning, read with the TypeScript compiler API. Needs `npm run build`.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';

export interface SubpathApi {
  /** Names the module exports at run time (functions, classes, constants), sorted. */
  values: string[];
  /** Exported names with a type meaning (interfaces, type aliases, classes, enums), sorted. */
  types: string[];
}
export type PublicApi = Record<string, SubpathApi>;

/** A public name (type or value) → where it is declared (`file:position`), once per distinct declaration. */
export type TypeOrigins = Map<string, Set<string>>;

const PACKAGE = 'mcp-parley';

/** The subpaths of package.json `exports` that are modules (`.`, `./schema`, …), with their `.d.ts`. */
export function subpaths(root = process.cwd()): Array<{ subpath: string; specifier: string; types: string }> {
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  return Object.entries(pkg.exports)
    .filter(([, target]) => typeof target === 'object' && target !== null && 'types' in target)
    .map(([subpath, target]) => ({
      subpath,
      specifier: subpath === '.' ? PACKAGE : `${PACKAGE}/${subpath.slice(2)}`,
      types: resolve(root, (target as { types: string }).types),
    }));
}

function typeOnlyExport(checker: ts.TypeChecker, symbol: ts.Symbol): boolean {
  let s: ts.Symbol | undefined = symbol;
  for (let hops = 0; s && s.flags & ts.SymbolFlags.Alias && hops < 20; hops++) {
    for (const d of s.declarations ?? []) {
      if (ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly)) return true;
      if (ts.isImportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly)) return true;
    }
    s = checker.getImmediateAliasedSymbol(s);
  }
  return false;
}

/** Reads every subpath's declaration file: the names it exports and where each is declared. */
export function declaredApi(root = process.cwd()): { api: Record<string, SubpathApi>; origins: TypeOrigins } {
  const entries = subpaths(root);
  const program = ts.createProgram(
    entries.map((e) => e.types),
    {
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      types: ['node'],
    },
  );
  const checker = program.getTypeChecker();
  const api: Record<string, SubpathApi> = {};
  const origins: TypeOrigins = new Map();
  for (const e of entries) {
    const file = program.getSourceFile(e.types);
    if (!file) throw new Error(`${e.types} is missing: run npm run build`);
    const moduleSymbol = checker.getSymbolAtLocation(file);
    if (!moduleSymbol) throw new Error(`${e.types} is not a module`);
    const values: string[] = [];
    const types: string[] = [];
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const decl = target.declarations?.[0];
      const where = decl ? `${decl.getSourceFile().fileName}:${decl.pos}` : `?${exported.name}`;
      const isValue = (target.flags & ts.SymbolFlags.Value) !== 0 && !typeOnlyExport(checker, exported);
      if (isValue) values.push(exported.name);
      if (target.flags & ts.SymbolFlags.Type) types.push(exported.name);
      origins.set(exported.name, new Set([...(origins.get(exported.name) ?? []), where]));
    }
    api[e.subpath] = { values: values.sort(), types: types.sort() };
  }
  return { api, origins };
}

/** Every subpath imported by package name in this process: its run-time export names, sorted. */
export async function runtimeApi(root = process.cwd()): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const e of subpaths(root)) out[e.subpath] = Object.keys(await import(e.specifier)).sort();
  return out;
}

/** Lines naming what `actual` adds to or removes from `expected`, per subpath and kind. */
export function apiDiff(expected: PublicApi, actual: PublicApi): string[] {
  const out: string[] = [];
  for (const subpath of [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort()) {
    for (const kind of ['values', 'types'] as const) {
      const want = new Set(expected[subpath]?.[kind] ?? []);
      const got = new Set(actual[subpath]?.[kind] ?? []);
      for (const n of got) if (!want.has(n)) out.push(`+ ${subpath} ${kind} ${n}`);
      for (const n of want) if (!got.has(n)) out.push(`- ${subpath} ${kind} ${n}`);
    }
  }
  return out;
}
