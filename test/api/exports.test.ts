// The public API is committed: every subpath of package.json `exports`, imported by package name from
// the build, must export exactly the names in test/api/exports.json (run-time values, and the type
// names its tsc-emitted declaration file exports). A change to the public API changes that file:
// `PARLEY_UPDATE_API=1 node --import tsx --test test/api/exports.test.ts` rewrites it. Needs
// `npm run build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { apiDiff, declaredApi, runtimeApi, subpaths, type PublicApi } from '../helpers/public-api.js';

const FILE = join('test', 'api', 'exports.json');
const declared = declaredApi();

test('every subpath exports exactly the committed names (test/api/exports.json)', async () => {
  const runtime = await runtimeApi();
  for (const [subpath, names] of Object.entries(runtime))
    assert.deepEqual(names, declared.api[subpath].values, `${subpath}: run-time exports differ from its .d.ts`);
  if (process.env.PARLEY_UPDATE_API === '1') writeFileSync(FILE, `${JSON.stringify(declared.api, null, 2)}\n`);
  const committed = JSON.parse(readFileSync(FILE, 'utf8')) as PublicApi;
  assert.deepEqual(apiDiff(committed, declared.api), [], `the public API changed: update ${FILE} (PARLEY_UPDATE_API=1) if that is meant`);
});

test('the API comparison names an added and a removed export (negative control)', () => {
  const committed = JSON.parse(readFileSync(FILE, 'utf8')) as PublicApi;
  const changed = structuredClone(committed);
  changed['./host'].values.push('addedByMistake');
  const removed = changed['./server'].types.shift();
  assert.deepEqual(apiDiff(committed, changed), ['+ ./host values addedByMistake', `- ./server types ${removed}`]);
});

test('no two public names share a name with different declarations (types and values, all subpaths)', () => {
  const shared = [...declared.origins].filter(([, where]) => where.size > 1).map(([name, where]) => `${name}: ${[...where].join(', ')}`);
  assert.deepEqual(shared, [], 'rename one of them, or re-export the one declaration');
});

test('subpath entry files list their exports by name (no export *)', () => {
  const bad: string[] = [];
  for (const { types } of subpaths()) {
    const entry = types.replace(/[\\/]dist[\\/]/, '/').replace(/\.d\.ts$/, '.ts');
    const text = readFileSync(entry, 'utf8');
    if (/^\s*export\s+(type\s+)?\*/m.test(text)) bad.push(relative(process.cwd(), entry));
  }
  assert.deepEqual(bad, []);
});
