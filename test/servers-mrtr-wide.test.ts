// A 2026-07-28 server's input_required round with very many inputRequests (basic/patterns/mrtr names no
// bound). parley answered every entry of a round at once: 2000 elicitation entries were 2000 broker
// requests (4000 audit rows, and as many prompts for a person), 20 000 roots/list entries 20 000 copies of
// the roots sent back. A round with more than MAX_INPUT_REQUESTS_PER_ROUND (100) entries now abandons
// the call with InputRequiredFlowError `too-many-inputs` naming the cap, before any entry is answered;
// a round at the cap is answered in full. Real peer: an SDK v2 server (v2-wide.mjs).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_INPUT_REQUESTS_PER_ROUND } from '../src/host/servers/mrtr.js';
import { ElicitationBroker } from '../src/host/broker/index.js';
import { ScriptedPresenter } from '../src/host/presenter.js';
import { MemoryStore } from './fixtures/broker/memoryStore.js';
import { brokerManager, fixture, text } from './fixtures/servers-host/helpers.js';
import { bounded } from './helpers/wait.js';

describe('a 2026-07-28 server that asks for very many inputs in one round', () => {
  const store = new MemoryStore();
  const broker = new ElicitationBroker({ presenter: new ScriptedPresenter([]), store });
  const m = brokerManager({ v2: fixture('v2', 'v2-wide.mjs') }, broker);
  before(async () => {
    await m.start('v2');
    assert.equal(m.info('v2')?.negotiatedRevision, '2026-07-28');
  });
  after(() => m.stopAll());

  it(`a round of ${MAX_INPUT_REQUESTS_PER_ROUND} roots/list entries is answered in full`, async () => {
    assert.equal(MAX_INPUT_REQUESTS_PER_ROUND, 100);
    const r = await bounded(m.callTool('v2', 'wide', { n: MAX_INPUT_REQUESTS_PER_ROUND, kind: 'roots' }), 20_000, 'at the cap');
    assert.equal(text(r), `answered ${MAX_INPUT_REQUESTS_PER_ROUND}`);
  });

  for (const [n, kind] of [
    [MAX_INPUT_REQUESTS_PER_ROUND + 1, 'roots'],
    [20_000, 'roots'],
    [2_000, 'elicit'],
  ] as const) {
    it(`${n} ${kind} entries: the call is abandoned naming the cap, nothing is asked or audited`, async () => {
      const rows = store.audit.length;
      await assert.rejects(bounded(m.callTool('v2', 'wide', { n, kind }), 20_000, 'over the cap'), (e: Error & { code?: string }) => {
        assert.equal(e.name, 'InputRequiredFlowError');
        assert.equal(e.code, 'too-many-inputs');
        assert.match(
          e.message,
          new RegExp(
            `Server "v2" sent ${n} input requests in one input_required round of wide, over parley's cap of 100 \\(MAX_INPUT_REQUESTS_PER_ROUND\\)`,
          ),
        );
        return true;
      });
      assert.equal(store.audit.length, rows, 'no broker request');
    });
  }
});
