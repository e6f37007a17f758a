// 2025-11-25 URL mode through the gateway: when the downstream server reports the browser step
// complete (notifications/elicitation/complete), the upstream client that consented hears it too,
// under the elicitationId the gateway sent it, and no other client does (client/elicitation
// §Completion Notifications). Real peers: the SDK v2 legacy server over stdio and the SDK v1 server
// over Streamable HTTP downstream (test/helpers/peers/sdk-server.mjs: its `login` tool sends the
// completion after an accept); upstream, SDK v2 clients on 2025-11-25 over HTTP (two sessions, or two
// calls of one session, overlapping with crossed answer timings) and over stdio (`parley serve
// --stdio`, two overlapping calls in one session); two users of one gateway (gateway.users tokens)
// whose hosts number their prompts alike, with a 2026-07-28 client beside them that hears none.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Client } from '@modelcontextprotocol/client';
import { createGateway, hashToken } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import type { HostConfig } from '../src/host/index.js';
import { stdioDef } from './fixtures/servers-host/helpers.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';
import { CLI, isolatedEnv } from './helpers/cli.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';
import { SDK_SERVER, startSdkHttpPeer } from './helpers/peers.js';
import type { HttpPeer } from './helpers/peers.js';

const CALL_MS = 60_000;
const T = { timeout: 180_000 };

/**
 * An upstream 2025-11-25 client that accepts every URL prompt and records what it was sent and told.
 * `delayMs`: how long it takes to answer; a list gives the n-th prompt the n-th delay (the last one for
 * the rest), so `[300, 10]` answers the first prompt after the second.
 */
function consentingClient(
  delayMs: number | number[],
  opts: { mode?: 'auto' } = {},
): { client: Client; sent: string[]; completed: string[] } {
  const sent: string[] = [];
  const completed: string[] = [];
  const delays = Array.isArray(delayMs) ? delayMs : [delayMs];
  const client = v2Client(
    (async (r: { params: { mode?: string; elicitationId?: string } }) => {
      assert.equal(r.params.mode, 'url');
      const delay = delays[Math.min(sent.length, delays.length - 1)];
      sent.push(String(r.params.elicitationId));
      await new Promise((res) => setTimeout(res, delay));
      return { action: 'accept' };
    }) as never,
    opts,
  );
  client.setNotificationHandler('notifications/elicitation/complete', (n) => void completed.push(n.params.elicitationId));
  return { client, sent, completed };
}

/**
 * Two overlapping calls of `tool` in one session of `c` (made with delays that cross its answers): each
 * elicitationId it was sent is completed once, and no other.
 */
async function twoOverlappingLogins(c: ReturnType<typeof consentingClient>, tool: string): Promise<void> {
  const call = () => c.client.callTool({ name: tool, arguments: {} }, { timeout: CALL_MS });
  const results = await Promise.all([call(), call()]);
  assert.deepEqual(results.map(text), ['url accept', 'url accept']);
  assert.equal(new Set(c.sent).size, 2, 'two prompts, two elicitationIds');
  await until(() => c.completed.length >= 2, 'both completions relayed');
  await new Promise((r) => setTimeout(r, 200)); // a stray second completion would show here
  assert.deepEqual([...c.completed].sort(), [...c.sent].sort());
}

/** Waits (bounded) until `pred()` holds; the completion may arrive just after the tool result. */
async function until(pred: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('gateway: a downstream URL-mode completion reaches the upstream client that consented', () => {
  let peer: HttpPeer;
  let url: string;
  let stop: () => Promise<void>;
  let gw: Gateway;
  before(async () => {
    peer = await startSdkHttpPeer('v1');
    const servers: HostConfig['servers'] = {
      stdio: stdioDef('stdio', [SDK_SERVER, 'v2-legacy']),
      http: { name: 'http', type: 'http', url: peer.url, headers: {} } as never,
    };
    gw = createGateway(gatewayConfig(servers));
    ({ url, stop } = await serveGateway(gw));
  });
  after(async () => {
    await stop();
    await peer.stop();
  });

  it('HTTP downstream, two HTTP sessions, calls overlapping, answers crossed: each client hears its own completion only', T, async () => {
    const slow = consentingClient(300);
    const fast = consentingClient(10);
    await slow.client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await fast.client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const call = (c: Client) => c.callTool({ name: 'http__login', arguments: {} }, { timeout: CALL_MS });
      const [a, b] = await Promise.all([call(slow.client), call(fast.client)]);
      assert.equal(text(a), 'url accept');
      assert.equal(text(b), 'url accept');
      assert.equal(slow.sent.length, 1);
      assert.equal(fast.sent.length, 1);
      assert.notEqual(slow.sent[0], fast.sent[0], 'each prompt has its own elicitationId');
      await until(() => slow.completed.length > 0 && fast.completed.length > 0, 'both completions relayed');
      await new Promise((r) => setTimeout(r, 200)); // a stray second or crossed completion would show here
      assert.deepEqual(slow.completed, slow.sent);
      assert.deepEqual(fast.completed, fast.sent);
    } finally {
      await slow.client.close();
      await fast.client.close();
    }
  });

  // A 2025-era stdio server's pushed request names no call: with calls of two sessions in flight it
  // cannot be attributed (src/host/servers/calls.ts), so the overlap here is within one session.
  it('stdio downstream, one HTTP session, two calls overlapping, answers crossed: each elicitationId is completed once', T, async () => {
    const c = consentingClient([300, 10]); // the first prompt is answered after the second
    await c.client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      await twoOverlappingLogins(c, 'stdio__login');
    } finally {
      await c.client.close();
    }
  });

  it('a completion sent after the call has ended reaches the client as a session notification (HTTP GET stream)', T, async () => {
    const c = consentingClient(0);
    await c.client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const r = await c.client.callTool({ name: 'stdio__login-later', arguments: {} }, { timeout: CALL_MS });
      assert.equal(text(r), 'url accept');
      assert.equal(c.completed.length, 0, 'the server completes 100 ms after the result');
      await until(() => c.completed.length > 0, 'the late completion relayed');
      assert.deepEqual(c.completed, c.sent);
    } finally {
      await c.client.close();
    }
  });

  it('a completion the server sends before the client has answered is relayed once the client consents', T, async () => {
    // The server completes 100 ms after asking; the client answers after 2 s. (Were the completion to
    // come after the answer on a starved machine, the ordinary relay would pass this too: never a flake.)
    const c = consentingClient(2_000);
    await c.client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const r = await c.client.callTool({ name: 'stdio__login-early', arguments: {} }, { timeout: CALL_MS });
      assert.equal(text(r), 'url accept');
      await until(() => c.completed.length > 0, 'the early completion relayed');
      await new Promise((res) => setTimeout(res, 200)); // a second relay would show here
      assert.deepEqual(c.completed, c.sent);
      assert.equal(gw.space('default').bridge.awaitingCompletions, 0, 'nothing left waiting');
    } finally {
      await c.client.close();
    }
  });

  it(
    "a hostile server completes ids it never used (a random one, the gateway's own in-1/in-2) and its own twice: the client hears its id once",
    T,
    async () => {
      const c = consentingClient(0);
      await c.client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const r = await c.client.callTool({ name: 'stdio__login-noisy', arguments: {} }, { timeout: CALL_MS });
        assert.equal(text(r), 'url accept');
        await until(() => c.completed.length > 0, 'the completion relayed');
        await new Promise((res) => setTimeout(res, 300)); // a second relay would show here
        assert.deepEqual(c.completed, c.sent);
      } finally {
        await c.client.close();
      }
    },
  );

  it('a session that closes forgets its prompts still awaiting completion (nobody is left to tell)', T, async () => {
    const bridge = gw.space('default').bridge;
    const before = bridge.awaitingCompletions;
    const c = consentingClient(0);
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await c.client.connect(transport);
    try {
      const r = await c.client.callTool({ name: 'stdio__login-silent', arguments: {} }, { timeout: CALL_MS });
      assert.equal(text(r), 'url accept');
      assert.equal(bridge.awaitingCompletions, before + 1, 'the consented prompt awaits its completion');
    } finally {
      await transport.terminateSession(); // DELETE: the gateway closes the session
      await c.client.close();
    }
    await until(() => bridge.awaitingCompletions === before, 'the closed session forgotten');
    assert.deepEqual(c.completed, []);
  });
});

describe('gateway with two users (gateway.users tokens), same servers: each client hears only its own completions', () => {
  const TOKENS = { alice: 'pt_alice-url-complete', bob: 'pt_bob-url-complete' };
  let peer: HttpPeer;
  let url: string;
  let stop: () => Promise<void>;
  before(async () => {
    peer = await startSdkHttpPeer('v1');
    const config = gatewayConfig({
      stdio: stdioDef('stdio', [SDK_SERVER, 'v2-legacy']),
      http: { name: 'http', type: 'http', url: peer.url, headers: {} } as never,
    });
    config.gateway = { users: { alice: { tokenSha256: hashToken(TOKENS.alice) }, bob: { tokenSha256: hashToken(TOKENS.bob) } } };
    ({ url, stop } = await serveGateway(createGateway(config)));
  });
  after(async () => {
    await stop();
    await peer.stop();
  });
  const as = (who: keyof typeof TOKENS) =>
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS[who]}` } } });

  it(
    '2025-11-25 clients of alice and bob, overlapping calls on the HTTP and stdio servers, answers crossed, completions awaited at once; a 2026-07-28 client of bob hears none',
    T,
    async () => {
      // Bob answers first; alice answers while bob's stdio prompt still awaits its completion (login-later
      // completes 100 ms after the result): both users' prompts, numbered alike by their own hosts,
      // await their completions at once.
      const alice = consentingClient(60);
      const bob = consentingClient(10);
      const modern = consentingClient(0, { mode: 'auto' });
      await alice.client.connect(as('alice'));
      await bob.client.connect(as('bob'));
      await modern.client.connect(as('bob'));
      try {
        const call = (c: Client, tool: string) => c.callTool({ name: tool, arguments: {} }, { timeout: CALL_MS });
        const results = await Promise.all([
          call(alice.client, 'http__login'),
          call(bob.client, 'http__login'),
          call(alice.client, 'stdio__login-later'),
          call(bob.client, 'stdio__login-later'),
          call(modern.client, 'http__login'),
        ]);
        assert.deepEqual(results.map(text), Array(5).fill('url accept'));
        assert.equal(new Set(alice.sent).size, 2, 'two prompts to alice, two elicitationIds');
        assert.equal(new Set(bob.sent).size, 2, 'two prompts to bob, two elicitationIds');
        assert.deepEqual(modern.sent, ['undefined'], 'no elicitationId on 2026-07-28');
        await until(() => alice.completed.length >= 2 && bob.completed.length >= 2, 'the completions relayed');
        await new Promise((r) => setTimeout(r, 300)); // a stray, repeated or crossed completion would show here
        assert.deepEqual([...alice.completed].sort(), [...alice.sent].sort());
        assert.deepEqual([...bob.completed].sort(), [...bob.sent].sort());
        assert.deepEqual(modern.completed, []);
      } finally {
        await Promise.all([alice.client.close(), bob.client.close(), modern.client.close()]);
      }
    },
  );
});

describe('parley serve --stdio: a downstream URL-mode completion reaches the stdio client', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'parley-url-complete-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('two overlapping calls in one session: each elicitationId it was sent is completed once', T, async () => {
    const cfg = join(dir, 'parley.json');
    writeFileSync(cfg, JSON.stringify({ mcpServers: { peer: { command: process.execPath, args: [SDK_SERVER, 'v2-legacy'] } } }));
    const c = consentingClient([300, 10]); // the first prompt is answered after the second
    await c.client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...CLI, 'serve', '--stdio', '--headless', '--config', cfg, '--db', join(dir, 'g.db')],
        cwd: dir,
        env: { ...process.env, ...isolatedEnv(dir) } as Record<string, string>,
        stderr: 'ignore',
      }),
    );
    try {
      await twoOverlappingLogins(c, 'peer__login');
    } finally {
      await c.client.close();
    }
  });
});
