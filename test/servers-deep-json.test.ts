// A hostile server's response that nests deeper than MAX_JSON_DEPTH (valid JSON: V8's JSON.parse reads a
// million levels, but JSON.stringify and structuredClone overflow the stack at ~10 000) never reaches
// anything that would serialise it: parley's readers end the request with -32600 naming the cap, at once.
// Without that, the gateway's SDK server threw while writing the result, so an upstream client never got
// an answer (it waited out its own request timeout), and `parley call` threw printing it.
// Peers: raw-lines.mjs (a hand-written stdio server: no SDK server writes such a line) behind a host and
// behind the gateway with real SDK v2 clients on 2025-11-25 (push) and 2026-07-28 (MRTR) over HTTP; an
// SDK v1 server over Streamable HTTP (v1-hostile.mjs, `deep`) behind a host; and the Streamable HTTP
// reader (`repairingFetch`) fed raw bodies (JSON, batch, SSE events short and long).
import { after, before, describe, it } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createHost, HeadlessPresenter } from '../src/host/index.js';
import type { Host, HttpServerDef } from '../src/host/index.js';
import { createGateway } from '../src/gateway/index.js';
import { MAX_JSON_DEPTH } from '../src/schema/json-depth.js';
import { MAX_EVENT_CHARS, repairingFetch } from '../src/host/servers/wire-repair.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { bounded } from './helpers/wait.js';
import { spawnListening, stopChild } from './helpers/peers.js';

const DEEP = 20_000;
const CAP_TEXT = new RegExp(`nests arrays/objects deeper than ${MAX_JSON_DEPTH} levels \\(MAX_JSON_DEPTH\\)`);

describe('a stdio server whose response nests too deeply', () => {
  let host: Host;
  before(() => {
    host = createHost(gatewayConfig({ raw: fixture('raw', 'raw-lines.mjs', ['2025-11-25']) }), { presenter: new HeadlessPresenter() });
  });
  after(() => host.close());

  it(`ends parley's request with -32600 naming MAX_JSON_DEPTH (id last or first); the connection stays usable`, async () => {
    // The message, result, structuredContent and `levels` arrays: MAX_JSON_DEPTH - 3 arrays reach the cap.
    const ok = await bounded(host.callTool('raw', 'deep', { levels: MAX_JSON_DEPTH - 3 }), 20_000, 'at the cap');
    assert.equal(text(ok), `deep ${MAX_JSON_DEPTH - 3}`);
    for (const [levels, idFirst] of [
      [MAX_JSON_DEPTH - 2, false],
      [DEEP, false],
      [DEEP, true],
    ] as const) {
      await assert.rejects(bounded(host.callTool('raw', 'deep', { levels, idFirst }), 10_000, 'too deep'), (e: Error) => {
        assert.match(e.message, CAP_TEXT);
        return true;
      });
    }
    assert.equal(text(await bounded(host.callTool('raw', 'deep', { levels: 3 }), 10_000, 'after')), 'deep 3');
  });

  it('a request that deep is answered -32600 with its id, a notification is ignored, the next line is read', async () => {
    const got = JSON.parse(text(await bounded(host.callTool('raw', 'case', { name: 'deep-request', bytes: DEEP }), 20_000, 'case'))).got;
    assert.deepEqual(
      got.map((m: { id: string; error?: { code: number } }) => [m.id, m.error?.code]),
      [
        ['deep', -32600],
        ['after', undefined],
      ],
    );
    assert.match(got[0].error.message, /the "ping" request nests arrays\/objects deeper than 128 levels/);
  });
});

describe('the gateway in front of that server', () => {
  let url: string;
  let stop: () => Promise<void>;
  before(async () => {
    ({ url, stop } = await serveGateway(createGateway(gatewayConfig({ raw: fixture('raw', 'raw-lines.mjs', ['2025-11-25']) }))));
  });
  after(() => stop());

  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    it(`${era}: the client gets an error result at once (not silence until its timeout), then the next call works`, {
      timeout: 60_000,
    }, async () => {
      const c = v2Client(async () => ({ action: 'cancel' }), era === '2026-07-28' ? { mode: 'auto' } : {});
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        assert.equal(c.getNegotiatedProtocolVersion?.(), era);
        const r = await bounded(c.callTool({ name: 'raw__deep', arguments: { levels: DEEP } }), 10_000, 'deep call');
        assert.equal(r.isError, true);
        assert.match(text(r), CAP_TEXT);
        const ok = await bounded(c.callTool({ name: 'raw__deep', arguments: { levels: 2 } }), 10_000, 'next call');
        assert.equal(text(ok), 'deep 2');
      } finally {
        await c.close();
      }
    });
  }
});

describe('an SDK v1 server over Streamable HTTP whose result nests too deeply', () => {
  let peer: ChildProcess;
  let host: Host;
  before(async () => {
    const { child, match } = await spawnListening(
      [fixture('hostile', 'v1-hostile.mjs').args[0], '--http'],
      /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
    );
    peer = child;
    const def = { name: 'hostile', type: 'http', url: match, headers: {}, origin: { file: '<test>', pointer: '/servers/hostile' } };
    host = createHost(gatewayConfig({ hostile: def as HttpServerDef }), { presenter: new HeadlessPresenter() });
  });
  after(async () => {
    await host?.close();
    if (peer) await stopChild(peer);
  });

  it('the call fails with -32600 naming MAX_JSON_DEPTH; one at the cap passes', async () => {
    // The message, result, structuredContent and `levels` arrays: MAX_JSON_DEPTH - 3 arrays reach the cap.
    assert.equal(
      text(await bounded(host.callTool('hostile', 'deep', { levels: MAX_JSON_DEPTH - 3 }), 20_000, 'cap')),
      `deep ${MAX_JSON_DEPTH - 3}`,
    );
    await assert.rejects(bounded(host.callTool('hostile', 'deep', { levels: 3_000 }), 10_000, 'too deep'), CAP_TEXT);
  });
});

describe('a Streamable HTTP server whose response nests too deeply', () => {
  const deep = (levels: number, id: number) => `{"result":{"x":${'['.repeat(levels)}${']'.repeat(levels)}},"jsonrpc":"2.0","id":${id}}`;
  const read = async (body: string, type: string) =>
    (await repairingFetch(async () => new Response(body, { status: 200, headers: { 'content-type': type } }))('x')).text();

  it('JSON body and SSE event: the response becomes a -32600 error of the same id; other events pass unchanged', async () => {
    const json = JSON.parse(await read(deep(DEEP, 4), 'application/json'));
    assert.equal(json.id, 4);
    assert.equal(json.error.code, -32600);
    assert.match(json.error.message, CAP_TEXT);
    // The message, result and `levels` arrays: MAX_JSON_DEPTH - 2 arrays reach the cap.
    const fine = deep(MAX_JSON_DEPTH - 2, 6);
    assert.equal(await read(fine, 'application/json'), fine);
    assert.equal(JSON.parse(await read(deep(MAX_JSON_DEPTH - 1, 7), 'application/json')).error?.code, -32600);
    // In a batch, only the deep element is replaced.
    const batch = JSON.parse(await read(`[${deep(DEEP, 8)},${fine}]`, 'application/json'));
    assert.deepEqual([batch[0].id, batch[0].error?.code, batch[1].id, 'result' in batch[1]], [8, -32600, 6, true]);

    const sse = await read(`event: message\ndata: ${deep(DEEP, 5)}\n\nevent: message\ndata: ${fine}\n\n`, 'text/event-stream');
    const events = [...sse.matchAll(/^data: (.*)$/gm)].map((m) => m[1]);
    assert.equal(events.length, 2, sse.slice(0, 300));
    const e = JSON.parse(events[0]);
    assert.deepEqual([e.id, e.error?.code], [5, -32600]);
    assert.match(e.error.message, CAP_TEXT);
    assert.equal(events[1], fine);
    // An event too long to parse here (over MAX_EVENT_CHARS): the id is read from its ends.
    const long = JSON.parse(/^data: (.*)$/m.exec(await read(`data: ${deep(MAX_EVENT_CHARS / 2 + 1000, 9)}\n\n`, 'text/event-stream'))![1]);
    assert.deepEqual([long.id, long.error?.code], [9, -32600]);
  });

  it('the check is linear: a deep body costs no more than 4x a flat body of the same length, at 100k and 1.6M levels', async () => {
    // A flat body (one long string) is read and parsed in linear time: it is the yardstick, measured in
    // the same moments (its reads alternate with the deep body's), so a loaded machine slows both. The
    // best of 7 reads each: one read descheduled or caught by a GC pause must not count. Measured here: deep ≈ 0.3× flat; parsing before the depth
    // check (the fault 6e3a9e4 fixed) made it 8–22× flat, while its growth from 100k to 1.6M levels
    // (11–52×) overlapped that of the fixed code under load (5–17×), so growth alone could not tell.
    const flat = (levels: number) => `{"result":{"x":"${'a'.repeat(2 * levels)}"},"jsonrpc":"2.0","id":1}`;
    const once = async (body: string) => {
      const t0 = performance.now();
      await read(body, 'application/json');
      return performance.now() - t0;
    };
    await once(deep(10_000, 1));
    for (const levels of [100_000, 1_600_000]) {
      const [flatBody, deepBody] = [flat(levels), deep(levels, 1)];
      let yardstick = Infinity;
      let ms = Infinity;
      for (let i = 0; i < 7; i++) {
        yardstick = Math.min(yardstick, await once(flatBody));
        ms = Math.min(ms, await once(deepBody));
      }
      assert.ok(ms < yardstick * 4, `${levels} levels: ${ms.toFixed(1)} ms, a flat body of the same length ${yardstick.toFixed(1)} ms`);
    }
  });
});
