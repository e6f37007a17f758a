// Real peer: @modelcontextprotocol/server-filesystem over stdio with NO directory arguments, so its
// allowed directories come only from our roots/list answers (peers-and-tests.md §ii.3).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { bindRootsToClient, RootRegistry } from '../src/host/roots/index.js';
import { pathToFileUri } from '../src/schema/uri.js';
import { verifies } from './helpers/verifies.js';

const SERVER = resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const uri = (p: string) => pathToFileUri(p, { platform: 'posix' });

type ToolResult = { isError?: boolean; content?: Array<{ type: string; text?: string }> };
const text = (r: ToolResult) => (r.content ?? []).map((c) => c.text ?? '').join('\n');

/**
 * Polls `probe` every 25 ms until `ok` holds; fails after `boundMs`. Roots apply asynchronously (a
 * roots/list round trip to the child and its realpath checks): 30 s, as in the other server-filesystem tests.
 */
async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean, what: string, boundMs = 30_000): Promise<T> {
  const end = Date.now() + boundMs;
  let last: T | undefined;
  while (Date.now() < end) {
    last = await probe();
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${what} not seen within ${boundMs} ms; last: ${JSON.stringify(last)}`);
}

test('server-filesystem takes its directories from registry.rootsForServer and follows list_changed', { timeout: 120_000 }, async () => {
  verifies('ROOTS-CLIENT-CAPABILITY');
  verifies('ROOTS-CLIENT-LIST-CHANGED');
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'parley-fs-peer-')));
  const a = join(base, 'a');
  const b = join(base, 'b');
  mkdirSync(a);
  mkdirSync(b);
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(a, 'hello.txt'), 'hello from a');
  writeFileSync(join(b, 'other.txt'), 'other from b');
  writeFileSync(join(base, 'outside', 'secret'), 'secret');
  symlinkSync(join(base, 'outside', 'secret'), join(a, 'escape'));

  const routes = [
    { match: uri(base) + '/**', servers: ['fs'] },
    { match: 'https://example.com/**', servers: ['fs'] }, // routed to fs, yet virtual: must stay host-side
  ];
  const registry = new RootRegistry({ routes, defaultRootsToAll: false });
  registry.add(uri(a), { name: 'a' });
  // A virtual root: if it reached the wire, the v1 server would reject the whole list (sdk.md §3 #12).
  registry.add('https://example.com/repo', { name: 'repo' });
  registry.add('file:///home/not-routed'); // no route and defaultRootsToAll=false: never sent to fs

  const asked: unknown[] = [];
  const client = new Client({ name: 'parley-roots-test', version: '0.0.0' }, { capabilities: { roots: { listChanged: true } } });
  const notified: string[] = [];
  const errors: unknown[] = [];
  registry.on('change', (c) => notified.push(...c.servers));
  const unbind = bindRootsToClient(registry, 'fs', client, { onAnswer: (r) => asked.push(r), onError: (e) => errors.push(e) });
  const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'pipe' });
  const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as ToolResult;
  try {
    await client.connect(transport);
    const allowed = () => call('list_allowed_directories').then(text);

    await until(allowed, (t) => t.includes(a), 'root a');
    assert.deepEqual(asked[0], [{ uri: uri(a), name: 'a' }]);
    assert.ok(!(await allowed()).includes('/home/not-routed'));
    assert.equal(text(await call('read_text_file', { path: join(a, 'hello.txt') })), 'hello from a');

    // The symlink escape is refused by the server too (RT3 on a real peer).
    verifies('ROOTS-SERVER-VALIDATE-PATHS');
    const esc = await call('read_text_file', { path: join(a, 'escape') });
    assert.equal(esc.isError, true);
    assert.match(text(esc), /outside allowed directories/);
    const up = await call('read_text_file', { path: join(a, '..', 'outside', 'secret') });
    assert.equal(up.isError, true);

    // Change roots in the registry; the change event makes the client notify; the server re-asks.
    registry.add(uri(b), { name: 'b' });
    registry.remove(uri(a));
    assert.deepEqual(notified, ['fs', 'fs']);
    const t = await until(allowed, (s) => s.includes(b) && !s.includes(a + '\n') && !s.endsWith(a), 'root b replacing a');
    assert.ok(t.includes(b));
    assert.equal(text(await call('read_text_file', { path: join(b, 'other.txt') })), 'other from b');
    const old = await call('read_text_file', { path: join(a, 'hello.txt') });
    assert.equal(old.isError, true);
    assert.deepEqual(errors, []);
  } finally {
    unbind();
    await client.close();
    registry.close();
    rmSync(base, { recursive: true, force: true });
  }
});
