// One contract for flags (issue: "CLI as people meet it"): on every command, an unknown option or a value
// option without its value is one line on stderr and exit 2; an unknown command too; a busy port is one
// line and exit 1, never a stack trace.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { main, runCli } from '../src/cli/main.js';
import { resolveCommand } from '../src/cli/flags.js';
import { isolatedEnv, runParley } from './helpers/cli.js';

const T = 120_000;

/**
 * Runs the CLI in process, reading what runCli writes through its `io` (the test runner's own output on
 * process.stdout is left alone). Only for runs that stop at the flag check, before a command writes.
 */
async function inProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { out: (t) => void (stdout += t), err: (t) => void (stderr += t) });
  return { code, stdout, stderr };
}

/** Every command path, e.g. ['serve'], ['serve', 'token'], read from the command tree itself. */
async function commandPaths(): Promise<string[][]> {
  const paths: string[][] = [];
  const walk = async (prefix: string[]) => {
    const { leaf } = await resolveCommand(main, prefix, false);
    const subs = (typeof leaf.subCommands === 'function' ? await leaf.subCommands() : await leaf.subCommands) as
      | Record<string, unknown>
      | undefined;
    for (const name of Object.keys(subs ?? {})) {
      paths.push([...prefix, name]);
      await walk([...prefix, name]);
    }
  };
  await walk([]);
  return paths;
}

function listen(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

describe('parley flags: one contract on every command', () => {
  it('an unknown option is one line and exit 2 on every command and subcommand', { timeout: T }, async () => {
    const paths = await commandPaths();
    assert.ok(paths.length >= 10, `found ${paths.length} commands`);
    for (const path of paths) {
      const r = await inProcess([...path, '--frobnicate']);
      assert.equal(r.code, 2, `parley ${path.join(' ')} --frobnicate: exit ${r.code}\n${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`^parley: ${path.join(' ')}: unknown option --frobnicate \\(see parley ${path.join(' ')} --help\\)`),
      );
    }
  });
  it('a value option without its value is one line and exit 2', { timeout: T }, async () => {
    for (const args of [
      ['servers', '--config'],
      ['up', '--port'],
      ['serve', '--port'],
      ['lint', 'x.json', '--revision'],
    ]) {
      const r = await inProcess(args);
      assert.equal(r.code, 2, `parley ${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /needs a value/);
    }
  });
  it('--no-<flag> is accepted only for boolean flags', { timeout: T }, async () => {
    const r = await inProcess(['servers', '--no-config']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown option --no-config/);
  });
  it('parley --frobnicate and an unknown command: one line, exit 2, no stack trace (child process)', { timeout: T }, async () => {
    const [flag, cmd, up, serve] = await Promise.all([
      runParley(['--frobnicate']),
      runParley(['frobnicate']),
      runParley(['up', '--frobnicate']),
      runParley(['serve', '--stdio', '--frobnicate']),
    ]);
    for (const [r, re] of [
      [flag, /^parley: unknown option --frobnicate \(see parley --help\)\n$/],
      [cmd, /^parley: unknown command "frobnicate" \(see parley --help\)\n$/],
      [up, /^parley: up: unknown option --frobnicate/],
      [serve, /^parley: serve: unknown option --frobnicate/],
    ] as const) {
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, re);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    }
  });
  it('a busy port is one line and exit 1 for parley up and parley serve --http', { timeout: T }, async () => {
    const { server, port } = await listen();
    try {
      const [up, serve] = await Promise.all([
        runParley(['up', '--port', String(port)]),
        runParley(['serve', '--http', '--port', String(port)]),
      ]);
      for (const r of [up, serve]) {
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, new RegExp(`parley: port ${port} is in use; choose another with --port, or 0 for any free port\\n$`));
        assert.doesNotMatch(r.stderr, /EADDRINUSE|\n\s+at /);
      }
    } finally {
      server.close();
    }
  });
});

describe('parley --config <file> that cannot be read', () => {
  it('a UTF-16 --config file is exit 2 with its one-line error, not a run with the other files', { timeout: T }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-cli-badcfg-'));
    try {
      writeFileSync(join(dir, 'bad.json'), Buffer.from('\ufeff{"mcpServers":{}}', 'utf16le'));
      writeFileSync(join(dir, 'parley.json'), JSON.stringify({ mcpServers: { other: { command: 'true' } } }));
      const r = await runParley(['call', '--config', 'bad.json', 'other', 'x', '--non-interactive'], {
        cwd: dir,
        env: isolatedEnv(dir),
      });
      assert.equal(r.code, 2, r.stderr);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0], /bad\.json: error: the file is UTF-16LE; parley reads UTF-8/);
      assert.doesNotMatch(r.stderr, /other|Connection closed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
