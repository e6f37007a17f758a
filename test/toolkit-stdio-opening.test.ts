// serve({stdio: true}) decides a connection's era from its opening message (src/server/stdio.ts): a plain
// 2025-era `initialize` is connected straight to the SDK's stdio transport, every other opening goes to
// the SDK's serveStdio. Raw JSON lines against the fixture server, so the tests control what arrives in
// one chunk: messages that come with the opening must be served in order, whichever side takes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { exitOf } from './helpers/cli.js';
import { WAIT_MS } from './helpers/wait.js';

const FIXTURE = ['--import', 'tsx', 'test/fixtures/toolkit/server.ts'];
/** Bound for the first message of a child: a cold tsx start took up to 15 s on a loaded 2-core machine. */
const START_MS = 60_000;
type Msg = { id?: number | string; method?: string; result?: any; error?: { code: number; message: string } };

/** The fixture server as raw lines: `write` sends lines in one chunk, `next` waits for a message. */
function wire(args = FIXTURE) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const got: Msg[] = [];
  const waiters = new Set<() => void>();
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    buf += d;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      got.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
    }
    for (const w of waiters) w();
  });
  child.stderr.resume();
  return {
    got,
    write: (...msgs: object[]) => child.stdin.write(msgs.map((m) => `${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`).join('')),
    /**
     * The first message after `from` (an index into `got`) that `ok` accepts; throws after WAIT_MS, or
     * START_MS while the server has sent nothing yet (its wait includes the child's cold tsx start).
     */
    next(ok: (m: Msg) => boolean, from = 0): Promise<Msg> {
      const bound = got.length === 0 ? START_MS : WAIT_MS;
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = got.slice(from).find(ok);
          if (!m) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(m);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching message within ${bound} ms; got ${JSON.stringify(got).slice(0, 400)}`));
        }, bound);
        waiters.add(check);
        check();
      });
    },
    close: () => {
      const exited = exitOf(child);
      child.stdin.end();
      setTimeout(() => child.kill(), WAIT_MS).unref();
      return exited;
    },
  };
}

const initialize = (id: number, _meta?: object) => ({
  id,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: { elicitation: { form: {} } },
    clientInfo: { name: 't', version: '1' },
    ...(_meta && { _meta }),
  },
});
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
};

test('stdio, 2025-11-25: initialize, initialized, tools/list and a tools/call in one chunk are served in order', async () => {
  const w = wire();
  try {
    w.write(
      initialize(1),
      { method: 'notifications/initialized' },
      { id: 2, method: 'tools/list' },
      { id: 3, method: 'tools/call', params: { name: 'greet', arguments: {} } },
    );
    const init = await w.next((m) => m.id === 1);
    assert.equal(init.result?.protocolVersion, '2025-11-25');
    const list = await w.next((m) => m.id === 2);
    assert.ok(list.result?.tools.some((t: { name: string }) => t.name === 'greet'));
    assert.ok(w.got.indexOf(init) < w.got.indexOf(list), 'initialize is answered before tools/list');
    const ask = await w.next((m) => m.method === 'elicitation/create');
    w.write({ id: ask.id, result: { action: 'accept', content: { name: 'Ada' } } });
    const done = await w.next((m) => m.id === 3);
    assert.equal(done.result?.content[0].text, 'hello Ada');
  } finally {
    await w.close();
  }
});

test('stdio, 2025 era without initialize: a claim-less tools/list as the opening is answered (serveStdio decides)', async () => {
  const w = wire();
  try {
    w.write({ id: 1, method: 'tools/list' }, { id: 2, method: 'ping' });
    const list = await w.next((m) => m.id === 1);
    assert.ok(
      list.result?.tools.some((t: { name: string }) => t.name === 'greet'),
      JSON.stringify(list),
    );
    assert.deepEqual((await w.next((m) => m.id === 2)).result, {});
  } finally {
    await w.close();
  }
});

test('stdio, 2026-07-28: server/discover and a tools/call in one chunk are served on the modern era, in order', async () => {
  const w = wire();
  try {
    w.write(
      { id: 1, method: 'server/discover', params: { _meta: ENVELOPE } },
      { id: 2, method: 'tools/call', params: { name: 'greet', arguments: {}, _meta: ENVELOPE } },
    );
    const discover = await w.next((m) => m.id === 1);
    assert.ok(discover.result?.supportedVersions?.includes('2026-07-28'), JSON.stringify(discover));
    const call = await w.next((m) => m.id === 2);
    assert.equal(call.result?.resultType, 'input_required', JSON.stringify(call));
    assert.ok(call.result?.inputRequests?.e0, 'the elicitation comes back as an input request, not a pushed request');
    assert.ok(!w.got.some((m) => m.method === 'elicitation/create'));
  } finally {
    await w.close();
  }
});

test('stdio: an initialize that claims 2026-07-28 in _meta is not served as a 2025-era initialize', async () => {
  const w = wire();
  try {
    w.write(initialize(1, ENVELOPE));
    const r = await w.next((m) => m.id === 1);
    assert.notEqual(r.result?.protocolVersion, '2025-11-25', JSON.stringify(r));
  } finally {
    await w.close();
  }
});

test('stdio: when the factory throws, the opening request of either era is answered -32603, never left hanging', async () => {
  for (const opening of [initialize(1), { id: 1, method: 'server/discover', params: { _meta: ENVELOPE } }]) {
    const w = wire(['--import', 'tsx', 'test/fixtures/toolkit/throwing-server.ts']);
    try {
      w.write(opening);
      const r = await w.next((m) => m.id === 1);
      assert.equal(r.error?.code, -32603, JSON.stringify(r));
    } finally {
      await w.close();
    }
  }
});

test('OpenedWire: messages that arrive before the taker starts are held and delivered after the opening one, in order', async () => {
  const { PassThrough } = await import('node:stream');
  const { StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  const { OpenedWire } = await import('../src/server/stdio.js');
  const stdin = new PassThrough();
  const wire = new StdioServerTransport(stdin, new PassThrough());
  let opened: InstanceType<typeof OpenedWire> | undefined;
  wire.onmessage = (first) => {
    opened ??= new OpenedWire(wire, first);
  };
  await wire.start();
  const line = (id: number) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`;
  stdin.write(line(1) + line(2));
  stdin.write(line(3));
  await new Promise((r) => setImmediate(r));
  assert.ok(opened, 'the opening message created the opened wire');
  const seen: unknown[] = [];
  opened.onmessage = (m) => seen.push((m as { id: number }).id);
  assert.deepEqual(seen, [], 'nothing is delivered before start');
  await opened.start();
  assert.deepEqual(seen, [1, 2, 3]);
  stdin.write(line(4));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen, [1, 2, 3, 4], 'after start, messages pass straight through');
  await opened.close();
});
