// A stdio server that does not start, as a person running servers meets it: the reason the CLI prints
// must say what happened to the process (exit code or signal, a command that is not there) and quote
// the server's own last stderr lines, where the real cause usually is ("DATABASE_URL is not set").
// Before, every such start read "could not start: Connection closed" and the stderr was only in the
// console's "Recent stderr".
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { isolatedEnv, runParley } from './helpers/cli.js';

const T = 120_000;

describe('a stdio server that fails to start says why', () => {
  it('exit code, signal, missing command and a silent start quote the stderr of that start', { timeout: T }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-cli-start-'));
    try {
      const node = process.execPath;
      const config = {
        mcpServers: {
          crash: {
            command: node,
            args: ['-e', "console.error('starting'); console.error('boom: DATABASE_URL is not set'); process.exit(3)"],
          },
          killed: { command: 'sh', args: ['-c', 'echo dying >&2; kill -9 $$'] },
          nocmd: { command: 'parley-no-such-command-xyz' },
          slow: {
            command: node,
            args: ['-e', "console.error('waiting for the database at db:5432'); setInterval(() => {}, 1000)"],
            timeouts: { startupMs: 1500 },
          },
        },
      };
      writeFileSync(join(dir, 'parley.json'), JSON.stringify(config));
      const r = await runParley(['servers', '--start'], { cwd: dir, env: isolatedEnv(dir) });
      assert.equal(r.code, 1, r.stderr);
      const line = (name: string) => r.stdout.split('\n').find((l) => l.startsWith(`${name}\t`)) ?? `(no line for ${name})\n${r.stdout}`;
      assert.match(
        line('crash'),
        /could not start: .*the server process exited with code 3 before the MCP handshake finished; its stderr ended with: "starting" \| "boom: DATABASE_URL is not set"$/,
      );
      assert.match(
        line('killed'),
        /the server process was ended by SIGKILL before the MCP handshake finished; its stderr ended with: "dying"$/,
      );
      assert.match(
        line('nocmd'),
        /spawn parley-no-such-command-xyz ENOENT: the command "parley-no-such-command-xyz" was not found \(fix the server's "command"/,
      );
      assert.match(
        line('slow'),
        /did not connect within startupMs = 1500 ms; its stderr ended with: "waiting for the database at db:5432"$/,
      );

      const call = await runParley(['call', 'crash', 'anything', '--non-interactive'], { cwd: dir, env: isolatedEnv(dir) });
      assert.equal(call.code, 1, call.stderr);
      assert.match(
        call.stderr,
        /exited with code 3 before the MCP handshake finished; its stderr ended with: .*"boom: DATABASE_URL is not set"/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a server that dies during a tool call: the call error says how it ended and quotes its stderr', { timeout: T }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-cli-crash-'));
    try {
      // A minimal 2025-06-18 stdio server (plain JSON-RPC lines) whose one tool crashes the process.
      const server = [
        "const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');",
        "require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => {",
        '  const m = JSON.parse(l);',
        "  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } });",
        "  else if (m.method === 'tools/call') { console.error('TypeError: rows is undefined'); process.exit(7); }",
        "  else if (m.id !== undefined && m.method) send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no such method' } });",
        '});',
      ].join('\n');
      writeFileSync(join(dir, 'parley.json'), JSON.stringify({ mcpServers: { raw: { command: process.execPath, args: ['-e', server] } } }));
      const r = await runParley(['call', 'raw', 'boom', '--non-interactive'], { cwd: dir, env: isolatedEnv(dir) });
      assert.equal(r.code, 1, r.stderr);
      assert.match(
        r.stderr,
        /Server "raw" closed the connection while boom was running \(the server process exited with code 7; its stderr ended with: "TypeError: rows is undefined"\)/,
      );
      // A one-shot command restarts nothing (its process ends with the call): it says so, not "restarted with backoff".
      assert.match(
        r.stderr,
        /\); it is not restarted: this host does not restart servers \(a one-shot command such as parley call ends here; run it again to start the server anew\)\./,
      );
      assert.doesNotMatch(r.stderr, /restarted with backoff|restarted in \d+ ms|restarting in/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a remote server that cannot be reached says why the fetch failed (connection refused)', { timeout: T }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-cli-remote-'));
    try {
      // A port on 127.0.0.1 that nothing listens on: listen on 0, note it, close it.
      const port = await new Promise<number>((resolve) => {
        const srv = createServer().listen(0, '127.0.0.1', () => {
          const p = (srv.address() as { port: number }).port;
          srv.close(() => resolve(p));
        });
      });
      // Loopback only: an unknown host name would be a DNS query off this machine.
      writeFileSync(join(dir, 'parley.json'), JSON.stringify({ mcpServers: { down: { url: `http://127.0.0.1:${port}/mcp` } } }));
      const r = await runParley(['servers', '--start'], { cwd: dir, env: isolatedEnv(dir) });
      assert.equal(r.code, 1, r.stderr);
      assert.match(
        r.stdout,
        new RegExp(`^down\\thttp\\terror: could not start: .*fetch failed: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`, 'm'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
