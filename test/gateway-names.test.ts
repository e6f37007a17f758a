// The gateway's naming scheme (src/gateway/names.ts, docs/gateway.md §Names), URI-template matching for
// resources/read (catalog.ts) and bearer lookup (users.ts): pure functions, tested directly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashToken, namespace, parseQualifiedUri, qualifiedUri, userForAuthorization } from '../src/gateway/index.js';
import { matchesTemplate } from '../src/gateway/catalog.js';

const names = (pairs: Array<[string, string]>) => namespace(pairs.map(([server, name]) => ({ server, name }))).map((n) => n.exposed);

test('plain names are <server>__<name>, whatever the other servers offer', () => {
  assert.deepEqual(names([['sales', 'query_sales']]), ['sales__query_sales']);
  assert.deepEqual(
    names([
      ['sales', 'query_sales'],
      ['charts', 'generate_chart'],
    ]).sort(),
    ['charts__generate_chart', 'sales__query_sales'],
  );
});

test('other characters become _ with a stable hash suffix; results fit 64 characters and keep the tool part', () => {
  const [dotted] = names([['my.server', 'do it']]);
  assert.match(dotted, /^my_server__do_it_[0-9a-f]{6}$/);
  assert.equal(names([['my.server', 'do it']])[0], dotted, 'stable across calls');
  const long = 'a_very_long_server_name_that_goes_on_and_on_and_on_forever_and_ever';
  const [cut] = names([[long, 'read_file']]);
  assert.ok(cut.length <= 64, `${cut} has ${cut.length} characters`);
  assert.match(cut, /__read_file_[0-9a-f]{6}$/, 'the tool part survives');
});

test('two plain names that meet: the second in server/name order gets the suffix; nothing collides', () => {
  const out = names([
    ['a__b', 'c'],
    ['a', 'b__c'],
  ]);
  assert.equal(new Set(out).size, 2);
  assert.ok(out.includes('a__b__c'));
  assert.ok(
    out.some((n) => /^a__b__c_[0-9a-f]{6}$/.test(n)),
    out.join(', '),
  );
});

test("namespace keeps each item's own fields", () => {
  const [n] = namespace([{ server: 's', name: 't', extra: 42 }]);
  assert.equal(n.extra, 42);
  assert.equal(n.exposed, 's__t');
});

test('qualified URIs round-trip; other URIs are not qualified', () => {
  const q = qualifiedUri('fs one', 'file:///tmp/a b.txt');
  assert.deepEqual(parseQualifiedUri(q), { server: 'fs one', uri: 'file:///tmp/a b.txt' });
  assert.equal(parseQualifiedUri('file:///tmp/x'), undefined);
  assert.equal(parseQualifiedUri('parley://%E0%A4%A/x'), undefined, 'malformed escapes are not a crash');
});

test('URI templates match one path segment per variable, literally elsewhere', () => {
  assert.equal(matchesTemplate('sales://results/{id}', 'sales://results/42'), true);
  assert.equal(matchesTemplate('sales://results/{id}', 'sales://results/42/csv'), false);
  assert.equal(matchesTemplate('sales://results/{id}/csv', 'sales://results/42/csv'), true);
  assert.equal(matchesTemplate('a.b://{x}', 'aXb://y'), false, 'dots are literal');
  assert.equal(matchesTemplate('sql-query://{table}{?range}', 'sql-query://orders?range=all'), true, 'level 3 query expansion');
});

test('URI template matching is linear: a hostile template from a server cannot stall resources/read', () => {
  const uri = `x://${'a'.repeat(400)}/`; // no match: a backtracking RegExp tries every split of the run
  const t0 = performance.now();
  assert.equal(matchesTemplate('x://{a}{b}{c}{d}{e}{f}', uri), false);
  assert.ok(performance.now() - t0 < 2000, `took ${Math.round(performance.now() - t0)} ms`); // backtracking: 400^6 steps
});

test('bearer lookup: only a known token in a well-formed header names a user', () => {
  const users = { alice: { tokenSha256: hashToken('pt_a') }, bob: { tokenSha256: hashToken('pt_b') } };
  assert.equal(userForAuthorization('Bearer pt_a', users), 'alice');
  assert.equal(userForAuthorization('bearer pt_b ', users), 'bob');
  assert.equal(userForAuthorization('Bearer pt_c', users), undefined);
  assert.equal(userForAuthorization('pt_a', users), undefined);
  assert.equal(userForAuthorization(undefined, users), undefined);
});
