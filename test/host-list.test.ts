// The host's per-request helpers: the insertion-ordered list (src/host/list.ts: order kept, O(1) removal anywhere,
// a node removed twice or from another list is refused, `values()` a copy) and whenSettled (src/host/settle.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { List } from '../src/host/list.js';

test('List: keeps insertion order through removals at the head, middle and tail', () => {
  const l = new List<string>();
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((v) => l.add(v));
  assert.deepEqual([l.size, l.first, l.values()], [4, 'a', ['a', 'b', 'c', 'd']]);
  assert.equal(l.remove(b), true);
  assert.deepEqual(l.values(), ['a', 'c', 'd']);
  assert.equal(l.remove(a), true);
  assert.equal(l.first, 'c');
  assert.equal(l.remove(d), true);
  assert.deepEqual(l.values(), ['c']);
  const e = l.add('e');
  assert.deepEqual(l.values(), ['c', 'e'], 'a node added after a tail removal links to the new tail');
  assert.equal(l.remove(c), true);
  assert.equal(l.remove(e), true);
  assert.deepEqual([l.size, l.first, l.values()], [0, undefined, []]);
});

test('List: removing a node twice, or through another list, changes nothing', () => {
  const l = new List<number>();
  const other = new List<number>();
  const n = l.add(1);
  l.add(2);
  assert.equal(other.remove(n), false, "not that list's node");
  assert.equal(l.remove(n), true);
  assert.equal(l.remove(n), false, 'already removed');
  assert.deepEqual([l.size, l.values()], [1, [2]]);
  const copy = l.values();
  copy.push(3);
  assert.deepEqual(l.values(), [2], 'values() is a copy');
});

test('whenSettled: runs done once after a value, a plain value, a rejection or a synchronous throw, and settles as fn does', async () => {
  const { whenSettled } = await import('../src/host/settle.js');
  let done = 0;
  const count = () => void done++;
  assert.equal(await whenSettled(() => Promise.resolve(1), count), 1);
  assert.equal(await whenSettled(() => 2, count), 2, 'a plain value');
  await assert.rejects(
    whenSettled(() => Promise.reject(new Error('late')), count),
    /late/,
  );
  let thrown: Promise<unknown> | undefined;
  assert.doesNotThrow(
    () =>
      (thrown = whenSettled(() => {
        throw new Error('sync');
      }, count)),
    'a synchronous throw becomes a rejection',
  );
  assert.equal(done, 4, 'done ran for the synchronous throw before the call returned');
  await assert.rejects(thrown!, /sync/);
  let seenBeforeSettle = -1;
  await whenSettled(() => new Promise((r) => setTimeout(r, 5)).then(() => (seenBeforeSettle = done)), count);
  assert.deepEqual([seenBeforeSettle, done], [4, 5], 'done runs after fn settles, not before');
});
