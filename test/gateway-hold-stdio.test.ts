// Issue 15 item 11 for 2026-07-28 clients over stdio, with `parley serve --stdio` as a desktop client
// spawns it: an SDK v2 client on 2026-07-28 that declares no elicitation makes two calls at once; both
// prompts wait in parley's console, the calls get progress naming the console's address (never its
// token), and the answers given in crossed order each reach their own call. With --headless the result
// says why at once and suggests no flag `serve` lacks.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { isolatedEnv, CLI } from './helpers/cli.js';
import { text } from './fixtures/toolkit/peers.js';
import { waitUntil } from './helpers/wait.js';

const ASKER = fileURLToPath(new URL('./fixtures/console/crash-asker.mjs', import.meta.url));

describe('parley serve --stdio: a 2026-07-28 client without elicitation', () => {
  let dir: string;
  let cfg: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'parley-serve-mrtr-'));
    cfg = join(dir, 'parley.json');
    writeFileSync(cfg, JSON.stringify({ mcpServers: { asker: { command: process.execPath, args: [ASKER] } } }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function connect(extra: string[] = []) {
    const stderr: string[] = [];
    const t = new StdioClientTransport({
      command: process.execPath,
      args: [...CLI, 'serve', '--stdio', '--config', cfg, '--db', join(dir, 'g.db'), ...extra],
      stderr: 'pipe',
      cwd: dir,
      env: isolatedEnv(dir),
    });
    t.stderr?.on('data', (d) => stderr.push(String(d)));
    const c = new Client({ name: 'mrtr-desktop', version: '1' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } } as never);
    await c.connect(t);
    // What the gateway sends, read at the transport: SDK v2's client on 2026-07-28 over stdio does not
    // route notifications/progress to the call's onprogress (it reports "unknown token"), so the
    // progress is checked on the wire here; over HTTP (test/gateway-console-hold.test.ts) the client's
    // own onprogress and timeout reset are.
    const progress = new Map<string | number, Array<{ progress: number; message?: string }>>();
    const inner = t.onmessage!;
    t.onmessage = ((
      m: { method?: string; params?: { progressToken: string | number; progress: number; message?: string } },
      e?: unknown,
    ) => {
      if (m.method === 'notifications/progress' && m.params)
        progress.set(m.params.progressToken, [...(progress.get(m.params.progressToken) ?? []), m.params]);
      else (inner as (m: unknown, e?: unknown) => void)(m, e);
    }) as typeof t.onmessage;
    assert.equal(c.getNegotiatedProtocolVersion?.(), '2026-07-28');
    return { c, stderr, progress };
  }

  it('two calls at once wait in the console with progress; answered in crossed order, each gets its own answer', {
    timeout: 120_000,
  }, async () => {
    const { c, stderr, progress } = await connect();
    try {
      const ask = (n: 'a' | 'b') => c.callTool({ name: 'asker__ask', arguments: { n } }, { onprogress: () => undefined, timeout: 60_000 });
      const a = ask('a');
      const b = ask('b');
      const file = () => /its address with the token is in (\S+console-\d+\.url)\)/.exec(stderr.join(''))?.[1];
      assert.ok(await waitUntil(() => !!file(), { ms: 30_000 }), stderr.join(''));
      const url = new URL(readFileSync(file()!, 'utf8').trim());
      const token = url.searchParams.get('token')!;
      const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      type Pending = Array<{ prompt: { id: string; message: string } }>;
      let pending: Pending = [];
      for (const end = Date.now() + 30_000; pending.length < 2; await new Promise((r) => setTimeout(r, 200))) {
        assert.ok(Date.now() < end, `both prompts in the console within 30 s: ${JSON.stringify(pending)}`);
        pending = (await (await fetch(`${url.origin}/api/prompts`, { headers: auth })).json()) as Pending;
      }
      // Past one progress interval (5 000 ms by default) before answering.
      await new Promise((r) => setTimeout(r, 6_000));
      const answer = (n: string, day: string) =>
        fetch(`${url.origin}/api/prompts/${pending.find((p) => p.prompt.message === `Which day (${n})?`)!.prompt.id}/answer`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ action: 'accept', content: { day } }),
        });
      assert.equal((await answer('b', '2025-02-02')).status, 200);
      assert.equal(text(await b), 'day 2025-02-02 for b');
      assert.equal((await answer('a', '2025-01-01')).status, 200);
      assert.equal(text(await a), 'day 2025-01-01 for a');
      assert.equal(progress.size, 2, 'progress for each call, under its own token');
      for (const notes of progress.values()) {
        assert.ok(notes.length >= 2, `${notes.length} progress notifications`);
        assert.ok(
          notes.every((n, i) => i === 0 || n.progress > notes[i - 1].progress),
          'progress increases',
        );
        assert.match(
          notes[0].message ?? '',
          new RegExp(`asker asks for fields day, at, which this client cannot show\\. Answer it in parley's console at ${url.origin}/ `),
        );
        assert.doesNotMatch(notes.map((x) => x.message).join('\n'), new RegExp(`token=|${token}`));
      }
    } finally {
      await c.close();
    }
  });

  it('--headless: the result says at once which server asked for what, suggesting no flag serve lacks', { timeout: 60_000 }, async () => {
    const { c } = await connect(['--headless']);
    try {
      const r = await c.callTool({ name: 'asker__ask', arguments: { n: 'h' } });
      assert.equal(r.isError, true, text(r));
      assert.match(text(r), /^parley: Server "asker" asks for fields day, at \("Which day \(h\)\?"\), but no person can answer here/);
      assert.match(text(r), /the client did not declare elicitation, and this gateway runs without a console/);
      for (const flag of text(r).match(/--[a-z-]+/g) ?? [])
        assert.ok(
          ['--headless', '--stdio', '--http', '--config', '--port', '--db', '--store'].includes(flag),
          `${flag} is not a flag of parley serve: ${text(r)}`,
        );
      assert.doesNotMatch(text(r), /--answers|--preset|--non-interactive|interactively|terminal/);
    } finally {
      await c.close();
    }
  });
});
