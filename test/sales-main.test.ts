// The parley-sales entry point as a real child process: stdio (default) and --http on 127.0.0.1.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawnHttp } from './fixtures/servers/spawn.js';
import { textOf } from './fixtures/servers/clients.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-sales-main-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const args = { table: 'regions', range: 'last_month', region: 'all' };

test('stdio: generates the database at --db and answers query_sales', async () => {
  const client = new Client({ name: 't', version: '1' }, { capabilities: {} });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'servers/sales/main.ts', '--db', join(dir, 'a', 'sales.db')],
      stderr: 'pipe',
    }),
  );
  try {
    const r = (await client.callTool({ name: 'query_sales', arguments: args })) as any;
    assert.equal(r.isError, undefined, textOf(r));
    assert.equal(r.structuredContent.rows.length, 10);
    assert.match(textOf(r), /regions · 2025-12-01\.\.2025-12-31/);
  } finally {
    await client.close();
  }
});

test('--http: serves on 127.0.0.1 and refuses a foreign Host header', async () => {
  const s = await spawnHttp('servers/sales/main.ts', ['--db', join(dir, 'b.db')]);
  try {
    const client = new Client({ name: 't', version: '1' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url)));
    const r = (await client.callTool({ name: 'query_sales', arguments: args })) as any;
    assert.equal(r.isError, undefined, textOf(r));
    await client.close();
    // fetch cannot set Host; node:http can (DNS-rebinding shape: right address, foreign Host).
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        s.url,
        { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' }, timeout: 10_000 },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
      req.on('error', reject);
      req.end('{}');
    });
    assert.equal(status, 403);
  } finally {
    await s.stop();
  }
});

test('bad flags exit non-zero with usage', async () => {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'servers/sales/main.ts', '--port', 'x', '--http'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /--port x: expected 0\.\.65535\nusage: parley-sales/);
});

test('parley-sales --port without --http is an error (it would silently speak stdio); --help goes to stdout', async () => {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'servers/sales/main.ts', '--port', '5'], { encoding: 'utf8', timeout: 60_000 });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /--port and --host only apply with --http/);
  const h = spawnSync(process.execPath, ['--import', 'tsx', 'servers/sales/main.ts', '--help'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(h.status, 0);
  assert.match(h.stdout, /^usage: parley-sales/);
});
