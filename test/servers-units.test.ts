// Own state machines of the server runtime, with a manual clock: pausable tool clocks, nested pause,
// backoff, stderr ring bounds, list cache, typed emitter.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Clock } from '../src/host/servers/clock.js';
import { PauseGate, ToolClock, ToolCallTimeoutError } from '../src/host/servers/tool-clock.js';
import { backoffDelay, DEFAULT_RESTART_POLICY } from '../src/host/servers/backoff.js';
import { StderrRing, STDERR_MAX_LINE_BYTES } from '../src/host/servers/stderr-ring.js';
import { ListCache } from '../src/host/servers/list-cache.js';
import { TypedEmitter } from '../src/host/servers/emitter.js';
import { verifies } from './helpers/verifies.js';

class ManualClock implements Clock {
  t = 0;
  #timers = new Map<number, { at: number; fn: () => void }>();
  #id = 0;
  /** Timers ever set. */
  set = 0;
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => (this.set++, this.#timers.set(++this.#id, { at: this.t + ms, fn }), this.#id);
  clearTimeout = (h: unknown) => void this.#timers.delete(h as number);
  advance(ms: number) {
    const end = this.t + ms;
    for (;;) {
      const next = [...this.#timers.entries()].filter(([, v]) => v.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!next) break;
      this.#timers.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
    }
    this.t = end;
  }
}

const info = { server: 's', tool: 't', toolCallMs: 1000, maxTotalMs: 10_000 };

describe('ToolClock and PauseGate', () => {
  it('expires after toolCallMs of running time', () => {
    const c = new ManualClock();
    const k = new ToolClock(c, info, false);
    c.advance(999);
    assert.equal(k.signal.aborted, false);
    c.advance(1);
    assert.ok(k.signal.reason instanceof ToolCallTimeoutError);
    assert.equal((k.signal.reason as ToolCallTimeoutError).budget, 'toolCallMs');
    assert.match((k.signal.reason as Error).message, /toolCallMs = 1000 ms.*timeouts\.toolCallMs/s);
  });

  it("follows the caller's signal: aborts with its reason, and stops listening once disposed", () => {
    const c = new ManualClock();
    const caller = new AbortController();
    const k = new ToolClock(c, info, false, caller.signal);
    const why = new Error('the client cancelled');
    caller.abort(why);
    assert.equal(k.signal.reason, why);
    c.advance(10_000); // a budget running out later does not replace the caller's reason
    assert.equal(k.signal.reason, why);

    const gone = new AbortController();
    const d = new ToolClock(c, info, false, gone.signal);
    d.dispose();
    gone.abort(new Error('after the call'));
    assert.equal(d.signal.aborted, false);

    const early = AbortSignal.abort(why);
    assert.equal(new ToolClock(c, info, false, early).signal.reason, why);
  });

  it('does not count time while paused, with nested pauses', async () => {
    verifies('TIMEOUT-HUMAN-PAUSE');
    const c = new ManualClock();
    const gate = new PauseGate();
    const k = new ToolClock(c, info, false);
    const untrack = gate.track(k);
    c.advance(400);
    let releaseA!: () => void;
    let releaseB!: () => void;
    const a = gate.during(() => new Promise<void>((r) => (releaseA = r)));
    const b = gate.during(() => new Promise<void>((r) => (releaseB = r)));
    c.advance(5000);
    releaseA();
    await a;
    c.advance(1000); // still paused: b is in flight
    assert.equal(k.signal.aborted, false);
    assert.equal(k.remainingMs(), 600);
    releaseB();
    await b;
    c.advance(599);
    assert.equal(k.signal.aborted, false);
    c.advance(1);
    assert.equal(k.signal.aborted, true);
    untrack();
  });

  it('pause and resume set no timer; a timer that fires while paused or early re-arms for the running time left', () => {
    const c = new ManualClock();
    const k = new ToolClock(c, info, false);
    const armed = c.set; // the total and the running-time timer
    for (let i = 0; i < 100; i++) {
      c.advance(1);
      k.pause();
      c.advance(3); // a person answering
      k.resume();
    }
    assert.equal(c.set, armed, 'a hundred elicitations armed no new timer');
    assert.equal(k.remainingMs(), 900, '100 ms of running time used, 300 ms paused not counted');
    c.advance(800); // the first timer fires at t=1000 (armed for 1000 at t=0) with 300 ms left: re-armed; at t=1200, 100 ms left
    assert.equal(k.signal.aborted, false, 'fired early: re-armed, not expired');
    k.pause();
    c.advance(5_000); // the re-armed timer fires while paused: nothing happens
    assert.equal(k.signal.aborted, false, 'paused: no expiry');
    k.resume();
    c.advance(99);
    assert.equal(k.signal.aborted, false, '1 ms left');
    c.advance(1);
    assert.equal((k.signal.reason as ToolCallTimeoutError).budget, 'toolCallMs');
  });

  it('a handler that answers with a plain value, or throws, leaves the gate balanced', async () => {
    const gate = new PauseGate();
    const c = new ManualClock();
    const k = new ToolClock(c, info, false);
    const untrack = gate.track(k);
    assert.deepEqual(await gate.during(() => ({ action: 'decline' }) as never), { action: 'decline' }, 'a plain value comes back');
    assert.equal(gate.paused, false, 'not left paused after a plain value');
    await assert.rejects(
      gate.during(() => {
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(gate.paused, false, 'not left paused');
    c.advance(1000);
    assert.equal(k.signal.aborted, true, 'the running-time budget still fires');
    untrack();
  });

  it('running time is measured on the monotonic clock: a wall-clock step back does not stretch the budget', () => {
    const c = new ManualClock();
    let wallOffset = 0;
    const clock = { ...c, now: () => c.t + wallOffset, elapsed: () => c.t, setTimeout: c.setTimeout, clearTimeout: c.clearTimeout };
    const k = new ToolClock(clock, info, false);
    c.advance(50);
    wallOffset = -3_000; // NTP steps the wall clock back 3 s
    c.advance(950);
    assert.equal((k.signal.reason as ToolCallTimeoutError | undefined)?.budget, 'toolCallMs', 'fired at 1000 ms of running time');
  });

  it('a clock created while paused starts paused', () => {
    const c = new ManualClock();
    const k = new ToolClock(c, info, true);
    c.advance(5000);
    assert.equal(k.signal.aborted, false);
    k.resume();
    c.advance(1000);
    assert.equal(k.signal.aborted, true);
  });

  it('maxTotalMs is never paused', () => {
    const c = new ManualClock();
    const k = new ToolClock(c, info, false);
    k.pause();
    c.advance(10_000);
    assert.equal((k.signal.reason as ToolCallTimeoutError).budget, 'maxTotalMs');
  });

  it('dispose stops both timers', () => {
    const c = new ManualClock();
    const k = new ToolClock(c, info, false);
    k.dispose();
    c.advance(20_000);
    assert.equal(k.signal.aborted, false);
  });
});

describe('backoff', () => {
  it('is base × factor^(n−1), capped', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelay(n)),
      [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000],
    );
    assert.equal(backoffDelay(3, { ...DEFAULT_RESTART_POLICY, baseMs: 10, factor: 3, capMs: 50 }), 50);
  });
});

describe('StderrRing', () => {
  it('splits lines across chunks and keeps the newest within the line bound', () => {
    const r = new StderrRing(3, 1024);
    assert.deepEqual(r.write('a\nb'), ['a']);
    assert.deepEqual(r.write('c\r\nd\ne\n'), ['bc', 'd', 'e']);
    assert.deepEqual(r.lines(), ['bc', 'd', 'e']);
    r.write('tail');
    assert.deepEqual(r.end(), ['tail']);
    assert.deepEqual(r.lines(), ['d', 'e', 'tail']);
  });

  it('keeps within the byte bound and truncates huge lines', () => {
    const r = new StderrRing(100, 10);
    r.write('12345\n67890\nab\n');
    assert.deepEqual(r.lines(), ['67890', 'ab']);
    const big = new StderrRing();
    big.write('x'.repeat(STDERR_MAX_LINE_BYTES * 2) + '\n');
    assert.equal(big.lines()[0].length, STDERR_MAX_LINE_BYTES + 1);
    assert.ok(big.lines()[0].endsWith('…'));
  });
});

describe('ListCache and TypedEmitter', () => {
  it('caches until invalidated; resources list_changed also drops templates; failures are not cached', async () => {
    const c = new ListCache();
    let n = 0;
    const f = async () => ++n;
    assert.equal(await c.get('tools', f), 1);
    assert.equal(await c.get('tools', f), 1);
    await c.get('templates', f);
    c.invalidate('resources');
    assert.equal(await c.get('templates', f), 3);
    await assert.rejects(c.get('prompts', async () => Promise.reject(new Error('x'))));
    await new Promise((r) => setImmediate(r));
    assert.equal(await c.get('prompts', f), 4);
  });

  it('isolates a throwing listener', () => {
    const errors: unknown[] = [];
    const e = new TypedEmitter<{ x: number }>((err) => errors.push(err));
    const got: number[] = [];
    e.on('x', () => {
      throw new Error('boom');
    });
    const off = e.on('x', (v) => got.push(v));
    e.emit('x', 1);
    off();
    e.emit('x', 2);
    assert.deepEqual(got, [1]);
    assert.equal(errors.length, 2);
  });
});
