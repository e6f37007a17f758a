// No import cycles in src/, type-only imports included: a cycle makes a module's meaning depend on
// load order and hides which file owns a type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relative, resolve } from 'node:path';
import { findCycles, importGraph } from './helpers/import-graph.js';

test('src/ has no import cycles (type-only imports count)', () => {
  const src = resolve('src');
  const cycles = findCycles(importGraph(src)).map((c) => c.map((f) => relative(src, f)).join(' ⇄ '));
  assert.deepEqual(cycles, [], 'move the shared types into a file both sides import');
});

test('the cycle finder sees a type-only cycle and a self-import (negative control)', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['a']],
    ['e', ['e']],
  ]);
  assert.deepEqual(findCycles(graph), [['a', 'b', 'c'], ['e']]);
});
