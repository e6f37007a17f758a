// Links inside a root (issue 12, item 16), through a real toolkit server and a real SDK v2 client that
// sends its roots, on 2025-11-25 (pushed roots/list) and 2026-07-28 (roots in inputRequests): a symlink
// escape is refused without naming where it leads; a hard link to a file outside is accepted by default
// (a documented limit: a hard link cannot be told from its original) and refused with hardLinks: 'refuse'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod/v4';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemoryTransport, createMcpHandler } from '@modelcontextprotocol/server';
import { createParleyServer, createShared, RootsAccessError } from '../src/server/index.js';
import { text } from './fixtures/toolkit/peers.js';

function tree() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'parley-links-')));
  const root = join(base, 'work');
  const outside = join(base, 'private-outside');
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET');
  writeFileSync(join(root, 'plain.txt'), 'plain');
  symlinkSync(join(outside, 'secret.txt'), join(root, 'sym.txt'));
  symlinkSync(outside, join(root, 'symdir'));
  linkSync(join(outside, 'secret.txt'), join(root, 'hard.txt'));
  return { base, root, outside, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

function server(shared = createShared()) {
  const p = createParleyServer({ name: 'files', version: '1.0.0', shared });
  p.tool(
    'read',
    { description: 'Reads a file inside the roots', inputSchema: z.object({ path: z.string(), strict: z.boolean().optional() }) },
    async ({ path, strict }, ctx) => {
      try {
        const real = await ctx.resolveInRoots(path, strict ? { hardLinks: 'refuse' } : {});
        return { content: [{ type: 'text', text: `ok:${readFileSync(real, 'utf8')}` }] };
      } catch (e) {
        if (!(e instanceof RootsAccessError)) throw e;
        return { content: [{ type: 'text', text: `refused:${e.code}:${e.message}` }], isError: true };
      }
    },
  );
  return p;
}

function client(rootUri: string, modern: boolean) {
  const c = new Client({ name: 'ide', version: '1' }, {
    capabilities: { roots: { listChanged: true } },
    ...(modern ? { versionNegotiation: { mode: 'auto' } } : {}),
  } as never);
  c.setRequestHandler('roots/list', async () => ({ roots: [{ uri: rootUri, name: 'work' }] }));
  return c;
}

for (const era of ['2025-11-25', '2026-07-28'] as const) {
  test(`${era}: symlink escapes refused without revealing their target; hard links allowed by default, refused with hardLinks: 'refuse'`, async () => {
    const t = tree();
    const c = client(pathToFileURL(t.root).href, era === '2026-07-28');
    let close: () => Promise<void>;
    if (era === '2026-07-28') {
      const shared = createShared(); // one per server, not per request: it seals requestState
      const handler = createMcpHandler(() => server(shared).mcp, { legacy: 'reject' });
      await c.connect(
        new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), { fetch: (u, i) => handler.fetch(new Request(u, i)) }),
      );
      close = async () => (await c.close(), await handler.close?.());
    } else {
      const p = server();
      const [a, b] = InMemoryTransport.createLinkedPair();
      await p.mcp.connect(b);
      await c.connect(a);
      close = async () => (await c.close(), await p.mcp.close());
    }
    const read = async (path: string, strict = false) => text(await c.callTool({ name: 'read', arguments: { path, strict } }));
    try {
      assert.equal(await read('plain.txt'), 'ok:plain');
      for (const p of ['sym.txt', 'symdir/secret.txt', join(t.root, 'sym.txt')]) {
        const out = await read(p);
        assert.match(out, /^refused:OUTSIDE_ROOTS:.*through a symbolic link/, p);
        assert.ok(!out.includes(t.outside) && !out.includes('private-outside'), `the refusal names no real path outside the roots: ${out}`);
      }
      // A hard link is the same file under a second name: by path it cannot be told from an original.
      assert.equal(await read('hard.txt'), 'ok:TOP SECRET', 'the documented limit: allowed by default');
      const strict = await read('hard.txt', true);
      assert.match(strict, /^refused:HARD_LINK:.*2 names \(hard links\)/);
      assert.ok(!strict.includes(t.outside) && !strict.includes('private-outside'), strict);
      assert.equal(await read('plain.txt', true), 'ok:plain', 'a file with one name passes the strict check');
    } finally {
      await close();
      t.cleanup();
    }
  });
}
