// A Streamable HTTP server that floods parley with messages the SDK transport cannot parse (JSON that is
// not JSON-RPC, dropped before any hook with no id to answer): each was told to the person and audited,
// one notice and one audit row per message, without bound. parley's stdio reader limits the same reports
// to REFUSED_PER_WINDOW per REFUSED_WINDOW_MS plus one summary; the HTTP transports now share that limit.
// Peer: raw-http.mjs, a hand-written Streamable HTTP server (no SDK server writes such events).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import type { ServerManager } from '../src/host/servers/index.js';
import { REFUSED_PER_WINDOW, REFUSED_WINDOW_MS } from '../src/host/servers/stdio-transport.js';
import { ElicitationBroker } from '../src/host/broker/index.js';
import { ScriptedPresenter } from '../src/host/presenter.js';
import type { HttpServerDef } from '../src/host/config/types.js';
import { MemoryStore } from './fixtures/broker/memoryStore.js';
import { brokerManager, fixture, text } from './fixtures/servers-host/helpers.js';
import { spawnListening, stopChild } from './helpers/peers.js';
import { bounded, waitUntil } from './helpers/wait.js';

describe('a Streamable HTTP server that floods parley with messages that are not JSON-RPC', () => {
  let peer: ChildProcess;
  const store = new MemoryStore();
  const presenter = new ScriptedPresenter([]);
  const broker = new ElicitationBroker({ presenter, store });
  let m: ServerManager;
  const rows = () => store.audit.filter((a) => a.server === 'raw' && a.detail?.reason === 'malformed-message');
  before(async () => {
    const { child, match } = await spawnListening(
      [fixture('raw', 'raw-http.mjs').args[0]],
      /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
    );
    peer = child;
    const def: HttpServerDef = { name: 'raw', type: 'http', url: match, headers: {}, origin: { file: '<test>', pointer: '/servers/raw' } };
    m = brokerManager({ raw: def }, broker);
    await m.start('raw');
  });
  after(async () => {
    await m?.stopAll();
    if (peer) await stopChild(peer);
  });

  it(`300 such events: ${REFUSED_PER_WINDOW} audit rows and notices, then one summary; the call still answers`, {
    timeout: 30_000,
  }, async () => {
    const r = await bounded(m.callTool('raw', 'flood', { n: 300 }), 20_000, 'flood');
    assert.equal(text(r), 'sent 300');
    assert.equal(rows().length, REFUSED_PER_WINDOW, 'the first of the window are audited one by one');
    assert.ok(await waitUntil(() => rows().length > REFUSED_PER_WINDOW, { ms: REFUSED_WINDOW_MS + 5_000 }), 'a summary row');
    const all = rows();
    assert.equal(all.length, REFUSED_PER_WINDOW + 1, 'one summary row, no more');
    assert.match(
      String(all.at(-1)?.detail?.message),
      new RegExp(`^raw sent ${300 - REFUSED_PER_WINDOW} more message\\(s\\) parley could not pass on within ${REFUSED_WINDOW_MS} ms`),
    );
    assert.equal(
      presenter.notices.filter((n) => n.reason === 'invalid-request').length,
      REFUSED_PER_WINDOW + 1,
      'the person is told as often as the audit log is written',
    );
  });
});
