// nginx in front of replicas (the docs/scaling.md example): open-source nginx has no active health check,
// so its only bound on a replica that hangs (SIGSTOP: the kernel still accepts, nothing answers) is
// `proxy_read_timeout`, the longest silence it allows between two reads. That bound may be short only if
// no live answer is ever silent that long: every event stream of a replica carries a keep-alive comment
// every `gateway.keepAliveMs`, and 2026-07-28 tool calls are streamed too (headers at once), so a person
// answering slowly and a slow tool are never cut, while a hung replica's requests end with 504.
// Here: keepAliveMs 1 000 and proxy_read_timeout 4s (the docs' 15 000 / 45s, scaled down).
// Real nginx, real replicas on real PostgreSQL, SDK v2 clients of 2025-06-18 and 2026-07-28.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { clusterSkipReason, IDS, NGINX, startCluster, TOKENS, type Cluster } from './helpers/replicas.js';
import { pgSkipReason } from './helpers/postgres.js';

const RAW_PEER = fileURLToPath(new URL('./fixtures/servers-host/raw-peer.mjs', import.meta.url));
const READ_TIMEOUT_MS = 4_000;
const SLACK_MS = 2_500; // a loaded machine
const headers = { authorization: `Bearer ${TOKENS[IDS[0]]}` };
const text = (r: any) => (r.content ?? []).map((c: any) => c.text ?? '').join('\n');

async function legacy(url: string, answerAfterMs: number) {
  // 2025-06-18: no event ids, so a stream nginx cuts cannot be resumed (2025-11-25 clients would resume it
  // through another replica and hide the cut).
  const c = new Client({ name: 'legacy', version: '1' }, {
    capabilities: { elicitation: { form: {} } },
    supportedProtocolVersions: ['2025-06-18'],
  } as never);
  c.setRequestHandler('elicitation/create', async () => {
    await new Promise((r) => setTimeout(r, answerAfterMs)); // a person reading the form
    return { action: 'accept', content: { name: 'slow reader' } } as never;
  });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return c;
}

async function modern(url: string) {
  const c = new Client({ name: 'modern', version: '1' }, { versionNegotiation: { mode: 'auto' } } as never);
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return c;
}

const noNginx = !existsSync(NGINX) && !process.env.CI ? `${NGINX} not found: install Debian package nginx` : undefined;

describe('nginx in front of replicas: proxy_read_timeout bounds a hung replica, keep-alives keep live answers', {
  skip: clusterSkipReason ?? noNginx,
}, () => {
  let c: Cluster | undefined;
  let url = '';
  before(async () => {
    if (clusterSkipReason || noNginx) return;
    c = await startCluster({
      replicas: 2,
      gateway: { keepAliveMs: 1_000 },
      servers: { slow: { command: process.execPath, args: [RAW_PEER, 'slow'] } },
    });
    if (c) url = await c.nginx(`${READ_TIMEOUT_MS / 1000}s`);
  });
  after(() => c?.stop());

  it('a prompt a person answers after 6 s and a tool that runs 6 s are not cut by a 4 s read timeout', async (t) => {
    if (!c) return t.skip(pgSkipReason);
    const l = await legacy(url, 6_000);
    const m = await modern(url);
    t.after(() => Promise.allSettled([l.close(), m.close()]));
    // Without the keep-alives (the SDK's 15 s) and with a JSON answer to the 2026-07-28 call, nginx
    // ended both after 4 s of silence (the SDK clients failed them).
    const [asked, slept] = await Promise.all([
      l.callTool({ name: 'v2__ask', arguments: {} }, { timeout: 30_000 } as never).then(text, (e: Error) => `error: ${e.message}`),
      m
        .callTool({ name: 'slow__sleep', arguments: { ms: 6_000 } }, { timeout: 30_000 } as never)
        .then(text, (e: Error) => `error: ${e.message}`),
    ]);
    assert.equal(asked, 'hello slow reader');
    assert.equal(slept, 'slept');
  });

  it(`requests nginx sends to a hung replica end within proxy_read_timeout (${READ_TIMEOUT_MS} ms), not at the client's timeout`, async (t) => {
    if (!c) return t.skip(pgSkipReason);
    const clients = await Promise.all(Array.from({ length: 4 }, () => modern(url)));
    t.after(() => Promise.allSettled(clients.map((m) => m.close())));
    await c.kill(1, 'SIGSTOP');
    try {
      const t0 = Date.now();
      const outcomes = await Promise.all(
        clients.map((m) =>
          m.listTools(undefined, { timeout: 30_000 } as never).then(
            (r) => ({ ok: r.tools.length, at: Date.now() - t0 }),
            (e: Error) => ({ err: e.message, at: Date.now() - t0 }),
          ),
        ),
      );
      const failed = outcomes.filter((o): o is { err: string; at: number } => 'err' in o);
      assert.ok(failed.length >= 1, `some requests reached the hung replica: ${JSON.stringify(outcomes)}`);
      // With the former example (proxy_read_timeout 1800s) they waited for the client's own 30 s timeout.
      for (const o of failed) {
        assert.doesNotMatch(o.err, /timed out/i, 'an error from nginx, not the client’s own timeout');
        assert.ok(o.at < READ_TIMEOUT_MS + SLACK_MS, `ended within the bound (took ${o.at} ms): ${o.err}`);
      }
      for (const o of outcomes) if ('ok' in o) assert.ok(o.ok > 0);
    } finally {
      await c.kill(1, 'SIGCONT');
    }
  });
});
