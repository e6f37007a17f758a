// Issue 12 item 2 on the host side: createHost (its broker) in front of the bundled sales server over
// stdio, with a presenter that answers each form exactly once. A custom range in a fresh session asks the
// configuration, then from/to, and runs: the first from/to answer is used, nothing comes back
// ("from is required; table was not asked for") for a second send. The console and the terminal present
// through this same broker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost, ScriptedPresenter, type HostConfig, type InputRequestView } from '../src/host/index.js';
import { DEFAULT_POLICY } from '../src/host/config/policy.js';

const SALES = new URL('../servers/sales/main.ts', import.meta.url).pathname;

test('host + presenter answering once: a custom range in a fresh session is asked once per form and runs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-sales-host-'));
  const origin = { file: '<test>', pointer: '/servers/sales' };
  const cfg: HostConfig = {
    servers: {
      sales: {
        name: 'sales',
        origin,
        type: 'stdio',
        command: process.execPath,
        args: ['--import', 'tsx', SALES, '--db', join(dir, 'sales.db')],
        env: {},
      } as never,
    },
    routes: [],
    policy: { ...DEFAULT_POLICY },
    presets: {},
    profile: {},
    roots: [],
    inputs: {},
    sources: [],
  };
  const seen: InputRequestView[] = [];
  // Exactly two steps: a third prompt (a re-ask) finds no step and fails the call.
  const presenter = new ScriptedPresenter([
    (p) => (seen.push(p), { action: 'accept', content: { table: 'orders', range: 'custom', region: '广州' } }),
    (p) => (seen.push(p), { action: 'accept', content: { from: '2025-02-01', to: '2025-02-28' } }),
  ]);
  const host = createHost(cfg, { presenter });
  try {
    const r = (await host.callTool('sales', 'query_sales', { limit: 2 })) as any;
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    assert.deepEqual(
      seen.map((p) =>
        Object.keys(p.schema?.properties ?? {})
          .sort()
          .join(','),
      ),
      ['range,region,table', 'from,to'],
    );
    assert.ok(
      seen.every((p) => p.round === 1 && !p.issues?.length),
      'no prompt was re-presented with issues',
    );
    assert.equal(presenter.prompts.length, 2, 'the presenter was asked twice in all');
    assert.deepEqual(
      [r.structuredContent.from, r.structuredContent.to, r.structuredContent.config.region],
      ['2025-02-01', '2025-02-28', '广州'],
    );
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
