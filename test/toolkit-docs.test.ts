// docs/server.md's runnable example is the fixture file, and it works on both eras.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { InMemoryTransport, createMcpHandler } from '@modelcontextprotocol/server';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { factory } from './fixtures/toolkit/example.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';

test('the example in docs/server.md is byte-identical to test/fixtures/toolkit/example.ts', () => {
  const md = readFileSync('docs/server.md', 'utf8');
  const block = /```ts\n(\/\/ The runnable example[\s\S]*?)```/.exec(md)?.[1];
  assert.equal(block, readFileSync('test/fixtures/toolkit/example.ts', 'utf8'));
});

test('the example deploys after elicit + confirm on both eras', async () => {
  const answer = (r: any) =>
    r.params.message.startsWith('Where') ? { action: 'accept', content: { env: 'staging' } } : { action: 'accept', content: {} };
  const [a, b] = InMemoryTransport.createLinkedPair();
  const s = factory();
  await s.mcp.connect(b);
  const legacy = v2Client(answer);
  await legacy.connect(a);
  assert.equal(text(await legacy.callTool({ name: 'deploy', arguments: { service: 'api' } })), 'deployed api to staging');
  await legacy.close();
  const h = createMcpHandler(() => factory().mcp, { legacy: 'reject' });
  const modern = v2Client(answer, { mode: 'auto' });
  await modern.connect(new StreamableHTTPClientTransport(new URL('http://t.local/mcp'), { fetch: (u, i) => h.fetch(new Request(u, i)) }));
  assert.equal(text(await modern.callTool({ name: 'deploy', arguments: { service: 'api' } })), 'deployed api to staging');
  await modern.close();
});

test('the testing recipe in docs/server.md is byte-identical to test/fixtures/toolkit/testing-example.ts', () => {
  const md = readFileSync('docs/server.md', 'utf8');
  const block = /```ts\n(\/\/ Testing a toolkit server on every revision[\s\S]*?)```/.exec(md)?.[1];
  assert.equal(block, readFileSync('test/fixtures/toolkit/testing-example.ts', 'utf8'));
});

test('the testing recipe runs: its test passes on each of the three revisions (mcp-parley/testing connect)', () => {
  // Run as the page says (node --test), in a child process: the recipe's tests are node:test tests.
  // NODE_TEST_CONTEXT (set by a parent test runner) would make the child report in its binary format.
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-reporter=tap', 'test/fixtures/toolkit/testing-example.ts'],
    {
      encoding: 'utf8',
      env,
      timeout: 60_000,
    },
  );
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  for (const revision of ['2025-06-18', '2025-11-25', '2026-07-28'])
    assert.match(run.stdout, new RegExp(`^ok \\d+ - deploy asks where, then confirms \\(${revision}\\)$`, 'm'), run.stdout);
  assert.match(run.stdout, /^# pass 3$/m);
});

/** The ```ts block that follows `heading` in docs/server.md. */
function blockAfter(heading: string): string {
  const md = readFileSync('docs/server.md', 'utf8');
  const at = md.indexOf(heading);
  assert.ok(at >= 0, `docs/server.md: no "${heading}"`);
  return /```ts\n([\s\S]*?)```/.exec(md.slice(at))?.[1] ?? '';
}

test('the every-field-kind server and its tests in docs/server.md are byte-identical to their fixtures', () => {
  assert.equal(
    blockAfter('## Every field kind, URL mode and a template that asks'),
    readFileSync('test/fixtures/toolkit/every-kind.ts', 'utf8'),
  );
  assert.equal(blockAfter('Its tests, on every revision'), readFileSync('test/fixtures/toolkit/every-kind-test.ts', 'utf8'));
});

test("the resource-template snippet in docs/server.md is the every-field-kind server's own code", () => {
  const snippet = blockAfter('### Resource templates that ask');
  const indented = snippet
    .split('\n')
    .map((l) => (l ? `  ${l}` : l))
    .join('\n');
  assert.ok(readFileSync('test/fixtures/toolkit/every-kind.ts', 'utf8').includes(indented), snippet);
});

test('the every-field-kind tests run: form, URL mode and template on each of the three revisions', () => {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-reporter=tap', 'test/fixtures/toolkit/every-kind-test.ts'],
    { encoding: 'utf8', env, timeout: 60_000 },
  );
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  for (const revision of ['2025-06-18', '2025-11-25', '2026-07-28'])
    for (const name of ['profile: every field kind', 'link-account: URL mode', 'sql-query: the template asks for its missing variable'])
      assert.match(run.stdout, new RegExp(`^ok \\d+ - ${name} \\(${revision}\\)$`, 'm'), run.stdout);
  assert.match(run.stdout, /^# pass 9$/m);
});
