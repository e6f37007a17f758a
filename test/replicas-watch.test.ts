// Liveness probes of owner replicas (src/gateway/sessions-watch.ts; docs/scaling.md §When a replica dies
// or hangs). A hung owner is a loopback listener that accepts connections and never answers, which is
// what the kernel makes of a SIGSTOPped process. The garbage collector runs all the time here: on Node 20
// an AbortSignal.timeout inside AbortSignal.any is held weakly and, once collected, never fires
// (nodejs/node#57736), which left a probe of a hung owner waiting for undici's 300 s and the forwarded
// calls of its sessions for the client's own timeout.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { OwnerWatch } from '../src/gateway/sessions-watch.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const listen = (s: Server) =>
  new Promise<string>((r) => s.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(s.address() as { port: number }).port}/mcp`)));

describe('OwnerWatch', () => {
  it('declares a hung owner down within misses × (everyMs + timeoutMs), with the garbage collector running', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const hung = createServer((s) => void sockets.add(s)); // accepts, never answers
    const url = await listen(hung);
    const w = new OwnerWatch({ everyMs: 100, timeoutMs: 400, misses: 3 });
    const pressure = setInterval(gc, 10);
    const t0 = Date.now();
    try {
      const why = await new Promise<string>((resolve, reject) => {
        const guard = setTimeout(() => reject(new Error('not declared down within 10 s')), 10_000);
        w.watch(url, (reason) => (clearTimeout(guard), resolve(reason)));
      });
      const took = Date.now() - t0;
      assert.match(why, /did not answer 3 liveness probes in a row \(each bounded by 400 ms/);
      assert.ok(took >= 3 * 400, `not before three probes timed out (took ${took} ms)`);
      assert.ok(took < w.hangBoundMs + 1_500, `within the bound of ${w.hangBoundMs} ms (took ${took} ms)`);
    } finally {
      clearInterval(pressure);
      w.close();
      for (const s of sockets) s.destroy();
      hung.close();
    }
  });

  it('a long watch of a live owner keeps no abort listener per probe (no MaxListenersExceededWarning after 30 probes)', async () => {
    const live = createHttpServer((_req, res) => res.writeHead(401).end());
    const url = await listen(live);
    const w = new OwnerWatch({ everyMs: 5, timeoutMs: 400, misses: 2 });
    const warnings: Error[] = [];
    const onWarning = (e: Error) => void warnings.push(e);
    process.on('warning', onWarning);
    let probes = 0;
    const counted = createHttpServer((_req, res) => (probes++, res.writeHead(401).end()));
    const countedUrl = await listen(counted);
    try {
      const stop = w.watch(countedUrl, () => assert.fail('a live owner was declared down'));
      const stopLive = w.watch(url, () => assert.fail('a live owner was declared down'));
      // Each replica watches an owner for as long as a forwarded stream is open (a session's GET stream:
      // hours). Before the fix every probe added an abort listener to the watch's signal and kept it.
      while (probes < 30) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setImmediate(r));
      stop();
      stopLive();
      assert.deepEqual(
        warnings.filter((x) => x.name === 'MaxListenersExceededWarning').map((x) => x.message),
        [],
      );
    } finally {
      process.off('warning', onWarning);
      w.close();
      live.close();
      live.closeAllConnections();
      counted.close();
      counted.closeAllConnections();
    }
  });

  it('keeps a live owner (any HTTP answer) and declares a closed port down at once', async () => {
    const live = createHttpServer((_req, res) => res.writeHead(401).end());
    const url = await listen(live);
    const w = new OwnerWatch({ everyMs: 50, timeoutMs: 400, misses: 2 });
    const pressure = setInterval(gc, 10);
    try {
      let down: string | undefined;
      const stop = w.watch(url, (why) => (down = why));
      await new Promise((r) => setTimeout(r, 1_000));
      assert.equal(down, undefined, 'a replica that answers is alive');
      // The replica dies: its port refuses connections.
      await new Promise<void>((r) => {
        live.close(() => r());
        live.closeAllConnections();
      });
      const t0 = Date.now();
      while (!down && Date.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 20));
      assert.match(down ?? 'never', /refused the connection/);
      assert.ok(Date.now() - t0 < 1_000, `at the next probe (took ${Date.now() - t0} ms)`);
      stop();
    } finally {
      clearInterval(pressure);
      w.close();
    }
  });
});
