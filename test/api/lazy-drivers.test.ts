// `mcp-parley/host` loads no database driver unless a store of that engine is used: the SQLite and
// PostgreSQL stores are in `mcp-parley/store`, and each loads its driver (`better-sqlite3`, `pg`) when a
// store of its engine is first opened. Run in a child process importing the built package by name, so
// the module registry starts empty. Needs `npm run build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

/** Runs `body` (an ES module) in a fresh Node process and returns which drivers it loaded. */
function loadedDrivers(body: string): { sqlite: boolean; pg: boolean } {
  const script = `
import { createRequire } from 'node:module';
const loaded = () => Object.keys(createRequire(import.meta.url).cache);
${body}
const mods = loaded();
console.log(JSON.stringify({
  sqlite: mods.some((m) => /[\\\\/]node_modules[\\\\/]better-sqlite3[\\\\/]/.test(m)),
  pg: mods.some((m) => /[\\\\/]node_modules[\\\\/]pg[\\\\/]/.test(m)),
}));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

const HOST = `
import { createHost, DEFAULT_POLICY, HeadlessPresenter, MemoryCredentialStore } from 'mcp-parley/host';
const config = { servers: {}, routes: [], policy: { ...DEFAULT_POLICY }, presets: {}, profile: {}, roots: [], inputs: {}, sources: [] };
`;

test('a host with no store loads neither better-sqlite3 nor pg', () => {
  const r = loadedDrivers(`${HOST}
const host = createHost(config, { presenter: new HeadlessPresenter(), credentials: new MemoryCredentialStore() });
await host.close();`);
  assert.deepEqual(r, { sqlite: false, pg: false });
});

test('importing mcp-parley/store loads no driver until a store is opened', () => {
  assert.deepEqual(
    loadedDrivers(`${HOST}
await import('mcp-parley/store');
const host = createHost(config, { presenter: new HeadlessPresenter() });
await host.close();`),
    { sqlite: false, pg: false },
  );
});

test('a host with an in-memory SQLite store loads better-sqlite3 and not pg (the check sees a loaded driver)', () => {
  const r = loadedDrivers(`${HOST}
const { openSqliteStore } = await import('mcp-parley/store');
const store = openSqliteStore(':memory:');
const host = createHost(config, { presenter: new HeadlessPresenter(), store });
await host.close();
await store.close();`);
  assert.deepEqual(r, { sqlite: true, pg: false });
});
