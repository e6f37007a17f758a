// A server causes host events at will: each elicitation/create it sends (refused ones too, hundreds a
// second) is a broker event, each stderr line a server event. The console turned each into an SSE event
// telling every open page to reload its audit table (GET /api/audit, a store query) or its servers
// panel, so a flooding server made each open page query parley hundreds of times a second. hostApiFor's
// subscription now sends at most one `audit` event, and one `servers` event per server, per
// EVENT_INTERVAL_MS: the first at once, the rest of the interval as one at its end.
// Peers: raw-lines.mjs (a hand-written 2025-11-25 stdio server) behind a real host (createHost) and
// its real broker, a real SQLite store.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHost, ScriptedPresenter } from '../src/host/index.js';
import { openSqliteStore } from '../src/host/store/index.js';
import { EVENT_INTERVAL_MS, hostApiFor } from '../src/ui/web/hostAdapter.js';
import type { HostEvent } from '../src/ui/web/hostApi.js';
import { fixture, text } from './fixtures/servers-host/helpers.js';
import { gatewayConfig } from './helpers/gateway.js';
import { bounded, waitUntil } from './helpers/wait.js';

describe('a 2025-11-25 stdio server flooding the host with refused requests and stderr lines', () => {
  const store = openSqliteStore(':memory:');
  const presenter = new ScriptedPresenter([{ action: 'accept', content: { ok: true } }]);
  const host = createHost(gatewayConfig({ raw: fixture('raw', 'raw-lines.mjs', ['2025-11-25']) }), { presenter, store });
  const events: Array<HostEvent & { at: number }> = [];
  let off = () => {};
  before(() => {
    off = hostApiFor(host, store).subscribe((e) => events.push({ ...e, at: Date.now() }));
  });
  after(async () => {
    off();
    await host.close();
    store.close();
  });
  const run = async (name: string, n: number) =>
    JSON.parse(text(await bounded(host.callTool('raw', 'case', { name, bytes: n }), 30_000, name))) as { got: unknown[] };
  const settle = () => new Promise((r) => setTimeout(r, EVENT_INTERVAL_MS * 2));

  it('300 refused requests: a handful of audit events (one per interval), the last after the last row', async () => {
    await settle();
    events.length = 0;
    const t0 = Date.now();
    assert.equal((await run('elicit-invalid-flood', 300)).got.length, 301);
    await settle();
    const audit = events.filter((e) => e.type === 'audit');
    const intervals = Math.ceil((Date.now() - t0) / EVENT_INTERVAL_MS) + 1;
    assert.ok(audit.length >= 1 && audit.length <= intervals, `${audit.length} audit events in ${intervals} intervals`);
    for (let i = 1; i < audit.length; i++) assert.ok(audit[i].at - audit[i - 1].at >= EVENT_INTERVAL_MS - 5);
    // The page ends on the latest rows: the last event came after the good request was answered.
    const rows = await store.queryAudit({ kind: 'answer', limit: 1 });
    assert.ok(rows.length === 1 && audit.at(-1)!.at >= rows[0].ts, 'a trailing event after the last row');
  });

  it('2000 stderr lines: a handful of servers events for that server', async () => {
    await settle();
    events.length = 0;
    const t0 = Date.now();
    await run('stderr-flood', 2000);
    assert.ok(await waitUntil(() => host.listServers()[0].stderr.at(-1) === 'noise 1999', { ms: 10_000 }), 'every line read');
    await settle();
    const servers = events.filter((e) => e.type === 'servers');
    const intervals = Math.ceil((Date.now() - t0) / EVENT_INTERVAL_MS) + 1;
    assert.ok(servers.length >= 1 && servers.length <= intervals, `${servers.length} servers events in ${intervals} intervals`);
  });
});
