// A hostile 2025-11-25 server and URL-mode elicitation ids (client/elicitation §URL mode, §Completion
// Notifications: a client MUST ignore completions for ids it does not know). Ignoring is not free when
// each one is audited: a flood of `notifications/elicitation/complete` for ids never used wrote one audit
// row each, without bound, and each row kept the whole id (up to the 16 MiB line cap). Now:
// - ignored completions are audited at most COMPLETE_AUDIT_BURST at once per server (refilled one per
//   second), the rest counted in the next row's `detail.skipped`;
// - an id is kept in the audit log as an excerpt (at most 256 characters and its length);
// - a URL-mode elicitation whose elicitationId is over `limits.elicitationIdChars` (256) is refused
//   -32602 naming the cap, before it is registered (the registry would keep it for the process's life).
// Peer: raw-lines.mjs (a hand-written stdio server: it writes the exact lines), behind ServerManager and
// the broker.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { COMPLETE_AUDIT_BURST, ElicitationBroker } from '../src/host/broker/index.js';
import { ScriptedPresenter } from '../src/host/presenter.js';
import { DEFAULT_LIMITS } from '../src/schema/limits.js';
import { MemoryStore } from './fixtures/broker/memoryStore.js';
import { brokerManager, fixture, text } from './fixtures/servers-host/helpers.js';
import { bounded } from './helpers/wait.js';

describe('a 2025-11-25 server and URL-mode elicitation ids', () => {
  const store = new MemoryStore();
  const presenter = new ScriptedPresenter([]);
  const broker = new ElicitationBroker({ presenter, store });
  const m = brokerManager({ raw: fixture('raw', 'raw-lines.mjs', ['2025-11-25']) }, broker);
  const run = async (name: string, bytes: number) =>
    (JSON.parse(text(await bounded(m.callTool('raw', 'case', { name, bytes }), 25_000, name))) as { got: unknown[] }).got;
  const completes = () => store.audit.filter((a) => a.kind === 'complete');
  before(() => m.start('raw'));
  after(() => m.stopAll());

  it(`500 completions for ids never used: at most ${COMPLETE_AUDIT_BURST} audit rows, the rest counted`, async () => {
    assert.deepEqual(await run('complete-flood', 500), [{ jsonrpc: '2.0', id: 'after', result: {} }]);
    const rows = completes();
    assert.ok(rows.length <= 11, `${rows.length} audit rows`);
    assert.equal(COMPLETE_AUDIT_BURST, 10);
    assert.ok(rows.every((r) => r.action === 'ignored' && r.detail?.result === 'ignored-unknown'));
    // One second later the bucket has one more: the next ignored completion is audited with the count.
    await new Promise((r) => setTimeout(r, 1_100));
    await run('complete-flood', 1);
    const last = completes().at(-1)!;
    assert.equal(last.detail?.elicitationId, 'never-0');
    assert.equal(Number(last.detail?.skipped ?? 0) + completes().length, 501, JSON.stringify(last));
  });

  it('a completion with a 1 MB id is audited with an excerpt of it, not the whole id', async () => {
    await new Promise((r) => setTimeout(r, 1_100));
    const before = completes().length;
    await run('complete-huge-id', 1_000_000);
    const row = completes().at(-1)!;
    assert.equal(completes().length, before + 1);
    assert.ok(JSON.stringify(row).length < 2_000, `${JSON.stringify(row).length} characters in the row`);
    assert.match(String(row.detail?.elicitationId), /…\(1000000 characters\)$/);
  });

  it(`a URL-mode elicitation whose elicitationId is over ${DEFAULT_LIMITS.elicitationIdChars} characters gets -32602 naming the cap`, async () => {
    // The peer shortens a long reply to its first 300 characters.
    const [r] = (await run('url-huge-id', 100_000)) as Array<{ shortened?: string }>;
    assert.match(
      String(r.shortened),
      /^\{"jsonrpc":"2\.0","id":"url-huge","error":\{"code":-32602,"message":"Request too large: too-large at params\/elicitationId: the elicitationId has 100000 characters, over the cap of 256 \(limits\.elicitationIdChars\)/,
    );
    assert.equal(broker.urls.state('raw', 'A'.repeat(100_000)), undefined, 'never registered');
  });
});
