// fillFromUri (src/schema/template-fill.ts) with the SDK's UriTemplate: which variables a URI leaves
// out, the documented bounds, and no super-linear work on hostile input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UriTemplate } from '@modelcontextprotocol/client';
import { fillFromUri, TEMPLATE_FILL_MAX_URI, TEMPLATE_FILL_MAX_VARS } from '../src/schema/index.js';

const fill = (t: string, uri: string) => fillFromUri(new UriTemplate(t), uri);

test('the smallest left-out set, with decoded values, checked by re-expansion', () => {
  assert.deepEqual(fill('sql-query://{table}{?range}', 'sql-query://orders'), { known: { table: 'orders' }, missing: ['range'] });
  assert.deepEqual(fill('sql-query://{table}{?range}', 'sql-query://orders?range=2024'), {
    known: { table: 'orders', range: '2024' },
    missing: [],
  });
  assert.deepEqual(fill('sql-query://{table}{?range,region}', 'sql-query://orders?region=%E5%8C%97%E4%BA%AC'), {
    known: { table: 'orders', region: '北京' },
    missing: ['range'],
  });
  assert.deepEqual(fill('sales://results/{id}', 'sales://results/'), { known: {}, missing: ['id'] });
  assert.equal(fill('db://{schema}/{table}', 'db://public'), undefined, 'a literal that is missing too does not match');
  assert.equal(fill('sales://results/{id}', 'other://x'), undefined);
});

test('bounds: URIs over TEMPLATE_FILL_MAX_URI and templates over TEMPLATE_FILL_MAX_VARS variables never match', () => {
  assert.equal(TEMPLATE_FILL_MAX_URI, 2048);
  assert.equal(TEMPLATE_FILL_MAX_VARS, 8);
  assert.equal(fill('x://{a}', 'x://' + 'a'.repeat(TEMPLATE_FILL_MAX_URI)), undefined);
  assert.ok(fill('x://{a}', 'x://' + 'a'.repeat(TEMPLATE_FILL_MAX_URI - 4)));
  const nine = 'x://' + Array.from({ length: 9 }, (_, i) => `{v${i}}`).join('/');
  assert.equal(fill(nine, 'x://1/2/3/4/5/6/7/8/9'), undefined);
});

test('hostile input stays fast: 8 variables (7 path, 1 query), a 2048-character URI that never matches', () => {
  const t = 'x://' + Array.from({ length: 7 }, (_, i) => `{v${i}}`).join('x') + '{?q}';
  const uri = 'x://' + 'x'.repeat(TEMPLATE_FILL_MAX_URI - 5) + '/';
  const t0 = performance.now();
  assert.equal(fill(t, uri), undefined);
  const ms = performance.now() - t0;
  assert.ok(ms < 2000, `took ${ms.toFixed(0)} ms`);
});
