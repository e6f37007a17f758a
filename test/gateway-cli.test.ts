// `parley serve`: the gateway as a desktop client spawns it (stdio, stdout = MCP only), headless
// failures explained in the tool result, and `parley serve token`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { gatewayIdentities, hashToken, userForAuthorization } from '../src/gateway/index.js';
import { loadConfigValue, mergeLayers } from '../src/host/config/load.js';
import { isolatedEnv, runParley, CLI } from './helpers/cli.js';
import { text } from './fixtures/toolkit/peers.js';
import { waitUntil } from './helpers/wait.js';

const fixture = (f: string) => fileURLToPath(new URL(`./fixtures/servers-host/${f}`, import.meta.url));
const CTX = { cwd: tmpdir(), home: tmpdir(), env: {} };

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
    // In `dir`, with `dir` as HOME: no project or user configuration file of this machine joins --config.
    const t = new StdioClientTransport({
      command: process.execPath,
      args: [...CLI, 'serve', '--stdio', '--config', cfg, '--db', join(dir, 'g.db'), ...extra],
      stderr: 'pipe',
      cwd: dir,
      env: isolatedEnv(dir),
    });
    t.stderr?.on('data', (d) => stderr.push(String(d)));
    const c = new Client({ name: 'desktop', version: '1' }, { capabilities: caps as never });
    if ('elicitation' in caps)
      c.setRequestHandler('elicitation/create', async (r) => ({ action: 'accept', content: { name: `via ${r.params.message}` } }) as never);
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
      assert.match(
        text(r),
        /but no person can answer here: the client did not declare elicitation, and this gateway runs without a console\.$/m,
      );
      // Said once, with clean punctuation (issue 15): no second "v1.ask failed: …" repeating it, no ". (".
      assert.equal(text(r).match(/no person can answer here/g)?.length, 1, text(r));
      assert.doesNotMatch(text(r), /\. \(/);
      // Flags of parley call mean nothing to a gateway's client (issue 15 item 11).
      assert.doesNotMatch(text(r), /--answers|--preset|interactively|terminal/);
      assert.match(stderr.join(''), /no console: prompts the client cannot answer fail at once/);
    } finally {
      await c.close();
    }
  });

  it('--headless, the bundled sales server (2026-07-28) and a client without elicitation: said once, clean punctuation', async () => {
    const salesCfg = join(dir, 'sales.json');
    const sales = fileURLToPath(new URL('../dist/servers/sales/main.js', import.meta.url));
    writeFileSync(salesCfg, JSON.stringify({ mcpServers: { sales: { command: process.execPath, args: [sales] } } }));
    const t = new StdioClientTransport({
      command: process.execPath,
      args: [...CLI, 'serve', '--stdio', '--headless', '--config', salesCfg, '--db', join(dir, 's.db')],
      stderr: 'pipe',
      cwd: dir,
      env: isolatedEnv(dir),
    });
    const c = new Client({ name: 'desktop', version: '1' }, { capabilities: {} });
    await c.connect(t);
    try {
      const r = await c.callTool({ name: 'sales__query_sales', arguments: {} });
      assert.equal(r.isError, true, text(r));
      assert.match(text(r), /^parley: Server "sales" asks for .*, but no person can answer here: the client did not declare/);
      assert.equal(text(r).match(/no person can answer here/g)?.length, 1, text(r));
      assert.doesNotMatch(text(r), /\. \(/);
    } finally {
      await c.close();
    }
  });

  it('a client without elicitation: the prompt waits in the console, whose token is in a 0600 file and on no stderr line', async () => {
    const { c, stderr } = await connect({});
    try {
      const call = c.callTool({ name: 'v1__ask', arguments: {} });
      const announced = () => /server "v1" asks for input.*\n/.exec(stderr.join(''));
      assert.ok(await waitUntil(() => !!announced(), { ms: 30_000 }), stderr.join(''));
      const file = /its address with the token is in (\S+console-\d+\.url)\)/.exec(announced()![0])?.[1];
      assert.ok(file, announced()![0]);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const url = new URL(readFileSync(file, 'utf8').trim());
      const token = url.searchParams.get('token')!;
      assert.match(token, /^[0-9a-f]{32}$/);
      assert.match(announced()![0], new RegExp(`open the console at ${url.origin}/`));
      // A person opens the file's address and answers (here: the console API with the same token).
      const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const prompts = (await (await fetch(`${url.origin}/api/prompts`, { headers: auth })).json()) as Array<{ prompt: { id: string } }>;
      assert.equal(prompts.length, 1);
      const r = await fetch(`${url.origin}/api/prompts/${prompts[0].prompt.id}/answer`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ action: 'accept', content: { name: 'Ada' } }),
      });
      assert.equal(r.status, 200, await r.text());
      assert.equal(text(await call), 'hello Ada');
      assert.ok(!stderr.join('').includes(token), `the token is on no stderr line:\n${stderr.join('')}`);
      await c.close();
      assert.ok(await waitUntil(() => !existsSync(file)), 'the file goes with the gateway');
    } finally {
      await c.close();
    }
  });

  it('two calls at once to one 2025-era server: both prompts reach the client (tagged by session)', async () => {
    const { c } = await connect({ elicitation: {} });
    try {
      const [a, b] = await Promise.all([c.callTool({ name: 'v1__ask', arguments: {} }), c.callTool({ name: 'v1__ask', arguments: {} })]);
      assert.equal(text(a), 'hello via [v1] Your name?');
      assert.equal(text(b), 'hello via [v1] Your name?');
    } finally {
      await c.close();
    }
  });

  it('a message over the line cap is answered -32600 and the gateway goes on serving (never deaf)', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [...CLI, 'serve', '--stdio', '--headless', '--config', cfg, '--db', join(dir, 'big.db')], {
      stdio: ['pipe', 'pipe', 'pipe'],
      cwd: dir,
      env: { ...process.env, ...isolatedEnv(dir) },
    });
    child.stdin.on('error', () => undefined); // the gateway may close its stdin while we still write
    const replies: Array<{ id?: unknown; error?: { code: number; message: string }; result?: unknown }> = [];
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        replies.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
    });
    const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + '\n');
    try {
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      // 12 MiB: over MAX_STDIO_LINE_BYTES (8 MiB) and over the SDK transport's own 10 MB buffer.
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'v1__echo', arguments: { blob: 'x'.repeat(12 * 1024 * 1024) } },
      });
      send({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} });
      assert.ok(
        await waitUntil(() => replies.some((r) => r.id === 3), { ms: 60_000 }),
        `no answer to the tools/list after the oversize line within 60 s (replies: ${JSON.stringify(replies).slice(0, 300)})`,
      );
      const refused = replies.find((r) => r.error?.code === -32600);
      assert.ok(refused, 'the oversize line is answered -32600');
      assert.equal(refused.id, null);
      assert.match(refused.error!.message, /MAX_STDIO_LINE_BYTES/);
      assert.ok(replies.find((r) => r.id === 3)?.result, 'the gateway still serves after the refused line');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('an unknown tool is -32602 naming the scheme', async () => {
    const { c } = await connect({ elicitation: {} });
    try {
      await assert.rejects(
        c.callTool({ name: 'ask', arguments: {} }),
        (e: Error & { code?: number }) => e.code === -32602 && /<server>__<tool>/.test(e.message),
      );
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

it('parley serve token <user> --tenant <t> writes the hash under gateway.tenants.<t>.users, which loads as that tenant', async () => {
  const r = await runParley(['serve', 'token', 'alice', '--tenant', 'acme']);
  assert.equal(r.code, 0, r.stderr);
  const token = /^\s+(pt_\S+)$/m.exec(r.stdout)?.[1];
  assert.ok(token, r.stdout);
  const json = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
  assert.deepEqual(json, { gateway: { tenants: { acme: { users: { alice: { tokenSha256: hashToken(token) } } } } } });
  assert.equal(r.stdout.split(token).length, 2, 'the token appears once');
  // What it prints is valid configuration, and the token then names acme/alice.
  const loaded = loadConfigValue({ ...json, mcpServers: {} }, CTX, '<printed>');
  assert.deepEqual(loaded.issues, []);
  assert.equal(userForAuthorization(`Bearer ${token}`, gatewayIdentities(mergeLayers([loaded.layer!]).gateway)), 'acme/alice');
  const bad = await runParley(['serve', 'token', 'alice', '--tenant', 'a/b']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--tenant "a\/b" must be 1-64 characters/);
});

it('gateway.tenants: a bad tenant name, a plaintext token or a bad servers list is an issue naming its pointer', () => {
  const { issues } = loadConfigValue(
    { mcpServers: {}, gateway: { tenants: { 'a b': { users: {} }, ok: { users: { bob: { token: 'x' } }, servers: 'v1' } } } },
    CTX,
    '<test>',
  );
  const codes = issues.map((i) => `${i.code} ${i.path}`);
  assert.ok(
    codes.some((c) => /invalid-tenant-name .*a b/.test(c)),
    codes.join('; '),
  );
  assert.ok(
    codes.some((c) => /plaintext-token .*tenants\/ok\/users\/bob\/token/.test(c)),
    codes.join('; '),
  );
  assert.ok(
    issues.some((i) => i.path.endsWith('/tenants/ok/servers')),
    codes.join('; '),
  );
  assert.match(issues.find((i) => i.code === 'plaintext-token')!.fix ?? '', /parley serve token bob --tenant ok/);
});

it('a PARLEY_SECRET shorter than 32 bytes stops parley serve at start with a one-line error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-serve-secret-'));
  try {
    const cfg = join(dir, 'parley.json');
    writeFileSync(cfg, JSON.stringify({ mcpServers: { v1: { command: process.execPath, args: [fixture('v1-push.mjs')] } } }));
    const r = await runParley(['serve', '--http', '--headless', '--config', cfg, '--db', join(dir, 'g.db')], {
      env: { PARLEY_SECRET: 'short' },
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /PARLEY_SECRET must be at least 32 bytes \(got 5\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
    writeFileSync(
      cfg,
      JSON.stringify({
        mcpServers: {
          me: {
            command: process.execPath,
            args: [...CLI, 'serve', '--stdio', '--headless', '--config', cfg, '--db', join(dir, 'inner.db')],
          },
        },
      }),
    );
    const t = new StdioClientTransport({
      command: process.execPath,
      args: [...CLI, 'serve', '--stdio', '--headless', '--config', cfg, '--db', join(dir, 'g.db')],
      stderr: 'pipe',
      cwd: dir,
      env: isolatedEnv(dir),
    });
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

it('parley serve --http on a port in use: exit 1 with a clear message', async () => {
  const { createServer } = await import('node:net');
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
  const port = (busy.address() as { port: number }).port;
  const dir = mkdtempSync(join(tmpdir(), 'parley-serve-port-'));
  try {
    const cfg = join(dir, 'parley.json');
    writeFileSync(cfg, JSON.stringify({ mcpServers: { v1: { command: process.execPath, args: [fixture('v1-push.mjs')] } } }));
    const r = await runParley(['serve', '--http', '--port', String(port), '--config', cfg, '--db', join(dir, 'g.db')], {
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`port ${port} is in use`));
  } finally {
    busy.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('parley serve --help', () => {
  it('names the store default the gateway uses ($XDG_STATE_HOME/parley/gateway.db), not the console default', async () => {
    const r = await runParley(['serve', '--help'], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    const help = r.stdout + r.stderr;
    assert.match(help, /parley\/gateway\.db/);
    assert.doesNotMatch(help, /\.parley\/parley\.db/);
  });
});
