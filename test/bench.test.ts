// Smoke test of the bench groups that compare parley with the raw SDK (bench/broker.ts, toolkit.ts,
// startup.ts, gateway.ts): each group's setup runs end to end with tiny N and yields sane rows. Not a timed test:
// no assertion is made about any figure except that it is a finite, positive measurement.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { run as runBroker, parleyHost } from '../bench/broker.js';
import { run as runToolkit } from '../bench/toolkit.js';
import { run as runStartup } from '../bench/startup.js';
import { run as runGateway } from '../bench/gateway.js';
import { run as runFlood } from '../bench/flood.js';
import { run as runProxies } from '../bench/proxies.js';
import type { BenchRow } from '../bench/lib.js';
import { repoPath } from '../bench/peers.js';
import type { BrokerEvent } from '../src/host/broker/index.js';
import { openSqliteStore } from '../src/host/store/sqlite.js';

function checkRows(rows: BenchRow[], group: string, count: number): void {
  assert.equal(rows.length, count, `${group}: ${rows.map((r) => r.name).join(' | ')}`);
  for (const r of rows) {
    assert.equal(r.group, group);
    // A floor row of the stdio group is a difference of two tiny timings here: finite, of either sign.
    assert.ok(
      Number.isFinite(r.value) && (r.value > 0 || (r.target === undefined && r.unit === 'ms / call')),
      `${r.name}: value ${r.value}`,
    );
    if (r.ratio !== undefined) assert.ok(Number.isFinite(r.ratio) && r.ratio > 0, `${r.name}: ratio ${r.ratio}`);
    if (r.target !== undefined) assert.equal(typeof r.met, 'boolean', `${r.name}: a row with a target says whether it was met`);
  }
}

// The groups spawn their own stdio children and share nothing, so they run concurrently to stay fast.
describe('bench groups (tiny N)', { concurrency: true }, () => {
  test('broker group: every elicitation of the parley side passes the broker pipeline (with a store) and the presenter', async () => {
    const store = openSqliteStore(':memory:');
    const h = parleyHost(store);
    const events: BrokerEvent[] = [];
    h.broker.on((e) => events.push(e));
    try {
      await h.manager.start('bench');
      const r = await h.call(4);
      assert.equal((r.structuredContent as { accepted: number }).accepted, 4);
      assert.equal(h.presenter.presented, 4);
      assert.equal(events.filter((e) => e.type === 'answered' && e.action === 'accept').length, 4);
      assert.equal(events.filter((e) => e.type === 'refused').length, 0, 'the bench policy must not rate-limit');
      assert.equal(h.broker.pending().length, 0);
      assert.ok((await store.queryAudit({})).length >= 8, 'each elicitation leaves audit rows (request, answer)');
    } finally {
      await h.manager.stopAll();
      store.close();
    }
  });

  test('broker group runs with tiny N and reports the ratio against its target', async () => {
    const rows = await runBroker({ n: 5, warmup: 2, repeats: 2 });
    checkRows(rows, 'broker', 9);
    assert.equal(rows.find((r) => r.target)?.target, '≤ 1.15×');
    const targets = rows.filter((r) => r.target);
    assert.equal(targets.length, 6, 'no store, and the file store with NORMAL and with FULL: wall and CPU each');
    for (const r of targets)
      assert.ok(r.spread && r.spread.n === 2 && r.spread.q1 <= r.spread.q3, `${r.name}: per-round quartiles ${JSON.stringify(r.spread)}`);
  });

  test('toolkit group runs with tiny N (same raw client against both servers)', async () => {
    checkRows(await runToolkit({ n: 5, warmup: 2, repeats: 1 }), 'toolkit', 4);
  });

  test('gateway group: sessions hold a pending elicitation at the raw SDK server and at the gateway, and every call gets its own answer', async () => {
    // run() throws unless every prompt reached its client, the gateway counted the open calls, and each
    // call returned the answer of its own session after the release.
    const rows = await runGateway({ sessions: 6, warmup: 2, concurrency: 3, rounds: 2, phaseMs: 60_000, from: 'source' });
    assert.equal(rows.length, 5, rows.map((r) => r.name).join(' | '));
    for (const r of rows) assert.equal(r.group, 'gateway');
    // Heap growth is well above GC noise even for a few sessions; RSS growth is not, so only its shape is checked.
    checkRows(
      rows.filter((r) => r.unit.includes('heap')),
      'gateway',
      2,
    );
    for (const r of rows) assert.ok(Number.isFinite(r.value), `${r.name}: ${r.value}`);
    const target = rows.find((r) => r.target);
    assert.equal(target?.target, '≤ 150 MB');
    assert.equal(typeof target?.met, 'boolean');
  });

  test('proxies group: parley serve, supergateway and mcp-proxy each answer every call and elicitation, with a figure and quartiles per target', async () => {
    // run() throws unless every echo came back with its own text and every elicitation was accepted.
    const rows = await runProxies({ calls: 3, elicitations: 2, clients: 2, callsPerClient: 2, rounds: 2, stdioCalls: 3, warmup: 2 });
    checkRows(rows, 'proxies', 11);
    const floors = rows.filter((r) => r.name.includes('bare SDK v2 proxy'));
    assert.equal(floors.length, 3, 'the floor (a bare SDK proxy) beside parley: tools/call, throughput, stdio');
    assert.ok(
      floors.every((r) => r.target === undefined && r.met === undefined),
      'the floor rows have no target of their own',
    );
    const targets = rows.filter((r) => r.target);
    assert.equal(targets.length, 5, targets.map((r) => r.name).join(' | '));
    for (const r of targets)
      assert.ok(r.spread && r.spread.n === 2 && r.spread.q1 <= r.spread.q3, `${r.name}: ${JSON.stringify(r.spread)}`);
  });

  test('flood group: both audit writers under a short flood give finite p99 and latency rows with targets', async () => {
    const rows = await runFlood({ ms: 300, rate: 200 });
    assert.equal(rows.length, 6, rows.map((r) => r.name).join(' | '));
    for (const r of rows) {
      assert.equal(r.group, 'flood');
      assert.ok(Number.isFinite(r.value) && r.value > 0, `${r.name}: ${r.value}`);
    }
    assert.deepEqual(
      rows.filter((r) => r.target).map((r) => r.target),
      ['p99 ≤ 50 ms', '≤ 1.5× idle', 'p99 ≤ 50 ms', '≤ 1.5× idle'],
    );
  });

  test('startup group starts the bundled servers through createHost and the raw SDK, and a small fan-out', async () => {
    const bundled =
      existsSync(repoPath('dist/servers/charts/main.js')) && existsSync(repoPath('dist/servers/sales/main.js')) ? 'dist' : 'source';
    const rows = await runStartup({ repeats: 1, fanout: 2, fanoutRepeats: 1, bundled, warmup: false });
    checkRows(rows, 'startup', 11);
    assert.deepEqual(
      rows.filter((r) => r.target).map((r) => r.target),
      ['≤ 1.3×', '≤ 1.15×', '≤ 1.15×'],
      'cached start, and both cold-start targets of issue 17',
    );
  });
});
