// Live-server lifecycle: crash + restart with backoff, lazy vs parallel start, start-up timeout,
// the pausable tool-call clock (Q1) and server-side cancellation of request id 0 (Q2).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { ServerManager, ServerUnavailableError, ToolCallTimeoutError, type ServerState } from '../src/host/servers/index.js';
import { systemClock, type Clock } from '../src/host/servers/clock.js';
import {
  everything,
  fixture,
  scriptedHandlers,
  stdioDef,
  text,
  untilAborted,
  waitForState,
  clientInfo,
  fastStop,
  sleep,
} from './fixtures/servers-host/helpers.js';
import { bounded, pollUntil, waitUntil } from './helpers/wait.js';
import { verifies } from './helpers/verifies.js';
import { alive } from './helpers/cli.js';

function recordingClock(): Clock & { delays: number[] } {
  const delays: number[] = [];
  return { ...systemClock, delays, setTimeout: (fn, ms) => (delays.push(ms), systemClock.setTimeout(fn, ms)) };
}
/** True while a process whose command line contains `token` runs. */
const running = (token: string) => execFileSync('ps', ['-eo', 'args']).toString().includes(token);

describe('crash and restart', () => {
  it('a server that exits mid-elicitation → error → restarts with backoff; the pending handler call is aborted', async () => {
    const h = scriptedHandlers(async (_p, ctx) => {
      await untilAborted(ctx.signal, 5000);
      return { action: 'cancel' };
    });
    const clock = recordingClock();
    const m = new ServerManager(
      { crash: fixture('crash', 'raw-peer.mjs', ['crash']) },
      {
        handlers: h.handlers,
        clientInfo,
        clock,
        stop: fastStop,
        restart: { baseMs: 50, factor: 2, capMs: 1000, maxAttempts: 3 },
      },
    );
    const states: ServerState[] = [];
    m.events.on('state', (e) => states.push(e.state));
    const lines: string[] = [];
    m.events.on('stderr', (e) => lines.push(e.line));
    try {
      await assert.rejects(m.callTool('crash', 'ask', {}), (e: unknown) => {
        assert.equal((e as { code?: string }).code, 'SERVER_CLOSED');
        // What actually happens next, from the restart the manager scheduled (not a fixed phrase).
        assert.match((e as Error).message, /; it will be restarted in \d+ ms \(restart 1 of at most 3\)\.$/);
        return true;
      });
      assert.equal(h.calls.length, 1);
      assert.equal(h.calls[0].ctx.requestId, 0);
      assert.equal(h.calls[0].aborted, true, 'the broker call was aborted when the server died');
      const err = states.find((s) => s.status === 'error');
      assert.ok(err && err.status === 'error');
      assert.equal(err.code, 'CRASHED');
      assert.equal(err.attempts, 1);
      assert.ok(err.nextRetryAt !== undefined);
      await waitForState(m, 'crash', (s) => s.status === 'running', 10_000);
      assert.ok(clock.delays.includes(50), `first backoff is baseMs (saw ${clock.delays.join(',')})`);
      assert.ok(m.stderr('crash').includes('raw-peer crashing'), 'stderr captured in the ring');
      assert.ok(lines.includes('raw-peer crash up'));
    } finally {
      await m.stopAll();
    }
  });

  it('backoff grows by factor and stops after maxAttempts; ensureRunning then refuses', async () => {
    const clock = recordingClock();
    const m = new ServerManager(
      { exit: fixture('exit', 'raw-peer.mjs', ['exit']) },
      {
        handlers: scriptedHandlers().handlers,
        clientInfo,
        clock,
        stop: fastStop,
        restart: { baseMs: 40, factor: 3, capMs: 100, maxAttempts: 3 },
      },
    );
    const errors: Array<ServerState & { status: 'error' }> = [];
    m.events.on('state', (e) => e.state.status === 'error' && errors.push(e.state));
    try {
      await m.start('exit');
      await waitForState(m, 'exit', (s) => s.status === 'error' && s.attempts === 3, 20_000);
      assert.deepEqual(
        errors.map((e) => e.attempts),
        [1, 2, 3],
      );
      assert.deepEqual(
        errors.map((e) => e.nextRetryAt !== undefined),
        [true, true, false],
      );
      assert.deepEqual(
        clock.delays.filter((d) => d === 40 || d === 100 || d === 120),
        [40, 100],
        '40, min(100, 120)',
      );
      await assert.rejects(
        m.ensureRunning('exit'),
        (e: unknown) =>
          e instanceof ServerUnavailableError &&
          /given up: parley does not restart it by itself; whoever runs parley can, with Restart in the console/.test(e.message) &&
          !/start\(\)/.test(e.message),
      );
    } finally {
      await m.stopAll();
    }
    assert.equal(m.state('exit').status, 'stopped');
  });
});

describe('start', () => {
  it("a restarted server's running state reports its own start time (startMs), not the time since the host started", async () => {
    let offset = 0; // the host has been up a long time by the restart
    const clock: Clock = { ...systemClock, now: () => systemClock.now() + offset };
    const m = new ServerManager(
      { a: fixture('a', 'v1-push.mjs') },
      { handlers: scriptedHandlers().handlers, clientInfo, clock, stop: fastStop },
    );
    try {
      await m.start('a');
      const first = m.state('a');
      assert.equal(first.status, 'running');
      offset = 600_000;
      await m.stop('a');
      await m.start('a');
      const again = m.state('a');
      assert.ok(again.status === 'running' && first.status === 'running');
      assert.ok(again.since - first.since >= 600_000);
      assert.equal(typeof again.startMs, 'number');
      assert.ok(again.startMs >= 0 && again.startMs < 60_000, `startMs ${again.startMs}`);
    } finally {
      await m.stopAll();
    }
  });

  it('is lazy: nothing runs until first use, and only the used server starts', async () => {
    const m = new ServerManager(
      { a: fixture('a', 'v1-push.mjs'), b: fixture('b', 'raw-peer.mjs', ['slow']) },
      { handlers: scriptedHandlers().handlers, clientInfo, stop: fastStop },
    );
    try {
      assert.equal(m.state('a').status, 'stopped');
      assert.equal(text(await m.callTool('a', 'echo', {})), 'echo');
      assert.equal(m.state('a').status, 'running');
      assert.equal(m.state('b').status, 'stopped');
    } finally {
      await m.stopAll();
    }
  });

  it('startMany starts in parallel and reports each outcome; stopAll leaves no child', async () => {
    const bad = stdioDef('bad', ['-e', 'process.exit(7)']);
    const m = new ServerManager(
      { a: fixture('a', 'v1-push.mjs'), b: fixture('b', 'raw-peer.mjs', ['slow']), bad },
      {
        handlers: scriptedHandlers().handlers,
        clientInfo,
        stop: fastStop,
        restart: { maxAttempts: 1 },
      },
    );
    const order: string[] = [];
    m.events.on('state', (e) => order.push(`${e.server}:${e.state.status}`));
    try {
      const res = await m.startMany(['a', 'b', 'bad']);
      assert.deepEqual(
        res.map((r) => [r.name, r.ok]),
        [
          ['a', true],
          ['b', true],
          ['bad', false],
        ],
      );
      const firstRunning = order.findIndex((s) => s.endsWith(':running'));
      assert.ok(order.indexOf('a:starting') < firstRunning && order.indexOf('b:starting') < firstRunning, order.join(' '));
      assert.equal(m.state('bad').status, 'error');
      const pids = [m.info('a')!.pid!, m.info('b')!.pid!];
      assert.ok(pids.every(alive));
      await m.stopAll();
      assert.ok(
        pids.every((p) => !alive(p)),
        'children are gone after stopAll',
      );
    } finally {
      await m.stopAll();
    }
  });

  it('startupMs bounds a server that never answers, and the abandoned child is killed', async () => {
    const token = `parley-hang-${process.pid}-${Date.now()}`;
    const m = new ServerManager(
      { hang: stdioDef('hang', ['-e', 'setInterval(() => {}, 1000)', token], { startupMs: 400 }) },
      {
        handlers: scriptedHandlers().handlers,
        clientInfo,
        stop: fastStop,
        restart: { maxAttempts: 1 },
      },
    );
    try {
      await assert.rejects(m.start('hang'), /startupMs = 400 ms/);
      const s = m.state('hang');
      assert.equal(s.status === 'error' && s.code, 'START_TIMEOUT');
      const left = await pollUntil(
        () => running(token),
        (l) => !l,
        { everyMs: 100 },
      );
      assert.equal(left, false, 'no orphan child after a start-up timeout');
    } finally {
      await m.stopAll();
    }
  });
});

describe('stop during start', () => {
  it('gives up the start at once, kills the child and ends stopped', async () => {
    const token = `parley-hang2-${process.pid}-${Date.now()}`;
    // startupMs 120 s: a stop that waited for it would overrun the 30 s race below.
    const m = new ServerManager(
      { hang: stdioDef('hang', ['-e', 'setInterval(() => {}, 1000)', token], { startupMs: 120_000 }) },
      {
        handlers: scriptedHandlers().handlers,
        clientInfo,
        stop: fastStop,
      },
    );
    const starting = m.start('hang');
    await sleep(300);
    await bounded(m.stop('hang'), 30_000, 'stop during start');
    await assert.rejects(starting, (e: unknown) => (e as { code?: string }).code === 'START_ABORTED');
    assert.equal(m.state('hang').status, 'stopped');
    const left = await pollUntil(
      () => running(token),
      (l) => !l,
      { everyMs: 100 },
    );
    assert.equal(left, false, 'no orphan child');
  });
});

describe('stop of a server that ignores the end of stdin and SIGTERM', () => {
  for (const how of ['stop', 'stopAll'] as const) {
    it(`${how}() ends it with SIGKILL and resolves once the child is gone`, async () => {
      const m = new ServerManager(
        { s: fixture('s', 'raw-peer.mjs', ['stubborn']) },
        { handlers: scriptedHandlers().handlers, clientInfo, stop: fastStop },
      );
      try {
        await m.start('s');
        const pid = m.info('s')!.pid!;
        assert.ok(alive(pid), 'running');
        await (how === 'stop' ? m.stop('s') : m.stopAll());
        // Checked at once: a SIGKILLed child that is not yet reaped still counts as a process.
        assert.equal(alive(pid), false, `pid ${pid} is gone when ${how}() resolves`);
        assert.equal(m.state('s').status, 'stopped');
      } finally {
        await m.stopAll();
      }
    });
  }
});

describe('tool-call clock (Q1)', () => {
  it('is paused while a person answers: toolCallMs = 2000, answer at 2200 ms → success', async () => {
    verifies('TIMEOUT-HUMAN-PAUSE');
    // The answer comes later than toolCallMs after the clock started, so an unpaused clock always fires
    // first; the call's own (non-human) time gets the whole 2 s, ample on a loaded machine.
    const h = scriptedHandlers(async () => {
      await sleep(2200);
      return { action: 'accept', content: { name: 'Slow' } };
    });
    const m = new ServerManager({ everything: everything({ toolCallMs: 2000 }) }, { handlers: h.handlers, clientInfo, stop: fastStop });
    try {
      await m.start('everything');
      const r = await m.callTool('everything', 'trigger-elicitation-request', {});
      assert.ok(text(r).includes('✅ User provided the requested information!'), text(r));
    } finally {
      await m.stopAll();
    }
  });

  it('still fires on a tool that is merely slow (control)', async () => {
    const m = new ServerManager(
      { slow: fixture('slow', 'raw-peer.mjs', ['slow'], { toolCallMs: 1000 }) },
      { handlers: scriptedHandlers().handlers, clientInfo, stop: fastStop },
    );
    try {
      await m.start('slow');
      await assert.rejects(
        m.callTool('slow', 'sleep', { ms: 4000 }),
        (e: unknown) => e instanceof ToolCallTimeoutError && e.budget === 'toolCallMs',
      );
      assert.equal(text(await m.callTool('slow', 'sleep', { ms: 0 })), 'slept', 'the connection survives a timed-out call');
    } finally {
      await m.stopAll();
    }
  });

  it('maxTotalMs caps the call including human time', async () => {
    verifies('TIMEOUT-MAX-TOTAL');
    // The person never answers: only the maxTotalMs abort ends the wait (the long bound is never reached
    // unless maxTotalMs is broken; a short one could answer first when timers run late on a loaded machine).
    const h = scriptedHandlers(async (_p, ctx) => {
      await untilAborted(ctx.signal, 30_000);
      return { action: 'cancel' };
    });
    const m = new ServerManager(
      { everything: everything({ toolCallMs: 5000, maxTotalMs: 500 }) },
      { handlers: h.handlers, clientInfo, stop: fastStop },
    );
    try {
      await m.start('everything');
      await assert.rejects(
        m.callTool('everything', 'trigger-elicitation-request', {}),
        (e: unknown) => e instanceof ToolCallTimeoutError && e.budget === 'maxTotalMs',
      );
    } finally {
      await m.stopAll();
    }
  });
});

describe('server-side cancel (Q2)', () => {
  it('notifications/cancelled for request id 0 aborts the handler signal', async () => {
    verifies('CANCEL-SERVER-REQUEST');
    const h = scriptedHandlers(async (_p, ctx) => {
      const how = await untilAborted(ctx.signal, 3000);
      return { action: how === 'aborted' ? 'cancel' : 'decline' };
    });
    const m = new ServerManager({ c0: fixture('c0', 'raw-peer.mjs', ['cancel0']) }, { handlers: h.handlers, clientInfo, stop: fastStop });
    try {
      const r = await m.callTool('c0', 'ask', {});
      assert.equal(text(r), 'cancel-sent');
      assert.equal(h.calls[0].ctx.requestId, 0);
      await waitUntil(() => h.calls[0].aborted === true);
      assert.equal(h.calls[0].aborted, true);
      assert.equal(String(h.calls[0].ctx.signal.reason?.message ?? h.calls[0].ctx.signal.reason), 'server gave up');
      await sleep(300);
      assert.ok(!m.stderr('c0').includes('got-response 0'), `no answer is sent for a cancelled request: ${m.stderr('c0').join(' | ')}`);
    } finally {
      await m.stopAll();
    }
  });

  // The request and its cancellation in one read: the Connection sees the cancel before the SDK has
  // called the request's handler (a microtask later), so it must still reach the request once it exists.
  for (const [label, id] of [
    ['request id 0', '0'],
    ['a string request id', '"q-7"'],
  ] as const) {
    it(`notifications/cancelled read together with its request (${label}) still aborts the handler signal`, async () => {
      verifies('CANCEL-SERVER-REQUEST');
      const h = scriptedHandlers(async (_p, ctx) => {
        const how = await untilAborted(ctx.signal, 5000);
        return { action: how === 'aborted' ? 'cancel' : 'decline' };
      });
      const m = new ServerManager(
        { cn: fixture('cn', 'raw-peer.mjs', ['cancelnow', id]) },
        { handlers: h.handlers, clientInfo, stop: fastStop },
      );
      try {
        const r = await m.callTool('cn', 'ask', {});
        assert.equal(text(r), 'cancel-sent');
        assert.equal(h.calls.length, 1, 'the request reached the broker');
        assert.equal(h.calls[0].ctx.requestId, JSON.parse(id));
        await waitUntil(() => h.calls[0].aborted === true, { ms: 8000 });
        assert.equal(h.calls[0].aborted, true, "the cancellation reached the broker's signal");
        assert.equal(String(h.calls[0].ctx.signal.reason?.message ?? h.calls[0].ctx.signal.reason), 'server gave up at once');
      } finally {
        await m.stopAll();
      }
    });
  }
});
