// A hostile server floods parley with elicitation/create requests parley refuses before anyone is asked
// (client/elicitation §Security Considerations: clients SHOULD rate-limit). Each one still gets the
// spec's answer (-32602 for a request that cannot be shown), but each refusal also wrote two audit rows
// (request and error) and told the person: at 500 a second a server pushed a million older rows out of
// the audit log (its retention cap) in under twenty minutes, and the person's notices drowned. Now the
// refusals of one (tenant, user, server) are audited and told at most REFUSAL_AUDIT_BURST at once, one
// more per REFUSAL_AUDIT_REFILL_MS, the rest counted in the next refusal row's `detail.skipped`; a request
// that is admitted is audited as before. Peers: raw-lines.mjs (a hand-written 2025-11-25 stdio server)
// behind ServerManager and the broker, with a clock of the test's; on 2026-07-28, v2-wide.mjs (an SDK v2
// server) whose input_required round of 100 elicitation entries is over the rate limit.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ElicitationBroker, REFUSAL_AUDIT_BURST, REFUSAL_AUDIT_REFILL_MS } from '../src/host/broker/index.js';
import { ScriptedPresenter } from '../src/host/presenter.js';
import { MemoryStore } from './fixtures/broker/memoryStore.js';
import { brokerManager, fixture, text } from './fixtures/servers-host/helpers.js';
import { bounded, waitUntil } from './helpers/wait.js';

describe('a 2025-11-25 stdio server flooding parley with elicitation/create requests it refuses', () => {
  const store = new MemoryStore();
  const presenter = new ScriptedPresenter([
    { action: 'accept', content: { ok: true } },
    { action: 'accept', content: { ok: true } },
  ]);
  // The test's clock: it moves only by `skew`, so no audit place is earned while a case runs.
  const base = Date.now();
  let skew = 0;
  const broker = new ElicitationBroker({ presenter, store, now: () => base + skew });
  const m = brokerManager({ raw: fixture('raw', 'raw-lines.mjs', ['2025-11-25']) }, broker);
  type Reply = { id: string; error?: { code: number }; result?: { action: string } };
  const flood = async (n: number) =>
    (
      JSON.parse(text(await bounded(m.callTool('raw', 'case', { name: 'elicit-invalid-flood', bytes: n }), 25_000, 'flood'))) as {
        got: Reply[];
      }
    ).got;
  const refusalRows = () => store.audit.filter((a) => a.kind === 'error' && a.detail?.code === -32602);
  const refusedNotices = () => presenter.notices.filter((n) => n.kind === 'refused');
  before(() => m.start('raw'));
  after(() => m.stopAll());

  it(`500 invalid requests: each answered -32602, ${REFUSAL_AUDIT_BURST} audited and told; the good one after them is asked and audited`, async () => {
    const got = await flood(500);
    assert.equal(got.filter((r) => r.id.startsWith('bad-') && r.error?.code === -32602).length, 500, 'never silence');
    assert.deepEqual(got.find((r) => r.id === 'good')?.result, { action: 'accept', content: { ok: true } });
    assert.equal(refusalRows().length, REFUSAL_AUDIT_BURST);
    assert.equal(refusedNotices().length, REFUSAL_AUDIT_BURST);
    // Each audited refusal has its request row; the good request has its request and answer rows.
    const requests = store.audit.filter((a) => a.kind === 'request');
    assert.equal(requests.length, REFUSAL_AUDIT_BURST + 1);
    assert.equal(store.audit.filter((a) => a.kind === 'answer' && a.action === 'accept').length, 1);
    assert.ok(refusalRows().every((r) => requests.some((q) => q.requestId === r.requestId)));
  });

  it('the next refusal audited (the budget refilled) counts the ones that were not', async () => {
    skew += REFUSAL_AUDIT_REFILL_MS;
    const got = await flood(1);
    assert.equal(got.filter((r) => r.error?.code === -32602).length, 1);
    assert.equal(refusalRows().length, REFUSAL_AUDIT_BURST + 1);
    assert.equal(refusalRows().at(-1)?.detail?.skipped, 500 - REFUSAL_AUDIT_BURST);
  });

  it("50 lines that are not JSON over the budget: all 50 counted, the 40 of the stdio reader's summary too", async () => {
    // The stdio reader reports 10 one by one and the other 40 as one summary when its window ends
    // (REFUSED_PER_WINDOW / REFUSED_WINDOW_MS); the budget is spent, so none is audited, all are counted.
    const reports: string[] = [];
    const off = broker.on((e) => e.type === 'refused' && e.id.startsWith('malformed-') && reports.push(e.message));
    const c = await bounded(m.callTool('raw', 'case', { name: 'garbage-flood' }), 25_000, 'garbage');
    assert.ok(JSON.parse(text(c)).got.length > 0);
    assert.ok(await waitUntil(() => reports.some((r) => /40 more message/.test(r)), { ms: 15_000 }), 'the summary came');
    off();
    assert.equal(reports.length, 11);
    skew += REFUSAL_AUDIT_REFILL_MS;
    await flood(1);
    assert.equal(refusalRows().at(-1)?.detail?.skipped, 50);
  });
});

describe('a 2026-07-28 server whose input_required round asks for 100 forms at once (over the rate limit)', () => {
  const store = new MemoryStore();
  const presenter = new ScriptedPresenter(Array.from({ length: 10 }, () => ({ action: 'accept' as const, content: { name: 'x' } })));
  const broker = new ElicitationBroker({ presenter, store });
  const m = brokerManager({ v2: fixture('v2', 'v2-wide.mjs') }, broker);
  before(async () => {
    await m.start('v2');
    assert.equal(m.info('v2')?.negotiatedRevision, '2026-07-28');
  });
  after(() => m.stopAll());

  it(`every entry is answered (the refused ones decline); ${REFUSAL_AUDIT_BURST} refusals audited and told, the admitted ones all`, async () => {
    const refused: string[] = [];
    broker.on((e) => e.type === 'refused' && refused.push(e.id));
    const r = await bounded(m.callTool('v2', 'wide', { n: 100, kind: 'elicit' }), 25_000, 'the round');
    assert.equal(text(r), 'answered 100');
    const admitted = presenter.prompts.length;
    assert.ok(admitted >= 1 && admitted <= 10, `${admitted} asked (burst 10)`);
    assert.equal(refused.length, 100 - admitted, 'every other entry refused');
    const declines = store.audit.filter((a) => a.kind === 'policy' && a.action === 'decline');
    assert.equal(declines.length, REFUSAL_AUDIT_BURST);
    assert.equal(presenter.notices.filter((n) => n.kind === 'refused').length, REFUSAL_AUDIT_BURST);
    assert.equal(store.audit.filter((a) => a.kind === 'request').length, admitted + REFUSAL_AUDIT_BURST);
    assert.equal(store.audit.filter((a) => a.kind === 'answer').length, admitted);
    assert.ok(store.audit.filter((a) => a.kind === 'request').every((q) => q.detail?.era === 'modern'));
  });
});
