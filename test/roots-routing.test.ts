// URI routing (src/host/roots/routing.ts, glob.ts): static globs/regexes, template and scheme discovery.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globToRegExp } from '../src/host/roots/glob.js';
import {
  declaredSchemes,
  MAX_MATCH_URI_CHARS,
  MAX_TEMPLATE_CHARS,
  RouteError,
  uriTemplateToRegExp,
  UriRouter,
  URI_SCHEMES_CAPABILITY,
} from '../src/host/roots/routing.js';

test('glob: ** crosses segments, * and ? do not, /** also matches the directory itself', () => {
  const cases: Array<[string, string, boolean]> = [
    ['file:///srv/data/**', 'file:///srv/data', true],
    ['file:///srv/data/**', 'file:///srv/data/a/b.txt', true],
    ['file:///srv/data/**', 'file:///srv/data2', false],
    ['file:///srv/data/**', 'file:///srv/data2/x', false],
    ['file:///srv/*/x', 'file:///srv/a/x', true],
    ['file:///srv/*/x', 'file:///srv/a/b/x', false],
    ['file:///srv/**/x', 'file:///srv/a/b/x', true],
    ['sales://*', 'sales://emea', true],
    ['sales://*', 'sales://emea/q3', false],
    ['sales://**', 'sales://emea/q3', true],
    ['file:///a?c', 'file:///abc', true],
    ['file:///a?c', 'file:///a/c', false],
    ['file:///a.b', 'file:///aXb', false],
    ['file:///a\\*', 'file:///a*', true],
    ['file:///a\\*', 'file:///ab', false],
    ['https://example.com/(repo)', 'https://example.com/(repo)', true],
  ];
  for (const [g, u, want] of cases) assert.equal(globToRegExp(g).test(u), want, `${g} ~ ${u}`);
});

test('static routes: glob and regex, union of matching routes, normalised URIs', () => {
  const r = new UriRouter([
    { match: 'file:///srv/data/**', servers: ['fs'] },
    { match: '^sales://(emea|apac)(/|$)', regex: true, servers: ['crm'] },
    { match: 'file:///srv/data/reports/**', servers: ['fs', 'reports'] },
  ]);
  assert.deepEqual(r.serversFor('file:///srv/data/x'), ['fs']);
  assert.deepEqual(r.serversFor('file:///srv/data/reports/q3.csv'), ['fs', 'reports']);
  assert.deepEqual(r.serversFor('FILE://localhost/srv/data/'), ['fs']); // canonical form is matched
  assert.deepEqual(r.serversFor('file:///srv/data2'), []);
  assert.deepEqual(r.serversFor('sales://EMEA/deals'), ['crm']);
  assert.deepEqual(r.serversFor('sales://latam'), []);
  assert.deepEqual(r.serversFor('not a uri'), []);
  // Dot segments (plain or encoded) are resolved before matching: no route is borrowed.
  assert.deepEqual(r.serversFor('file:///srv/data/../../etc/passwd'), []);
  assert.deepEqual(r.serversFor('file:///srv/data/%2e%2e/reports/x'), []);
  assert.deepEqual(r.serversFor('file:///srv/data/x/../reports/q3.csv'), ['fs', 'reports']);
  assert.deepEqual(r.serversFor('file:///srv/data/%2F..%2F..%2Fetc'), []); // malformed: routes nowhere
  assert.deepEqual(r.serversFor('file:///srv/data/%zz'), []);
});

test('glob routes are matched in canonical spelling (scheme, host, drive letter)', () => {
  const r = new UriRouter([
    { match: 'FILE:///c%3a/Work/**', servers: ['win'] },
    { match: 'HTTPS://Example.COM/repo/**', servers: ['gh'] },
    { match: 'file://localhost/srv/**', servers: ['srv'] },
  ]);
  assert.deepEqual(r.serversFor('file:///C:/Work/a'), ['win']);
  assert.deepEqual(r.serversFor('file:///c:/Work'), ['win']);
  assert.deepEqual(r.serversFor('file:///C:/work/a'), []); // paths stay case-sensitive
  assert.deepEqual(r.serversFor('https://example.com/repo/x'), ['gh']);
  assert.deepEqual(r.serversFor('file:///srv/x'), ['srv']);
});

test('bad routes fail with the JSON pointer and the fix', () => {
  assert.throws(
    () =>
      new UriRouter([
        { match: 'ok/**', servers: ['a'] },
        { match: '(', regex: true, servers: ['a'] },
      ]),
    (e: unknown) => e instanceof RouteError && e.pointer === '/routes/1/match' && /regex/.test(e.message),
  );
  assert.throws(
    () => new UriRouter([{ match: 'x', servers: 'a' as unknown as string[] }]),
    (e: RouteError) => e.pointer === '/routes/0/servers',
  );
  assert.throws(
    () => new UriRouter([{ match: '', servers: [] }]),
    (e: RouteError) => e.pointer === '/routes/0/match',
  );
});

test('RFC 6570 templates compile to matchers for every operator', () => {
  const m = (t: string, u: string) => uriTemplateToRegExp(t)!.test(u);
  assert.equal(m('file:///{+path}', 'file:///home/u/x.txt'), true);
  assert.equal(m('github://repos/{owner}/{repo}', 'github://repos/acme/site'), true);
  assert.equal(m('github://repos/{owner}/{repo}', 'github://repos/acme/site/extra'), false);
  assert.equal(m('db://tables{/table}', 'db://tables/users'), true);
  assert.equal(m('search://q{?term,limit}', 'search://q?term=a&limit=2'), true);
  assert.equal(m('search://q{?term,limit}', 'search://q'), true);
  assert.equal(m('doc://a{#section}', 'doc://a#intro'), true);
  assert.equal(m('x://a.b/{id}', 'x://aXb/1'), false);
  assert.equal(uriTemplateToRegExp('x://{unterminated'), undefined);
  assert.equal(m('emoji://{x}/\u{1F600}', 'emoji://a/\u{1F600}'), true);
});

test('template matching is linear: a hostile template from a server cannot stall routing', () => {
  // As regexes, 12 adjacent {+x}/ or {/x} expressions backtrack for hours on a near miss.
  const wide = uriTemplateToRegExp('h://' + Array.from({ length: 12 }, (_, i) => `{+v${i}}/`).join('') + 'x')!;
  const slashes = uriTemplateToRegExp('h://' + '{/a}'.repeat(200) + 'x')!;
  const t0 = performance.now();
  assert.equal(wide.test('h://' + '/'.repeat(4000) + 'y'), false);
  assert.equal(slashes.test('h://' + '/a'.repeat(2000) + 'y'), false);
  assert.equal(wide.test('h://' + 'a/'.repeat(12) + 'x'), true);
  assert.ok(performance.now() - t0 < 2000, `took ${performance.now() - t0} ms`);
  assert.equal(uriTemplateToRegExp('h://' + 'a'.repeat(MAX_TEMPLATE_CHARS)), undefined, 'too long: ignored');
  assert.equal(
    uriTemplateToRegExp('h://{+p}')!.test('h://' + 'a'.repeat(MAX_MATCH_URI_CHARS)),
    false,
    'a URI past the bound matches nothing',
  );
  const r = new UriRouter();
  assert.deepEqual(
    r.setDiscovery('greedy', { uriTemplates: ['{+anything}', 'ok://{x}'] }),
    ['{+anything}'],
    'a template without a literal scheme would claim every root',
  );
  assert.deepEqual(r.serversFor('file:///home/u'), []);
  assert.deepEqual(r.serversFor('ok://1'), ['greedy']);
});

test('dynamic discovery: templates and declared schemes; static routes take precedence', () => {
  const r = new UriRouter([{ match: 'sales://emea/**', servers: ['crm-eu'] }]);
  const bad = r.setDiscovery('gh', { uriTemplates: ['github://repos/{owner}/{repo}', 'broken://{x'] });
  assert.deepEqual(bad, ['broken://{x']);
  r.setDiscovery('crm', { capabilities: { experimental: { [URI_SCHEMES_CAPABILITY]: { schemes: ['Sales:'] } } } });
  r.setDiscovery('fs', { uriTemplates: ['file:///{+path}'] });
  assert.deepEqual(r.serversFor('github://repos/acme/site'), ['gh']);
  assert.deepEqual(r.serversFor('sales://apac/deals'), ['crm']);
  assert.deepEqual(r.serversFor('sales://emea/deals'), ['crm-eu']); // static wins over discovery
  assert.deepEqual(r.serversFor('file:///home/u'), ['fs']);
  assert.deepEqual(r.serversFor('https://example.com/repo'), []);
  r.removeServer('crm');
  assert.deepEqual(r.serversFor('sales://apac/deals'), []);
});

test('declaredSchemes tolerates any capability shape', () => {
  assert.deepEqual(declaredSchemes({ experimental: { [URI_SCHEMES_CAPABILITY]: ['HTTPS', 3, 'sales'] } }), ['https', 'sales']);
  for (const c of [undefined, null, {}, { experimental: null }, { experimental: { [URI_SCHEMES_CAPABILITY]: 'sales' } }])
    assert.deepEqual(declaredSchemes(c), []);
});
