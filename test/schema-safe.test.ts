// tooDeep (src/schema/safe.ts): the depth guard every schema and answer passes before validation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_DEPTH, MAX_WALK_DEPTH, tooDeep } from '../src/schema/safe.js';

function nest(levels: number, array = false): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = array ? [v] : { a: v };
  return v;
}

test('objects and arrays nested up to MAX_DEPTH levels pass; one more is too deep', () => {
  for (const array of [false, true]) {
    assert.equal(tooDeep(nest(MAX_DEPTH, array)), false, `${MAX_DEPTH} levels (${array ? 'arrays' : 'objects'})`);
    assert.equal(tooDeep(nest(MAX_DEPTH + 1, array)), true, `${MAX_DEPTH + 1} levels (${array ? 'arrays' : 'objects'})`);
  }
  assert.equal(tooDeep(nest(3), 3), false, 'custom max');
  assert.equal(tooDeep(nest(4), 3), true, 'custom max exceeded');
});

test('primitives, cycles, mixed nesting, inherited and non-enumerable members', () => {
  assert.equal(tooDeep('x'), false);
  assert.equal(tooDeep(null), false);
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = { back: cycle };
  assert.equal(tooDeep(cycle), true, 'a cycle counts as too deep');
  // root 0, list 1, {x} 2, x 3, {y} 4, then nest(n)'s objects at 5 … 4 + n
  assert.equal(
    tooDeep({ list: [{ x: [1, 2, { y: nest(MAX_DEPTH - 5) }] }] }),
    false,
    'depth counts through arrays and objects (deepest at MAX_DEPTH - 1)',
  );
  assert.equal(
    tooDeep({ list: [{ x: [1, 2, { y: nest(MAX_DEPTH - 4) }] }] }),
    true,
    'depth counts through arrays and objects (deepest at MAX_DEPTH)',
  );
  const inherited = Object.create({ deep: nest(MAX_DEPTH + 5) }) as object;
  assert.equal(tooDeep(inherited), false, 'inherited members are not walked (like Object.values)');
  const hidden = {};
  Object.defineProperty(hidden, 'deep', { value: nest(MAX_DEPTH + 5), enumerable: false });
  assert.equal(tooDeep(hidden), false, 'non-enumerable members are not walked');
  assert.equal(tooDeep({ ok: nest(10), deep: nest(MAX_DEPTH + 1) }), true, 'a later deep member is found');
  const huge = nest(20_000);
  assert.equal(tooDeep(huge, 1e9), true, 'max is capped at MAX_WALK_DEPTH levels; no stack overflow');
  assert.equal(tooDeep(nest(MAX_WALK_DEPTH - 1), 1e9), false, 'below the cap');
});
