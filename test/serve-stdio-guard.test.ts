// Malformed lines from a stdio client get the JSON-RPC error, never silence, and never cost the
// connection (src/server/stdio-guard.ts). Before the guard the SDK's StdioServerTransport dropped a line
// that was not JSON without a word, reported a line that was not JSON-RPC only to onerror (silence on the
// wire), and closed the connection at 10 MB without a newline. Checked on `parley serve --stdio` (dist/)
// on 2025-06-18 and on a 2026-07-28 opening, and on the guard itself with every chunking.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { checkStdioLine, guardStdin, MAX_STDIO_LINE_BYTES } from '../src/server/stdio-guard.js';
import type { StdioRefusal } from '../src/server/stdio-guard.js';
import { isolatedEnv } from './helpers/cli.js';
import { fixture } from './fixtures/servers-host/helpers.js';

const MAIN = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
};

/** A `parley serve --stdio` child and the JSON lines it writes. */
function gateway(dir: string) {
  const v2 = fixture('v2', 'v2-dual.mjs');
  const cfg = join(dir, 'parley.json');
  writeFileSync(cfg, JSON.stringify({ mcpServers: { v2: { command: v2.command, args: v2.args } } }));
  const p = spawn(process.execPath, [MAIN, 'serve', '--stdio', '--headless', '--config', cfg, '--store', join(dir, 'g.db')], {
    env: { ...process.env, ...isolatedEnv(dir) },
  }) as ChildProcessWithoutNullStreams;
  const got: Array<Record<string, unknown>> = [];
  let rest = '';
  p.stdout.on('data', (d: Buffer) => {
    const lines = (rest + d.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const l of lines) if (l.trim()) got.push(JSON.parse(l));
  });
  p.stderr.resume();
  const next = async (timeoutMs = 10_000) => {
    const t0 = Date.now();
    while (!got.length) {
      if (Date.now() - t0 > timeoutMs || p.exitCode !== null) throw new Error(`no reply within ${timeoutMs} ms (exit ${p.exitCode})`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return got.shift()!;
  };
  const send = (line: string | Buffer) => new Promise<void>((r) => p.stdin.write(line, () => p.stdin.write('\n', () => r())));
  return { p, next, send, stop: () => p.kill() };
}

const hostile: Array<[string, string, number, unknown]> = [
  ['a line that is not JSON', 'not json', -32700, null],
  ['a batch', JSON.stringify([{ jsonrpc: '2.0', id: 2, method: 'ping' }]), -32600, null],
  ['nesting over MAX_JSON_DEPTH', '['.repeat(100_000) + ']'.repeat(100_000), -32600, null],
  ['an object id', JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }), -32600, null],
  ['no "jsonrpc"', JSON.stringify({ id: 3, method: 'ping' }), -32600, 3],
  ['params that are an array', JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: [1] }), -32600, 4],
  ['a response without result or error', JSON.stringify({ jsonrpc: '2.0', id: 5 }), -32600, null],
];

for (const era of ['2025-06-18', '2026-07-28'] as const) {
  describe(`parley serve --stdio answers malformed lines (${era})`, () => {
    let dir: string;
    let g: ReturnType<typeof gateway>;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'parley-stdio-guard-'));
      g = gateway(dir);
      if (era === '2025-06-18') {
        await g.send(
          JSON.stringify({
            jsonrpc: '2.0',
            id: 'init',
            method: 'initialize',
            params: { protocolVersion: era, capabilities: {}, clientInfo: { name: 't', version: '1' } },
          }),
        );
        assert.equal((await g.next(30_000)).id, 'init');
        await g.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      } else {
        await g.send(JSON.stringify({ jsonrpc: '2.0', id: 'open', method: 'tools/list', params: { _meta: META } }));
        assert.equal((await g.next(30_000)).id, 'open');
      }
    });
    after(() => (g.stop(), rmSync(dir, { recursive: true, force: true })));

    for (const [what, line, code, id] of hostile)
      it(`${what}: ${code}, id ${JSON.stringify(id)}`, async () => {
        await g.send(line);
        const r = (await g.next()) as { id: unknown; error?: { code: number; message: string } };
        assert.equal(r.error?.code, code, JSON.stringify(r));
        assert.equal(r.id, id);
      });

    it('a line over MAX_STDIO_LINE_BYTES (and one over the SDK buffer of 10 MB) is -32600 and the connection stays', async () => {
      for (const n of [MAX_STDIO_LINE_BYTES + 1, 11 * 1024 * 1024]) {
        await g.send(Buffer.alloc(n, 0x61));
        const r = (await g.next()) as { id: unknown; error?: { code: number; message: string } };
        assert.equal(r.error?.code, -32600);
        assert.match(
          r.error?.message ?? '',
          new RegExp(`a message of ${n} bytes, over ${MAX_STDIO_LINE_BYTES} bytes.*MAX_STDIO_LINE_BYTES`),
        );
      }
      const params = era === '2026-07-28' ? { params: { _meta: META } } : {};
      await g.send(JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'tools/list', ...params }));
      const r = await g.next();
      assert.equal(r.id, 'after');
      assert.ok('result' in r, JSON.stringify(r));
    });
  });
}

describe('the stdio line guard', () => {
  it('lets well-formed requests, notifications and responses through', () => {
    for (const m of [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'a' } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 7, result: {} },
      { jsonrpc: '2.0', id: 7, error: { code: -1, message: 'no' } },
    ])
      assert.equal(checkStdioLine(JSON.stringify(m)), undefined, JSON.stringify(m));
  });

  it('never answers a malformed response with its own id (it would read as the answer to a client request)', () => {
    for (const m of [
      { jsonrpc: '2.0', id: 7, result: 'x' },
      { jsonrpc: '2.0', id: 7, error: { code: 'x' } },
      { jsonrpc: '2.0', id: 7, result: {}, error: { code: 1, message: 'x' } },
    ])
      assert.equal(checkStdioLine(JSON.stringify(m))?.id, null, JSON.stringify(m));
  });

  it('splits lines the same whatever the chunking, and keeps no more than one line of an oversized message', async () => {
    const good = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const text = `${good}\r\n\nbad\n${'x'.repeat(100)}\n${good}\n`;
    for (const size of [1, 2, 3, 7, 64, text.length]) {
      const input = new PassThrough();
      const refused: StdioRefusal[] = [];
      const out = guardStdin(input, (r) => refused.push(r), 50);
      const passed: Buffer[] = [];
      out.on('data', (b: Buffer) => passed.push(b));
      const ended = new Promise((r) => out.on('end', r));
      for (let i = 0; i < text.length; i += size) input.write(text.slice(i, i + size));
      input.end();
      await ended;
      assert.equal(Buffer.concat(passed).toString(), `${good}\r\n${good}\n`, `chunk ${size}`);
      assert.deepEqual(
        refused.map((r) => r.error.code),
        [-32700, -32600],
        `chunk ${size}`,
      );
      assert.match(refused[1].error.message, /a message of 100 bytes, over 50 bytes/);
    }
  });
});
