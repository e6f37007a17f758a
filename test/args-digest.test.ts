// argsDigest (src/server/seal.ts): the one digest of a call's arguments that the toolkit and the gateway
// seal into a 2026-07-28 requestState. Key order does not change it, any change of a value does, and a
// hostile nesting depth neither overflows the stack nor grows time faster than the input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { argsDigest } from '../src/server/seal.js';

test('argsDigest: key order at any level does not matter; a changed value, key or type does; absent is {}', () => {
  const a = argsDigest({ b: 1, a: { y: [1, { q: 'x', p: null }], x: true } });
  assert.equal(a, argsDigest({ a: { x: true, y: [1, { p: null, q: 'x' }] }, b: 1 }));
  for (const other of [
    { b: 2, a: { y: [1, { q: 'x', p: null }], x: true } },
    { b: 1, a: { y: [1, { q: 'x' }], x: true } },
    { b: '1', a: { y: [1, { q: 'x', p: null }], x: true } },
    { c: 1, a: { y: [1, { q: 'x', p: null }], x: true } },
  ])
    assert.notEqual(argsDigest(other), a, JSON.stringify(other));
  assert.equal(argsDigest(undefined), argsDigest({}));
  assert.notEqual(argsDigest([1, 2]), argsDigest([2, 1]), 'array order counts');
  assert.match(a, /^[A-Za-z0-9_-]{43}$/);
});

test('argsDigest: 200,000 levels of nesting are digested without recursion, in time linear in the size', () => {
  const nest = (depth: number) => {
    let v: unknown = 'leaf';
    for (let i = 0; i < depth; i++) v = i % 2 ? { k: v } : [v];
    return v;
  };
  const time = (v: unknown) => {
    const t0 = process.hrtime.bigint();
    argsDigest(v);
    return Number(process.hrtime.bigint() - t0);
  };
  // Built once, outside the timed runs: building a 200k-level value just before timing left it in the
  // young generation, whose collection during the digest copied it (CI measured 12.8× for 4× the size).
  // After the first runs both values are old, so the best of five times the digest alone; the sizes
  // alternate, so a slow stretch of a loaded machine slows both alike.
  const smallValue = nest(50_000);
  const largeValue = nest(200_000);
  time(nest(20_000)); // warm-up
  let small = Infinity;
  let large = Infinity;
  for (let i = 0; i < 5; i++) {
    small = Math.min(small, time(smallValue));
    large = Math.min(large, time(largeValue));
  }
  // 4× the input: linear is ≈ 4×; a quadratic writer would be ≈ 16×.
  assert.ok(large / small < 10, `200k levels took ${(large / small).toFixed(1)}× the time of 50k`);
  assert.notEqual(argsDigest(nest(200_000)), argsDigest(nest(200_001)));
});
