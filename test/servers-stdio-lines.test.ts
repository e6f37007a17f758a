// Issue 12 item 5 on stdio: parley reads a stdio server's lines itself (stdio-transport.ts), so nothing the
// server writes is dropped without an answer. A hand-written server (raw-lines.mjs: the fake peer is the
// point here, since parley's reader is under test) writes raw lines no SDK server would, on 2025-06-18 and
// 2025-11-25: `elicitation/create` with params null, an array, a number or garbage gets a -32602 naming
// the rule, an audit row and a notice for the person; a line that is not JSON gets -32700 with id null,
// an audit row and a notice with a bounded excerpt; a JSON array (a batch, gone since 2025-06-18) gets ONE
// -32600 with id null; JSON that is not JSON-RPC gets -32600; a flood of such lines is reported at most
// REFUSED_PER_WINDOW times per window plus one summary; a line over the size cap
// is answered -32602 when its id shows at either end, else reported, and the connection stays usable
// (the SDK's transport closes it at 10 MiB). Ordinary SDK v1/v2 servers and the reference servers work
// through the same transport.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServerManager } from '../src/host/servers/index.js';
import { MAX_STDIO_MESSAGE_BYTES } from '../src/host/servers/stdio-lines.js';
import { LOG_BURST, REFUSED_PER_WINDOW, REFUSED_WINDOW_MS } from '../src/host/servers/stdio-transport.js';
import { ElicitationBroker } from '../src/host/broker/index.js';
import { ScriptedPresenter } from '../src/host/presenter.js';
import type { ServerDef } from '../src/host/config/types.js';
import { MemoryStore } from './fixtures/broker/memoryStore.js';
import { clientInfo, everything, fastStop, fixture, scriptedHandlers, stdioDef, text, ROOT } from './fixtures/servers-host/helpers.js';
import { bounded, sleep, waitUntil } from './helpers/wait.js';
import { verifies } from './helpers/verifies.js';

const CAP = 64 * 1024;
const FILESYSTEM = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url));

type Reply = { jsonrpc?: string; id?: string | number | null; result?: unknown; error?: { code: number; message: string } };

function host(def: ServerDef, maxMessageBytes?: number) {
  const store = new MemoryStore();
  const presenter = new ScriptedPresenter([]);
  const broker = new ElicitationBroker({ presenter, store });
  const logs: string[] = [];
  const m = new ServerManager(
    { raw: def },
    {
      handlers: {
        elicit: broker.elicit,
        malformedMessage: broker.malformedMessage,
        listRoots: async () => ({ roots: [ROOT] }),
      },
      clientInfo,
      stop: fastStop,
      log: (_level, message) => logs.push(message),
      ...(maxMessageBytes !== undefined ? { maxMessageBytes } : {}),
    },
  );
  /** Runs case `name`; the server's collected replies. */
  const run = async (name: string, bytes = 0): Promise<Reply[]> =>
    (JSON.parse(text(await bounded(m.callTool('raw', 'case', { name, bytes }), 25_000, name))) as { got: Reply[] }).got;
  /** The person's `invalid-request` notices and the audit rows of each, after `from` notices. */
  const told = (from: number) =>
    presenter.notices
      .slice(from)
      .filter((n) => n.reason === 'invalid-request')
      .map((n) => ({ message: n.message, rows: store.audit.filter((a) => a.requestId === n.requestId) }));
  return { m, store, presenter, logs, run, told };
}

for (const revision of ['2025-06-18', '2025-11-25'] as const) {
  describe(`parley's stdio reader, a server on ${revision}`, () => {
    let h: ReturnType<typeof host>;
    before(async () => {
      h = host(fixture('raw', 'raw-lines.mjs', [revision]), CAP);
      await h.m.start('raw');
      assert.equal(h.m.info('raw')?.negotiatedRevision, revision);
    });
    after(() => h?.m.stopAll());

    for (const [name, id, got] of [
      ['params-null', 'e-null', 'null'],
      ['params-array', 'e-array', 'an array'],
      ['params-number', 7, 'number'],
      ['params-garbage', 'e-str', 'string'],
    ] as const) {
      it(`elicitation/create with ${name} gets -32602 naming the rule (never silence); the person is told and it is audited`, async () => {
        verifies('ELIC-1125-CLIENT-SHOW-SERVER');
        const from = h.presenter.notices.length;
        const replies = await h.run(name);
        assert.equal(replies.length, 1, JSON.stringify(replies));
        assert.equal(replies[0].id, id);
        assert.equal(replies[0].error?.code, -32602, JSON.stringify(replies));
        assert.match(replies[0].error!.message, new RegExp(`params must be an object \\(got ${got}\\)`));
        const t = h.told(from);
        assert.equal(t.length, 1, 'told once');
        assert.match(t[0].message, /raw sent a request parley could not show/);
        assert.deepEqual(
          t[0].rows.map((a) => a.kind),
          ['request', 'error'],
        );
        assert.equal(t[0].rows[1].detail?.code, -32602);
      });
    }

    it('two malformed requests and a ping in one write each get their own answer', async () => {
      const replies = await h.run('two-bad-and-a-ping');
      const byId = new Map(replies.map((r) => [r.id, r]));
      assert.equal(byId.get('x1')?.error?.code, -32602);
      assert.equal(byId.get('x2')?.error?.code, -32602);
      assert.deepEqual(byId.get('p1')?.result, {});
    });

    it('a line that is not JSON gets -32700 with "id": null, one audit row and one notice with a bounded excerpt', async () => {
      const from = h.presenter.notices.length;
      const replies = await h.run('not-json');
      assert.equal(replies.length, 1);
      assert.equal(replies[0].error?.code, -32700);
      assert.ok(
        'id' in replies[0] && replies[0].id === null,
        `JSON-RPC 2.0 §5: id null when it cannot be known: ${JSON.stringify(replies[0])}`,
      );
      const t = h.told(from);
      assert.equal(t.length, 1, 'told once');
      assert.match(t[0].message, /^raw sent a line that is not JSON: "this is a log line, not JSON \{"; parley answered -32700/);
      assert.deepEqual(
        t[0].rows.map((a) => [a.kind, a.server, a.detail?.reason, a.detail?.message]),
        [['error', 'raw', 'malformed-message', t[0].message]],
      );
      const line = h.logs.find((l) => l.includes('not JSON'));
      assert.match(line ?? '', /server "raw": .*"this is a log line, not JSON \{"/);
    });

    it('a JSON array ([1,2,3]) gets ONE -32600 with "id": null saying batches are not supported; audited and told once', async () => {
      const from = h.presenter.notices.length;
      const replies = await h.run('json-array');
      assert.equal(replies.length, 1, JSON.stringify(replies));
      assert.equal(replies[0].error?.code, -32600);
      assert.ok('id' in replies[0] && replies[0].id === null, JSON.stringify(replies[0]));
      assert.match(replies[0].error!.message, /batches are not supported/);
      const t = h.told(from);
      assert.equal(t.length, 1, 'told once');
      assert.match(
        t[0].message,
        /^raw sent a JSON-RPC batch of 3 element\(s\), which MCP does not support: "\[1,2,3\]"; parley answered -32600 once/,
      );
      assert.deepEqual(
        t[0].rows.map((a) => [a.kind, a.detail?.reason]),
        [['error', 'malformed-message']],
      );
    });

    it('a batch of two ping requests gets one -32600 with "id": null, not an answer per element', async () => {
      const from = h.presenter.notices.length;
      const replies = await h.run('batch');
      assert.deepEqual(
        replies.map((r) => [r.id, r.error?.code]),
        [[null, -32600]],
      );
      assert.equal(h.told(from).length, 1);
    });

    it('JSON that is not JSON-RPC 2.0 gets -32600 (with the id when it is one), reported to the person and audited', async () => {
      const from = h.presenter.notices.length;
      const [old] = await h.run('not-jsonrpc');
      assert.equal(old.id, 'old');
      assert.equal(old.error?.code, -32600);
      assert.match(old.error!.message, /"jsonrpc" must be "2.0"/);
      const t = h.told(from);
      assert.equal(t.length, 1);
      assert.match(t[0].message, /raw sent a "ping" request \(id "old"\) that is not valid JSON-RPC 2\.0/);
      assert.equal(t[0].rows[0]?.detail?.reason, 'malformed-message');
      const [bad] = await h.run('bad-id');
      assert.equal(bad.error?.code, -32600);
      assert.ok('id' in bad && bad.id === null, JSON.stringify(bad));
      assert.match(bad.error!.message, /"id" must be a string or an integer/);
    });

    it('a request over the size cap is answered -32602 with its id (read at either end of the line), reported and audited', async () => {
      for (const [name, id] of [
        ['oversized-request', 'big'],
        ['oversized-request-id-first', 99],
      ] as const) {
        const from = h.presenter.notices.length;
        const [r] = await h.run(name, CAP + 1000);
        assert.equal(r.id, id, name);
        assert.equal(r.error?.code, -32602);
        assert.match(r.error!.message, new RegExp(`over parley's stdio message cap of ${CAP} bytes \\(maxMessageBytes\\)`));
        const t = h.told(from);
        assert.equal(t.length, 1, name);
        assert.match(t[0].message, /raw sent a "elicitation\/create" request .* bytes, over parley's stdio message cap/);
        assert.deepEqual(
          t[0].rows.map((a) => [a.kind, a.detail?.reason]),
          [['error', 'malformed-message']],
        );
      }
    });

    it('an oversized line whose id cannot be read is refused (told, audited, no reply) and the next line is read', async () => {
      const from = h.presenter.notices.length;
      assert.deepEqual(await h.run('oversized-anonymous', CAP * 3), []);
      const t = h.told(from);
      assert.equal(t.length, 1);
      assert.match(t[0].message, /whose id and method could not be read from its first and last 4096 bytes; parley ignored it/);
      const [after] = await h.run('oversized-then-good', CAP);
      assert.deepEqual(after, { jsonrpc: '2.0', id: 'after', result: {} });
      assert.match(h.told(from + 1)[0]?.message ?? '', /"notifications\/message" notification of \d+ bytes/);
      assert.equal(h.m.state('raw').status, 'running');
    });

    it("a response over the cap ends parley's request at once with a clear error; the connection stays usable", async () => {
      await assert.rejects(
        bounded(h.m.callTool('raw', 'huge', { bytes: CAP * 2 }), 10_000, 'huge'),
        /response has \d+ bytes, over parley's stdio message cap of 65536 bytes/,
      );
      assert.equal(text(await h.m.callTool('raw', 'huge', { bytes: 5 })), 'AAAAA');
    });
  });
}

for (const revision of ['2025-06-18', '2025-11-25'] as const) {
  describe(`a ${revision} stdio server that floods parley with garbage lines`, () => {
    let h: ReturnType<typeof host>;
    before(async () => {
      h = host(fixture('raw', 'raw-lines.mjs', [revision]), CAP);
      await h.m.start('raw');
    });
    after(() => h?.m.stopAll());
    const rows = () => h.store.audit.filter((a) => a.server === 'raw' && a.detail?.reason === 'malformed-message');

    it(`50 lines that are not JSON: at most a burst of id-null replies; ${REFUSED_PER_WINDOW} audit rows and notices, then one summary row`, async () => {
      const from = h.presenter.notices.length;
      const replies = await h.run('garbage-flood');
      assert.ok(replies.length >= 1 && replies.length <= LOG_BURST + 2, `${replies.length} replies`);
      assert.ok(
        replies.every((r) => r.error?.code === -32700 && r.id === null),
        JSON.stringify(replies[0]),
      );
      assert.equal(rows().length, REFUSED_PER_WINDOW, 'the first of the window are audited one by one');
      assert.ok(
        await waitUntil(() => rows().length > REFUSED_PER_WINDOW, { ms: REFUSED_WINDOW_MS + 5_000 }),
        'a summary row at the end of the window',
      );
      const all = rows();
      assert.equal(all.length, REFUSED_PER_WINDOW + 1, 'one summary row, no more');
      assert.match(
        String(all.at(-1)?.detail?.message),
        new RegExp(`^raw sent ${50 - REFUSED_PER_WINDOW} more message\\(s\\) parley could not pass on within ${REFUSED_WINDOW_MS} ms`),
      );
      assert.equal(h.told(from).length, REFUSED_PER_WINDOW + 1, 'the person is told as often as the audit log is written');
    });

    it('a server that answers each -32700 with another non-JSON line gets at most a burst of replies, not an endless exchange', async () => {
      await sleep(REFUSED_WINDOW_MS); // a fresh report window
      const before = rows().length;
      const replies = await h.run('garbage-loop');
      assert.ok(replies.length >= 1, 'the first line is answered');
      assert.ok(replies.length <= LOG_BURST + 3, `${replies.length} replies in 2 s (burst ${LOG_BURST}, one more per second)`);
      assert.ok(replies.every((r) => r.error?.code === -32700 && r.id === null));
      assert.ok(rows().length - before <= REFUSED_PER_WINDOW + 1, `${rows().length - before} audit rows`);
    });
  });
}

describe("parley's stdio reader at its default cap (16 MiB; the SDK's transport closes the connection at 10 MiB)", () => {
  it('a 16 MiB + 1 KiB request is answered -32602 and the server keeps running', async () => {
    const h = host(fixture('raw', 'raw-lines.mjs', ['2025-11-25']));
    try {
      await h.m.start('raw');
      const [r] = await h.run('oversized-request', MAX_STDIO_MESSAGE_BYTES + 1024);
      assert.equal(r.id, 'big');
      assert.equal(r.error?.code, -32602);
      assert.match(r.error!.message, /over parley's stdio message cap of 16777216 bytes/);
      // 12 MiB (over the SDK's 10 MiB, under parley's cap) is read like any other message.
      assert.equal(text(await h.m.callTool('raw', 'huge', { bytes: 12 * 1024 * 1024 })).length, 12 * 1024 * 1024);
      assert.equal(h.m.state('raw').status, 'running');
    } finally {
      await h.m.stopAll();
    }
  });
});

describe('ordinary stdio servers work unchanged through the same transport', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-stdio-'));
  const s = scriptedHandlers(() => ({ action: 'accept', content: { answer: 'yes' } }));
  const m = new ServerManager(
    {
      v1: fixture('v1', 'v1-push.mjs'),
      v2: fixture('v2', 'v2-dual.mjs'),
      everything: everything(),
      filesystem: stdioDef('filesystem', [FILESYSTEM, dir]),
    },
    { handlers: s.handlers, clientInfo, stop: fastStop },
  );
  after(async () => {
    await m.stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('SDK v1 and v2 servers, server-everything and server-filesystem start (one process each), list tools and answer calls', async () => {
    verifies(['ERA-DUAL-FALLBACK', 'ERA-DUAL-MODERN']);
    const res = await Promise.all(['v1', 'v2', 'everything', 'filesystem'].map((n) => m.start(n).then(() => n)));
    assert.deepEqual(res, ['v1', 'v2', 'everything', 'filesystem']);
    assert.deepEqual(
      ['v1', 'v2', 'everything', 'filesystem'].map((n) => [n, m.info(n)?.era, m.info(n)?.transport]),
      [
        ['v1', 'legacy', 'stdio'],
        ['v2', 'modern', 'stdio'],
        ['everything', 'legacy', 'stdio'],
        ['filesystem', 'legacy', 'stdio'],
      ],
    );
    assert.equal(text(await m.callTool('v1', 'echo')), 'echo');
    assert.ok((await m.listTools('v2')).tools.some((t) => t.name === 'ask'));
    assert.equal(text(await m.callTool('everything', 'echo', { message: 'hi 你好' })), 'Echo: hi 你好');
    const allowed = text(await m.callTool('filesystem', 'list_allowed_directories', {}));
    assert.ok(allowed.includes(dir), allowed);
  });
});
