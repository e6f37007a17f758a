// The root registry names, in each 'change' event, exactly the servers whose list now differs from the
// one they were last sent (rootsForServer), in the order they first asked. It keeps that per root
// (linear in the roots); this property test replays random operations (adds, renames, removals,
// request and session clears, health checks on real folders, invalidation, routes, discovery, audience
// answers that change between mutations) and compares every event with the plain rule evaluated from
// scratch: JSON of the whole list against the JSON last sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { RootRegistry, type RootsChange } from '../src/host/roots/index.js';

const SERVERS = ['fs', 'crm', 'q'];
const ROUTE_SETS = [
  [],
  [{ match: 'file:///srv/data/**', servers: ['fs'] }],
  [
    { match: 'file:///srv/**', servers: ['crm', 'q'] },
    { match: 'sales://**', servers: ['q'] },
  ],
];

type Op =
  | { op: 'add'; uri: number; name: number; lifetime: 'session' | 'request' | 'app'; audience: boolean }
  | { op: 'remove'; uri: number }
  | { op: 'endRequest' }
  | { op: 'clear'; lifetime: 'session' | 'request' }
  | { op: 'ask'; server: number }
  | { op: 'invalidate'; uri: number | null }
  | { op: 'routes'; set: number }
  | { op: 'discovery'; server: number; on: boolean }
  | { op: 'consumer'; server: number }
  | { op: 'check'; uri: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('add' as const),
      uri: fc.nat(7),
      name: fc.nat(2),
      lifetime: fc.constantFrom('session' as const, 'request' as const, 'app' as const),
      audience: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('remove' as const), uri: fc.nat(7) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('endRequest' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('clear' as const), lifetime: fc.constantFrom('session' as const, 'request' as const) }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('ask' as const), server: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('invalidate' as const), uri: fc.option(fc.nat(7), { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('routes' as const), set: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('discovery' as const), server: fc.nat(2), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('consumer' as const), server: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('check' as const), uri: fc.nat(7) }) },
);

test('every change names exactly the servers whose list differs from the one last sent (random operations)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-roots-tracking-'));
  mkdirSync(join(dir, 'there'));
  // Real folders (health ok), missing ones (health fails: the root leaves every list), and virtual ones.
  const URIS = [
    pathToFileURL(join(dir, 'there')).href,
    pathToFileURL(join(dir, 'missing')).href,
    'file:///srv/data/a',
    'file:///srv/data/b',
    'file:///srv/crm',
    'file:///home/u/p',
    'sales://t/1',
    'file:///srv/data/c',
  ];
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 40 }), async (ops) => {
        const reg = new RootRegistry({ defaultRootsToAll: true });
        const consumers = new Set<string>(['q']);
        const sent = new Map<string, string>(); // the rule's own record: server → JSON last sent
        const problems: string[] = [];
        reg.on('change', (c: RootsChange) => {
          let expected: string[];
          if (c.reason === 'invalidate') {
            expected = [...sent].filter(([, json]) => c.uris.some((k) => json.includes(JSON.stringify(k)))).map(([s]) => s);
            for (const s of expected) sent.delete(s);
          } else expected = [...sent].filter(([s, json]) => JSON.stringify(reg.listFor(s)) !== json).map(([s]) => s);
          if (JSON.stringify(c.servers) !== JSON.stringify(expected))
            problems.push(`${c.reason} ${c.uris.join(' ')}: named ${JSON.stringify(c.servers)}, expected ${JSON.stringify(expected)}`);
        });
        let request = 0;
        for (const o of ops) {
          switch (o.op) {
            case 'add':
              reg.add(URIS[o.uri], {
                name: ['a', 'b', undefined][o.name],
                lifetime: o.lifetime,
                ...(o.lifetime === 'request' ? { requestId: `r${request}` } : {}),
                ...(o.audience ? { audience: (s: string) => consumers.has(s) } : {}),
              });
              break;
            case 'remove':
              reg.remove(URIS[o.uri]);
              break;
            case 'endRequest':
              reg.endRequest(`r${request++}`);
              break;
            case 'clear':
              reg.clear(o.lifetime);
              break;
            case 'ask': {
              const s = SERVERS[o.server];
              sent.set(s, JSON.stringify(reg.rootsForServer(s)));
              break;
            }
            case 'invalidate':
              reg.invalidate(o.uri === null ? undefined : URIS[o.uri]);
              break;
            case 'routes':
              reg.setRoutes(ROUTE_SETS[o.set]);
              break;
            case 'discovery':
              if (o.on) reg.setDiscovery(SERVERS[o.server], { schemes: ['sales'], uriTemplates: ['file:///home/{+rest}'] });
              else reg.clearDiscovery(SERVERS[o.server]);
              break;
            case 'consumer': // an audience's answer changes with no mutation (a server restarted with new capabilities)
              if (consumers.has(SERVERS[o.server])) consumers.delete(SERVERS[o.server]);
              else consumers.add(SERVERS[o.server]);
              break;
            case 'check':
              await reg.check(URIS[o.uri]);
              break;
          }
        }
        reg.close();
        assert.deepEqual(problems, []);
      }),
      { numRuns: 300 },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a root removed and added again under the same name changes the list only if its place changed', () => {
  const reg = new RootRegistry();
  const changes: RootsChange[] = [];
  reg.on('change', (c) => changes.push(c));
  reg.add('file:///p/a', { name: 'a' });
  reg.add('file:///p/b', { name: 'b' });
  reg.rootsForServer('fs'); // [a, b]
  reg.remove('file:///p/b');
  reg.add('file:///p/b', { name: 'b' }); // [a, b] again: the same list
  reg.remove('file:///p/a');
  reg.add('file:///p/a', { name: 'a' }); // [b, a]: another order, another list
  assert.deepEqual(
    changes.map((c) => `${c.reason} ${c.servers.join()}`),
    ['add ', 'add ', 'remove fs', 'add ', 'remove fs', 'add fs'],
  );
  assert.deepEqual(
    reg.rootsForServer('fs').map((r) => r.name),
    ['b', 'a'],
  );
});
