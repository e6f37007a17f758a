// Issue 17 item 4: code outside src/host composes through the Host facade. The server manager, broker and
// root registry are not part of the Host type (a type error below if they come back), not properties of
// a host, and src/host/internals.ts, which tests use to look inside, is imported by no src/ or servers/
// file outside src/host (re-derived here from the imports, as biome.json's rule says).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createHost, HeadlessPresenter, type Host } from '../src/host/index.js';
import { hostInternals } from '../src/host/internals.js';
import { gatewayConfig } from './helpers/gateway.js';

const IMPORT = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
const importsOf = (file: string) => [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((m) => m[1] ?? m[2]);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.ts$/.test(n) ? [p] : [];
  });
}

test('the Host type and a host object have no servers, broker or roots', async () => {
  const host: Host = createHost(gatewayConfig({}), { presenter: new HeadlessPresenter() });
  try {
    // @ts-expect-error the server manager is not part of the Host facade
    void host.servers;
    // @ts-expect-error the broker is not part of the Host facade
    void host.broker;
    // @ts-expect-error the root registry is not part of the Host facade
    void host.roots;
    for (const k of ['servers', 'broker', 'roots']) assert.equal(k in host, false, `host.${k}`);
    assert.deepEqual(Object.keys(hostInternals(host)).sort(), ['broker', 'roots', 'servers'], 'tests can still look inside');
    assert.throws(() => hostInternals({} as Host), TypeError);
  } finally {
    await host.close();
  }
});

test('no src/ file outside src/host and no servers/ file imports src/host/internals', () => {
  const internals = resolve('src/host/internals.ts');
  const bad: string[] = [];
  for (const f of [...files(resolve('src')), ...files(resolve('servers'))]) {
    if (!relative(resolve('src/host'), f).startsWith('..')) continue;
    for (const spec of importsOf(f))
      if (spec.startsWith('.') && resolve(dirname(f), spec).replace(/\.js$/, '.ts') === internals) bad.push(`${relative('.', f)}: ${spec}`);
  }
  assert.deepEqual(bad, []);
});
