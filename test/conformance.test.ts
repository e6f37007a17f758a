// Offline checks of the conformance harness (scripts/conformance/): the Node 20 globSync shim, and the
// parley conformance client (host runtime + broker) against the parley conformance server (toolkit)
// over HTTP on 127.0.0.1 on both eras. The official suite itself runs with `npm run conformance`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startConformanceServer } from '../scripts/conformance/server.js';
import { runScenario } from '../scripts/conformance/client.js';
import type { ServeHandle } from '../src/server/index.js';
import { verifies } from './helpers/verifies.js';

describe('conformance: node20-fs globSync shim', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-glob-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('finds **/checks.json at every depth, relative to cwd, and nothing else', async () => {
    // @ts-expect-error plain .mjs without types
    const { globSync } = (await import('../scripts/conformance/node20-fs.mjs')) as {
      globSync: (p: string, o: { cwd: string }) => string[];
    };
    for (const p of ['a', 'a/b', 'c']) mkdirSync(join(dir, p), { recursive: true });
    for (const f of ['checks.json', 'a/checks.json', 'a/b/checks.json', 'c/checks.json.bak', 'c/other.json'])
      writeFileSync(join(dir, f), '[]');
    assert.deepEqual(globSync('**/checks.json', { cwd: dir }).sort(), ['a/b/checks.json', 'a/checks.json', 'checks.json']);
    assert.deepEqual(globSync('a/*.json', { cwd: dir }), ['a/checks.json']);
    assert.throws(() => globSync('a/{x,y}.json', { cwd: dir }), /unsupported pattern segment/);
  });
});

describe('conformance: parley client against the parley conformance server', () => {
  let server: ServeHandle;
  before(async () => {
    server = await startConformanceServer();
  });
  after(() => server.close());

  it('2026-07-28: the host accepts the SEP-1034 form with every default filled (input_required round)', async () => {
    verifies('ELIC-1125-DEFAULTS');
    verifies('MRTR-INPUT-REQUESTS-SHAPE');
    const lines: string[] = [];
    const run = await runScenario(
      'elicitation-sep1034-client-defaults',
      server.url,
      { toolCalls: [{ name: 'test_elicitation_sep1034_defaults' }] },
      (m) => lines.push(m),
    );
    assert.ok(
      lines.some((l) => l.includes('era=modern revision=2026-07-28')),
      lines.join('\n'),
    );
    assert.equal(run.calls.length, 1);
    assert.equal(run.calls[0].ok, true, JSON.stringify(run.calls[0]));
    const content = JSON.parse(/content=(\{.*\})$/.exec(run.calls[0].text ?? '')?.[1] ?? 'null') as Record<string, unknown>;
    assert.deepEqual(content, { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true });
  });

  it('2026-07-28: a form without defaults for its required fields is not accepted empty', async () => {
    // Negative control for the test above: the broker validates the prefill, so `name` (required, no
    // default) cannot be accepted as an empty form.
    const run = await runScenario('x', server.url, { toolCalls: [{ name: 'test_input_required_result_elicitation' }] });
    assert.equal(run.calls.length, 1);
    assert.equal(run.calls[0].text, 'no name (cancel)', JSON.stringify(run.calls[0]));
  });

  it('2025-11-25 (SDK v1 client): test_elicitation_sep1330_enums pushes all five enum shapes', async () => {
    verifies('ELIC-1125-ENUM-SHAPES');
    const client = new Client({ name: 'v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const asked: Array<Record<string, unknown>> = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push((req.params as { requestedSchema?: Record<string, unknown> }).requestedSchema ?? {});
      return { action: 'decline' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      const r = await client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} });
      assert.match(JSON.stringify(r.content), /action=decline/);
      const props = asked[0].properties as Record<string, Record<string, unknown>>;
      assert.deepEqual(Object.keys(props).sort(), ['legacyEnum', 'titledMulti', 'titledSingle', 'untitledMulti', 'untitledSingle']);
      assert.ok(Array.isArray(props.titledSingle.oneOf) && Array.isArray(props.legacyEnum.enumNames));
      assert.ok(Array.isArray((props.titledMulti.items as Record<string, unknown>).anyOf));
    } finally {
      await client.close();
    }
  });
});
