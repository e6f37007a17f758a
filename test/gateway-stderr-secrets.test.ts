// A server's stderr must not carry its secrets to a gateway's client. Since start failures and
// mid-call crashes quote the server's last stderr lines (start-failure.ts), a server that prints a token
// from its env, a connection string with a password or an Authorization header would hand them to the
// client (a model, another person's agent) in the tool error. The person running parley (`parley call`,
// the host log) keeps the whole explanation; the client gets the exit code and a short reason, and with
// `gateway.showServerStderr` the tail with every configured value and URL credential as [redacted].
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { clientErrorText, MAX_SECRET_VALUES, secretValues } from '../src/host/servers/client-text.js';
import type { ServerDef } from '../src/host/config/types.js';
import { isolatedEnv, runParley } from './helpers/cli.js';

const MAIN = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
const T = 120_000;
const TOKEN = 'tok-s3cr3t-ABCDEF';
const DB_PASSWORD = 'hunter2-db-pw';
const FILE_PASSWORD = 'pw-from-a-file';
const ENV = { API_TOKEN: TOKEN, DB_URL: `postgres://admin:${DB_PASSWORD}@127.0.0.1:5432/app`, DEBUG: '1' };

// A 2025-06-18 stdio server (plain JSON-RPC lines) that prints its secrets to stderr and dies on tools/call.
const CRASHER = [
  "const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');",
  "require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => {",
  '  const m = JSON.parse(l);',
  "  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {}, prompts: {}, resources: {} }, serverInfo: { name: 'raw', version: '1' } } });",
  "  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'boom', inputSchema: { type: 'object' } }, { name: 'leak', inputSchema: { type: 'object' } }] } });",
  "  else if (m.method === 'prompts/list') send({ jsonrpc: '2.0', id: m.id, result: { prompts: [{ name: 'leak' }] } });",
  "  else if (m.method === 'resources/list') send({ jsonrpc: '2.0', id: m.id, result: { resources: [{ uri: 'raw://leak', name: 'leak' }] } });",
  // A thrown driver error as a JSON-RPC error of prompts/get and resources/read.
  "  else if (m.method === 'prompts/get' || m.method === 'resources/read') send({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: 'cannot connect to ' + process.env.DB_URL + ' with key ' + process.env.API_TOKEN, data: { url: process.env.DB_URL } } });",
  // What an SDK makes of a thrown driver error: an isError result quoting the connection string.
  "  else if (m.method === 'tools/call' && m.params.name === 'leak') send({ jsonrpc: '2.0', id: m.id, result: { isError: true, content: [{ type: 'text', text: 'Error: cannot connect to ' + process.env.DB_URL + ' with key ' + process.env.API_TOKEN }], structuredContent: { url: process.env.DB_URL } } });",
  "  else if (m.method === 'tools/call') {",
  // String concatenation: a `${…}` in args would be a configuration variable.
  "    console.error('Authorization: Bearer ' + process.env.API_TOKEN);",
  "    console.error('connecting to ' + process.env.DB_URL + ' and postgres://svc:" + FILE_PASSWORD + "@127.0.0.1/other');",
  "    console.error('TypeError: rows is undefined');",
  '    process.exit(7);',
  '  }',
  "  else if (m.id !== undefined && m.method) send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no such method' } });",
  '});',
].join('\n');
// A server that prints its token and exits before the handshake.
const NOSTART = "console.error('login with token ' + process.env.API_TOKEN + ' refused'); process.exit(3)";

function writeConfig(dir: string, gateway: Record<string, unknown> = {}): string {
  const cfg = join(dir, 'parley.json');
  writeFileSync(
    cfg,
    JSON.stringify({
      mcpServers: {
        raw: { command: process.execPath, args: ['-e', CRASHER], env: ENV },
        nostart: { command: process.execPath, args: ['-e', NOSTART], env: ENV },
      },
      gateway,
    }),
  );
  return cfg;
}

/** `parley serve --http` on a free port; resolves with its URL once it serves. */
async function startGateway(dir: string, cfg: string): Promise<{ url: string; child: ChildProcess; log: string[] }> {
  const child = spawn(
    process.execPath,
    [MAIN, 'serve', '--http', '--headless', '--port', '0', '--config', cfg, '--db', join(dir, 'g.db')],
    {
      env: { ...process.env, ...isolatedEnv(dir) },
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const log: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`parley serve did not serve within 60 s:\n${log.join('')}`)), 60_000);
    child.stderr!.on('data', (d) => {
      log.push(String(d));
      const m = /serving MCP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(log.join(''));
      if (m) clearTimeout(timer), resolve(m[1]);
    });
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`parley serve exited ${code}:\n${log.join('')}`))));
  });
  return { url, child, log };
}

async function stopGateway(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([gone, new Promise((r) => setTimeout(r, 10_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/** What an SDK v2 client on `revision` sees of a call to `name`: the error result's text, or the thrown error's message. */
async function clientSees(url: string, revision: '2025-11-25' | '2026-07-28', name: string): Promise<string> {
  const c = new Client({ name: 'agent', version: '1' }, revision === '2026-07-28' ? { versionNegotiation: { mode: 'auto' as const } } : {});
  const t = new StreamableHTTPClientTransport(new URL(url));
  await c.connect(t);
  try {
    assert.equal(c.getNegotiatedProtocolVersion(), revision);
    // The crasher is restarted with backoff after each crash: call it once it is listed again (bounded,
    // 30 s), so every revision reaches the crash through a real tools/call, not "unknown tool".
    if (name.startsWith('raw__'))
      for (const until = Date.now() + 30_000; !(await c.listTools()).tools.some((t) => t.name === name); ) {
        assert.ok(Date.now() < until, `${name} was not listed again within 30 s`);
        await new Promise((r) => setTimeout(r, 100));
      }
    const r = await c.callTool({ name, arguments: {} }).catch((e: Error) => ({ thrown: e.message }));
    if ('thrown' in r) return r.thrown as string;
    assert.equal(r.isError, true, JSON.stringify(r));
    const texts = (r.content as Array<{ type: string; text?: string }>).map((x) => x.text ?? '');
    return [...texts, ...(r.structuredContent ? [JSON.stringify(r.structuredContent)] : [])].join('\n');
  } finally {
    await t.terminateSession().catch(() => undefined);
    await c.close();
  }
}

const noSecrets = (text: string) => {
  for (const s of [TOKEN, DB_PASSWORD, FILE_PASSWORD]) assert.ok(!text.includes(s), `"${s}" reached the client: ${text}`);
};

/** `detail.error` of the failed tool calls in the gateway's audit log (its store in `dir`), checked free of secrets. */
async function auditedErrors(dir: string): Promise<string[]> {
  const r = await runParley(['audit', '--json', '--db', join(dir, 'g.db'), '--server', 'raw', '--action', 'failed'], {
    cwd: dir,
    env: isolatedEnv(dir),
  });
  assert.equal(r.code, 0, r.stderr);
  noSecrets(r.stdout);
  return (JSON.parse(r.stdout) as Array<{ kind: string; detail: { error?: string } }>)
    .filter((row) => row.kind === 'tool-call')
    .map((row) => row.detail.error ?? '');
}

describe('a server that prints secrets to stderr, reached through parley serve --http', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  let url: string;
  let log: string[];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-stderr-secrets-'));
    ({ url, child, log } = await startGateway(dir, writeConfig(dir)));
  });
  after(async () => {
    await stopGateway(child);
    rmSync(dir, { recursive: true, force: true });
  });

  for (const revision of ['2025-11-25', '2026-07-28'] as const) {
    it(`${revision}: a crash mid-call says the exit code, not the stderr`, { timeout: T }, async () => {
      const text = await clientSees(url, revision, 'raw__boom');
      noSecrets(text);
      assert.match(
        text,
        /raw\.boom failed: Server "raw" closed the connection while boom was running \(the server process exited with code 7; its stderr is withheld from clients\)/,
      );
      assert.doesNotMatch(text, /TypeError: rows is undefined|Authorization/);
    });

    it(`${revision}: an isError result of the server has its env values redacted`, { timeout: T }, async () => {
      const text = await clientSees(url, revision, 'raw__leak');
      noSecrets(text);
      assert.match(text, /^Error: cannot connect to \[redacted\] with key \[redacted\]\n\{"url":"\[redacted\]"\}$/);
    });

    it(`${revision}: a prompts/get or resources/read error has its env values redacted`, { timeout: T }, async () => {
      const c = new Client(
        { name: 'agent', version: '1' },
        revision === '2026-07-28' ? { versionNegotiation: { mode: 'auto' as const } } : {},
      );
      const t = new StreamableHTTPClientTransport(new URL(url));
      await c.connect(t);
      try {
        assert.equal(c.getNegotiatedProtocolVersion(), revision);
        for (const call of [() => c.getPrompt({ name: 'raw__leak' }), () => c.readResource({ uri: 'raw://leak' })]) {
          const e = await call().then(
            (r) => assert.fail(`no error: ${JSON.stringify(r)}`),
            (e: Error) => e,
          );
          noSecrets(e.message);
          noSecrets(JSON.stringify((e as { data?: unknown }).data ?? null));
          assert.match(e.message, /cannot connect to \[redacted\] with key \[redacted\]/);
        }
      } finally {
        await t.terminateSession().catch(() => undefined);
        await c.close();
      }
    });

    it(`${revision}: a server that cannot start says the exit code, not the stderr`, { timeout: T }, async () => {
      const text = await clientSees(url, revision, 'nostart__anything');
      noSecrets(text);
      assert.match(text, /unavailable: could not start: .*exited with code 3 before the MCP handshake finished; its stderr is withheld/);
      assert.doesNotMatch(text, /login with token/);
    });
  }

  it('its audit log, which tenant admins read, has the failed call without the stderr tail', { timeout: T }, async () => {
    const errors = await auditedErrors(dir);
    assert.ok(
      errors.some((e) => /exited with code 7; its stderr is withheld from clients/.test(e)),
      errors.join('\n'),
    );
    for (const e of errors) assert.doesNotMatch(e, /stderr ended with|TypeError: rows is undefined/);
  });

  it('the operator keeps the whole explanation in the gateway log', { timeout: T }, async () => {
    const all = log.join('');
    assert.match(all, /its stderr ended with: "login with token tok-s3cr3t-ABCDEF refused"/);
  });
});

describe('gateway.showServerStderr: true', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  let url: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-stderr-shown-'));
    ({ url, child } = await startGateway(dir, writeConfig(dir, { showServerStderr: true })));
  });
  after(async () => {
    await stopGateway(child);
    rmSync(dir, { recursive: true, force: true });
  });

  for (const revision of ['2025-11-25', '2026-07-28'] as const) {
    it(`${revision}: the client sees the stderr tail with env values and URL credentials redacted`, { timeout: T }, async () => {
      const text = await clientSees(url, revision, 'raw__boom');
      noSecrets(text);
      assert.match(text, /exited with code 7; its stderr ended with: "Authorization: Bearer \[redacted\]"/);
      assert.match(text, /"connecting to \[redacted\] and postgres:\/\/\[redacted\]@127\.0\.0\.1\/other"/);
      assert.match(text, /"TypeError: rows is undefined"/);
      // DEBUG=1 is too short to be a secret: "code 7" and other digits are left alone.
      assert.doesNotMatch(text, /code \[redacted\]/);
    });
  }

  it('its audit log keeps the stderr tail too, secrets redacted', { timeout: T }, async () => {
    const errors = await auditedErrors(dir);
    assert.ok(
      errors.some((e) => /its stderr ended with: "Authorization: Bearer \[redacted\]"/.test(e)),
      errors.join('\n'),
    );
  });
});

describe('the person running parley call', () => {
  it('still sees the whole stderr tail of the crash; the stored audit row has it without secrets', { timeout: T }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-stderr-person-'));
    try {
      writeConfig(dir);
      const r = await runParley(['call', 'raw', 'boom', '--non-interactive'], { cwd: dir, env: isolatedEnv(dir) });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /exited with code 7; its stderr ended with: "Authorization: Bearer tok-s3cr3t-ABCDEF"/);
      // The audit log is stored (and tenant admins read it over the gateway): the stderr tail, no secret.
      const audit = await runParley(['audit', '--json', '--server', 'raw', '--action', 'failed'], { cwd: dir, env: isolatedEnv(dir) });
      assert.equal(audit.code, 0, audit.stderr);
      const rows = JSON.parse(audit.stdout) as Array<{ detail: { error?: string } }>;
      assert.equal(rows.length, 1, audit.stdout);
      assert.match(rows[0].detail.error ?? '', /its stderr ended with: "Authorization: Bearer \[redacted\]"/);
      noSecrets(audit.stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('clientErrorText', () => {
  it('redacts HTTP header values and JSON-escaped values; strips only what stderrWords wrote', () => {
    const http = {
      name: 'h',
      type: 'http',
      url: 'http://127.0.0.1/mcp',
      headers: { Authorization: 'Bearer hdr-"x"-secret' },
    } as unknown as ServerDef;
    const secrets = secretValues(http);
    const msg = 'fetch failed for Bearer hdr-"x"-secret; its stderr ended with: "saw Bearer hdr-\\"x\\"-secret" | "b \\" | c"';
    assert.equal(
      clientErrorText(msg, { secrets, stderr: true }),
      'fetch failed for [redacted]; its stderr ended with: "saw [redacted]" | "b \\" | c"',
    );
    assert.equal(clientErrorText(msg, { secrets }), 'fetch failed for [redacted]; its stderr is withheld from clients');
    // The cap counts values that are redacted: short ones (DEBUG=1 and the like) do not use it up.
    const many = {
      name: 'm',
      type: 'stdio',
      command: 'x',
      env: { ...Object.fromEntries(Array.from({ length: MAX_SECRET_VALUES }, (_, i) => [`FLAG_${i}`, '1'])), KEY: 'the-real-key' },
    } as unknown as ServerDef;
    assert.deepEqual(secretValues(many), ['the-real-key']);
    // A line cut at 300 characters inside a secret: the start of it before the "…" is redacted too.
    const cut = `its stderr ended with: "${'x'.repeat(290)} Bearer hdr…" | "ok"`;
    assert.equal(clientErrorText(cut, { secrets, stderr: true }), `its stderr ended with: "${'x'.repeat(290)} [redacted]…" | "ok"`);
  });
});
