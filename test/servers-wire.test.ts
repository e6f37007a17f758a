// Runtime behaviour pinned with the hand-written raw peer: child environment, era-verdict cache,
// -32042 waiting for notifications/elicitation/complete, caller abort.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerManager } from '../src/host/servers/index.js';
import { childEnv } from '../src/host/servers/child-env.js';
import {
  fixture,
  scriptedHandlers,
  text,
  waitForState,
  clientInfo,
  fastStop,
  stdioDef,
  untilAborted,
} from './fixtures/servers-host/helpers.js';
import { bounded, waitUntil } from './helpers/wait.js';
import { verifies } from './helpers/verifies.js';

describe('child environment (vector C2-env-merge)', () => {
  it('merges def.env over the inherited environment', () => {
    const env = childEnv(stdioDef('x', [], undefined, { MEMORY_FILE_PATH: '/data/memory.json', HOME: '/h2' }), {
      PATH: '/bin',
      HOME: '/h',
      UNSET: undefined,
    });
    assert.deepEqual(env, { PATH: '/bin', HOME: '/h2', MEMORY_FILE_PATH: '/data/memory.json' });
  });

  it('the spawned server sees PATH, HOME and the added variable', async () => {
    const def = fixture('envp', 'raw-peer.mjs', ['slow']);
    def.env = { MEMORY_FILE_PATH: '/data/memory.json' };
    const m = new ServerManager({ envp: def }, { handlers: scriptedHandlers().handlers, clientInfo, stop: fastStop });
    try {
      await m.start('envp');
      assert.ok(m.stderr('envp').includes('env PATH=yes HOME=yes MEMORY_FILE_PATH=/data/memory.json'), m.stderr('envp').join(' | '));
    } finally {
      await m.stopAll();
    }
  });
});

describe('era verdict cache', () => {
  it('probes once, reuses the legacy verdict for crash restarts, re-probes after an explicit stop', async () => {
    verifies('ERA-VERDICT-CACHE');
    const dir = mkdtempSync(join(tmpdir(), 'parley-probe-'));
    const log = join(dir, 'probes.log');
    const probes = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);
    const def = fixture('exit', 'raw-peer.mjs', ['exit']);
    def.env = { PARLEY_PROBE_LOG: log };
    const m = new ServerManager(
      { exit: def },
      { handlers: scriptedHandlers().handlers, clientInfo, stop: fastStop, restart: { baseMs: 30, maxAttempts: 3 } },
    );
    try {
      await m.start('exit');
      await waitForState(m, 'exit', (s) => s.status === 'error' && s.attempts === 3, 20_000);
      assert.equal(probes(), 1, 'three starts, one server/discover probe');
      await m.stop('exit');
      await m.start('exit').catch(() => {});
      assert.equal(probes(), 2, 'an explicit stop forgets the verdict');
    } finally {
      await m.stopAll();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('-32042 with notifications/elicitation/complete', () => {
  it('retries once as soon as the completion arrives (not after the full bound)', async () => {
    verifies('ELIC-1125-URL-COMPLETE');
    const h = scriptedHandlers(() => ({ action: 'accept' }));
    // The completion arrives 100 ms after the -32042; waiting for the whole 120 s bound would overrun the 30 s race.
    const m = new ServerManager(
      { pay: fixture('pay', 'raw-peer.mjs', ['urlreq']) },
      { handlers: h.handlers, clientInfo, stop: fastStop, urlCompleteWaitMs: 120_000 },
    );
    try {
      await m.start('pay');
      const r = await bounded(m.callTool('pay', 'pay', {}), 30_000, 'the retry after notifications/elicitation/complete');
      assert.equal(text(r), 'paid after 2 calls');
      assert.deepEqual(h.completed, ['e-1'], 'handlers.elicitationComplete was told');
      assert.equal((h.calls[0].params as { url?: string }).url, 'https://example.com/consent');
    } finally {
      await m.stopAll();
    }
  });
});

describe('caller abort', () => {
  it("rejects promptly with the caller's reason", async () => {
    const m = new ServerManager(
      { slow: fixture('slow', 'raw-peer.mjs', ['slow']) },
      { handlers: scriptedHandlers().handlers, clientInfo, stop: fastStop },
    );
    try {
      await m.start('slow');
      const ac = new AbortController();
      setTimeout(() => ac.abort(new Error('user pressed stop')), 100);
      // The tool would answer after 120 s: only the abort can end the call within the 30 s race.
      await assert.rejects(
        bounded(m.callTool('slow', 'sleep', { ms: 120_000 }, { signal: ac.signal }), 30_000, 'the aborted call'),
        /user pressed stop/,
      );
    } finally {
      await m.stopAll();
    }
  });
});

describe('no orphan prompt when the tool call that asked ends (vector Q3, host side)', () => {
  for (const [file, era] of [
    ['v2-dual.mjs', 'modern'],
    ['v1-push.mjs', 'legacy'],
  ] as const) {
    it(`${era}: aborting the call aborts the pending elicit handler`, async () => {
      verifies('ASSOC-1125-SERVER-REQUESTS');
      const h = scriptedHandlers(async (_p, ctx) =>
        (await untilAborted(ctx.signal, 5000)) === 'aborted' ? { action: 'cancel' } : { action: 'decline' },
      );
      const m = new ServerManager({ s: fixture('s', file) }, { handlers: h.handlers, clientInfo, stop: fastStop });
      try {
        await m.start('s');
        assert.equal(m.info('s')?.era, era);
        const ac = new AbortController();
        const p = m.callTool('s', 'ask', {}, { signal: ac.signal });
        await waitUntil(() => h.calls.length > 0);
        assert.equal(h.calls.length, 1, 'the elicitation reached the handler');
        ac.abort(new Error('user pressed stop'));
        await assert.rejects(p, /user pressed stop/);
        await waitUntil(() => h.calls[0].aborted === true);
        assert.equal(h.calls[0].aborted, true);
      } finally {
        await m.stopAll();
      }
    });
  }
});

describe('stop with a person still answering', () => {
  it('aborts the pending elicit handler and rejects the tool call', async () => {
    const h = scriptedHandlers(async (_p, ctx) =>
      (await untilAborted(ctx.signal, 5000)) === 'aborted' ? { action: 'cancel' } : { action: 'decline' },
    );
    const m = new ServerManager({ s: fixture('s', 'v1-push.mjs') }, { handlers: h.handlers, clientInfo, stop: fastStop });
    try {
      const p = m.callTool('s', 'ask', {});
      p.catch(() => {});
      await waitUntil(() => h.calls.length > 0); // the first call also starts the server
      assert.equal(h.calls.length, 1);
      await m.stop('s');
      assert.equal(h.calls[0].aborted, true);
      assert.match(String((h.calls[0].ctx.signal.reason as Error)?.message), /server stopped/);
      await assert.rejects(p);
      assert.equal(m.state('s').status, 'stopped');
    } finally {
      await m.stopAll();
    }
  });
});
