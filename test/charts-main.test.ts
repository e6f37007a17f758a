// The parley-charts entry point as a real child process over HTTP, and over stdio with roots.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawnHttp } from './fixtures/servers/spawn.js';
import { textOf } from './fixtures/servers/clients.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-charts-main-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('--http: charts has no copy of sales; the retired --with-sales flag is ignored', async () => {
  const s = await spawnHttp('servers/charts/main.ts', ['--with-sales', '--sales-db', join(dir, 'sales.db')]);
  try {
    const client = new Client({ name: 't', version: '1' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url)));
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(tools, ['generate_chart'], 'query_sales belongs to the sales server only');
    // It declares itself a consumer of query-result roots (src/host/roots/query-results.ts).
    assert.deepEqual((client.getServerCapabilities()?.experimental as any)?.['parley/queryResultRoots'], { consumes: true });
    await client.close();
  } finally {
    await s.stop();
  }
  assert.ok(!existsSync(join(dir, 'sales.db')), 'no sales database was opened');
});

test('stdio: a CSV inside the client root renders; one outside is refused', async () => {
  const root = join(dir, 'root');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(root);
  writeFileSync(join(root, 'data.csv'), 'k,v\na,1\nb,2\n');
  writeFileSync(join(dir, 'outside.csv'), 'k,v\na,1\n');
  const client = new Client({ name: 't', version: '1' }, { capabilities: { roots: {} } });
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: pathToFileURL(root).href }] }));
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', 'servers/charts/main.ts'], stderr: 'pipe' }),
  );
  try {
    const ok = (await client.callTool({ name: 'generate_chart', arguments: { data_source: 'data.csv', chart_type: 'pie' } })) as any;
    assert.equal(ok.isError, undefined, textOf(ok));
    // req: ROOTS-SERVER-VALIDATE-PATHS
    const no = (await client.callTool({ name: 'generate_chart', arguments: { data_source: '../outside.csv', chart_type: 'pie' } })) as any;
    assert.equal(no.isError, true);
    assert.match(textOf(no), /is outside every root/);
  } finally {
    await client.close();
  }
});
