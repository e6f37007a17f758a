// `parley serve`: the gateway as a desktop client spawns it (stdio, stdout = MCP only), headless
// failures explained in the tool result, and `parley serve token`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { hashToken } from '../src/gateway/index.js';
import { runParley } from './helpers/cli.js';
import { text } from './fixtures/toolkit/peers.js';

const fixture = (f: string) => fileURLToPath(new URL(`./fixtures/servers-host/${f}`, import.meta.url));
const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

describe('parley serve --stdio', () => {
  let dir: string;
  let cfg: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'parley-serve-'));
    cfg = join(dir, 'parley.json');
    writeFileSync(cfg, JSON.stringify({ mcpServers: { v1: { command: process.execPath, args: [fixture('v1-push.mjs')] } } }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function connect(caps: Record<string, unknown>, extra: string[] = []) {
    const stderr: string[] = [];
    const t = new StdioClientTransport({ command: process.execPath, args: ['--import', import.meta.resolve('tsx'), MAIN, 'serve', '--stdio', '--config', cfg, '--db', join(dir, 'g.db'), ...extra], stderr: 'pipe' });
    t.stderr?.on('data', (d) => stderr.push(String(d)));
    const c = new Client({ name: 'desktop', version: '1' }, { capabilities: caps as never });
    if ('elicitation' in caps) c.setRequestHandler('elicitation/create', async (r) => ({ action: 'accept', content: { name: `via ${r.params.message}` } }) as never);
    await c.connect(t);
    return { c, stderr };
  }

  it('a client that can elicit gets the downstream prompt, with the server named', async () => {
    const { c } = await connect({ elicitation: {} });
    try {
      assert.deepEqual((await c.listTools()).tools.map((t) => t.name).sort(), ['v1__ask', 'v1__echo']);
      assert.equal(text(await c.callTool({ name: 'v1__ask', arguments: {} })), 'hello via [v1] Your name?');
    } finally {
      await c.close();
    }
  });

  it('--headless and a client without elicitation: the tool result says why, nothing waits', async () => {
    const { c, stderr } = await connect({}, ['--headless']);
    try {
      const r = await c.callTool({ name: 'v1__ask', arguments: {} });
      assert.equal(r.isError, true, text(r));
      assert.match(text(r), /^parley: Server "v1" asks for fields name \("Your name\?"\), but no person can answer here/);
      assert.match(text(r), /the client did not declare elicitation, and this gateway runs without a console/);
      assert.match(stderr.join(''), /no console: prompts the client cannot answer fail at once/);
    } finally {
      await c.close();
    }
  });

  it('an unknown tool is -32602 naming the scheme', async () => {
    const { c } = await connect({ elicitation: {} });
    try {
      await assert.rejects(c.callTool({ name: 'ask', arguments: {} }), (e: Error & { code?: number }) => e.code === -32602 && /<server>__<tool>/.test(e.message));
    } finally {
      await c.close();
    }
  });
});

it('parley serve token <user> prints a token once and only its hash for the configuration', async () => {
  const r = await runParley(['serve', 'token', 'alice']);
  assert.equal(r.code, 0, r.stderr);
  const token = /^\s+(pt_\S+)$/m.exec(r.stdout)?.[1];
  assert.ok(token, r.stdout);
  const json = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
  assert.equal(json.gateway.users.alice.tokenSha256, hashToken(token));
  assert.equal(r.stdout.split(token).length, 2, 'the token appears once');
});

it('parley serve without a transport is a usage error', async () => {
  const r = await runParley(['serve']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /choose one transport: --stdio or --http/);
});

it('a configuration that lists parley serve itself does not start parley inside parley', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-serve-loop-'));
  try {
    const cfg = join(dir, 'parley.json');
    writeFileSync(cfg, JSON.stringify({ mcpServers: { me: { command: process.execPath, args: ['--import', import.meta.resolve('tsx'), MAIN, 'serve', '--stdio', '--headless', '--config', cfg, '--db', join(dir, 'inner.db')] } } }));
    const t = new StdioClientTransport({ command: process.execPath, args: ['--import', import.meta.resolve('tsx'), MAIN, 'serve', '--stdio', '--headless', '--config', cfg, '--db', join(dir, 'g.db')], stderr: 'pipe' });
    const err: string[] = [];
    t.stderr?.on('data', (d) => err.push(String(d)));
    const c = new Client({ name: 'desktop', version: '1' });
    await c.connect(t);
    try {
      const tools = await c.listTools();
      assert.deepEqual(tools.tools, [], 'the inner gateway refused to start, so it offers nothing');
      assert.match(err.join(''), /me.*(left out|closed|exited|error)/is);
    } finally {
      await c.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
