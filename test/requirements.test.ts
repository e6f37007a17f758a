import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REQUIREMENTS } from './requirements.js';

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? testFiles(p) : n.endsWith('.test.ts') ? [p] : [];
  });
}
const citations = new Map<string, string[]>();
for (const f of testFiles('test')) {
  for (const m of readFileSync(f, 'utf8').matchAll(/\/\/ req: ([A-Z0-9-]+(?:[ ,]+[A-Z0-9-]+)*)/g)) {
    for (const id of m[1].split(/[ ,]+/)) citations.set(id, [...(citations.get(id) ?? []), f]);
  }
}

test('every listed requirement is cited by at least one test', () => {
  const uncited = Object.keys(REQUIREMENTS).filter((id) => !citations.has(id));
  assert.deepEqual(uncited, [], 'cite it from a test (a req comment) or remove the row');
});

test('every cited requirement id is listed in test/requirements.ts', () => {
  const unknown = [...citations.keys()].filter((id) => !(id in REQUIREMENTS));
  assert.deepEqual(unknown, [], 'list the requirement (spec file and section) or fix the id');
});
