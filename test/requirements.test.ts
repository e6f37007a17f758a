// Every requirement of test/requirements.ts is verified by a test that says so in code: a call of
// `verifies(ids, [era], [transport], [fn])` (test/helpers/verifies.ts) in a test file. The calls are
// read from each file's syntax tree (TypeScript compiler API), so a comment or a string that merely
// names an id cites nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { REQUIREMENTS } from './requirements.js';
import { VERIFIED_ERAS, VERIFIED_TRANSPORTS } from './helpers/verifies.js';

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? testFiles(p) : n.endsWith('.test.ts') ? [p] : [];
  });
}

interface Citation {
  id: string;
  /** `file:line` of the `verifies` call. */
  at: string;
  /** The era and transport when given as literals; `'*'` when computed (e.g. a loop over eras). */
  era?: string;
  transport?: string;
}

/** The `verifies(...)` calls in one file's source. Problems (ids not given as string literals, unknown eras) go to `bad`. */
export function citationsIn(file: string, text: string, bad: string[] = []): Citation[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: Citation[] = [];
  const literal = (n: ts.Expression | undefined): string | undefined =>
    n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) ? n.text : n ? '*' : undefined;
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'verifies') {
      const at = `${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;
      const args = [...n.arguments];
      if (args.length > 1 && (ts.isArrowFunction(args.at(-1)!) || ts.isFunctionExpression(args.at(-1)!))) args.pop();
      const [first, era, transport] = args;
      const ids =
        first && ts.isArrayLiteralExpression(first) ? [...first.elements] : first ? [first as ts.Expression] : ([] as ts.Expression[]);
      if (ids.length === 0) bad.push(`${at}: verifies() names no requirement`);
      const e = literal(era);
      const tr = literal(transport);
      if (e && e !== '*' && !VERIFIED_ERAS.includes(e as never)) bad.push(`${at}: unknown era ${e}`);
      if (tr && tr !== '*' && !VERIFIED_TRANSPORTS.includes(tr as never)) bad.push(`${at}: unknown transport ${tr}`);
      for (const id of ids) {
        if (!ts.isStringLiteral(id)) bad.push(`${at}: requirement ids must be string literals`);
        else out.push({ id: id.text, at, ...(e ? { era: e } : {}), ...(tr ? { transport: tr } : {}) });
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const problems: string[] = [];
const citations = testFiles('test').flatMap((f) => citationsIn(f, readFileSync(f, 'utf8'), problems));
const cited = new Set(citations.map((c) => c.id));

test('every listed requirement is verified by at least one test', () => {
  const uncited = Object.keys(REQUIREMENTS).filter((id) => !cited.has(id));
  assert.deepEqual(uncited, [], 'verify it from a test (verifies(id, …) in test/helpers/verifies.ts) or remove the row');
});

test('every verified requirement id is listed in test/requirements.ts, as a literal, with a known era and transport', () => {
  const unknown = citations.filter((c) => !(c.id in REQUIREMENTS)).map((c) => `${c.at}: ${c.id}`);
  assert.deepEqual([...problems, ...unknown], [], 'list the requirement (spec file and section) or fix the id');
});

test('a requirement named only in a comment or a string is not verified (negative control)', () => {
  const source = `
    // req: ELIC-RESULT-ACTIONS
    test('a', async (t) => { const s = "verifies('ROOTS-URI-FILE')"; /* verifies('ELIC-1125-DEFAULTS') */ });
    test('b', verifies(['ERA-VERDICT-CACHE', 'ERA-DUAL-MODERN'], '2026-07-28', 'stdio', async () => {}));
    test('c', async () => { verifies('ELIC-1125-FORMATS', era, 'http'); });`;
  const bad: string[] = [];
  const got = citationsIn('x.test.ts', source, bad).map((c) => [c.id, c.era ?? '', c.transport ?? '']);
  assert.deepEqual(got, [
    ['ERA-VERDICT-CACHE', '2026-07-28', 'stdio'],
    ['ERA-DUAL-MODERN', '2026-07-28', 'stdio'],
    ['ELIC-1125-FORMATS', '*', 'http'],
  ]);
  assert.deepEqual(bad, []);
  const listed = new Set(got.map(([id]) => id));
  assert.ok(
    Object.keys(REQUIREMENTS).some((id) => !listed.has(id)),
    'the coverage test would name the rest as unverified',
  );
  citationsIn('y.test.ts', "verifies('X', '2024-01-01', 'carrier-pigeon');", bad);
  assert.deepEqual(bad, ['y.test.ts:1: unknown era 2024-01-01', 'y.test.ts:1: unknown transport carrier-pigeon']);
});
