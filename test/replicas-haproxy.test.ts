// Three `parley serve --http` replicas (built dist/) on one private PostgreSQL and one PARLEY_SECRET,
// behind a real HAProxy in round-robin without session affinity (issue 13 items 4-6). 2025-era sessions of
// SDK v1 and v2 clients reach their replica through whichever one HAProxy picks (src/gateway/sessions-route.ts;
// more in test/replicas-sessions.test.ts). SDK v2 clients of
// two tenants × two users run interleaved elicitations through the balancer, so a round's retry
// usually lands on another replica than the one that parks the call and is forwarded to it; then a
// replica is killed with SIGKILL mid-round and restarted.
//
// Count: 4 identities × 25 concurrent calls = 100 calls, each with its own client (so every prompt has a
// distinct expected answer), 200 requests through the balancer. Measured here at ~12 s with the load
// average near 10 on 2 cores (three replicas, their stdio servers, PostgreSQL and HAProxy share them);
// the 1,000 would take ~2 minutes on such a machine, over the 2-minute bound for one test file.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { hashToken } from '../src/gateway/index.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';
import { exitOf, isolatedEnv } from './helpers/cli.js';
import { pgSkipReason, startPostgres } from './helpers/postgres.js';
import type { PgServer } from './helpers/postgres.js';
import { DUAL_TIMEOUTS } from './helpers/replicas.js';

const MAIN = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/servers-host/v2-dual.mjs', import.meta.url));
const HAPROXY = '/usr/sbin/haproxy';
const SECRET = 'replicas share this secret: 32+ bytes';
const TOKENS: Record<string, string> = {
  'acme/alice': 'pt_r-acme-alice',
  'acme/bob': 'pt_r-acme-bob',
  'globex/alice': 'pt_r-globex-alice',
  'globex/carol': 'pt_r-globex-carol',
};
const IDS = Object.keys(TOKENS);
const PER_ID = 25;
const START_MS = 30_000;

// Skipped on a developer machine without HAProxy; in CI (.ci/run installs it) a missing HAProxy fails.
const skipReason =
  !existsSync(HAPROXY) && !process.env.CI
    ? `${HAPROXY} not found: install Debian package haproxy`
    : !existsSync(MAIN)
      ? 'dist/ missing: run npm run build'
      : undefined;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Reads the owner URL a sealed requestState names (signed, not encrypted: `<3-char prefix><b64url json>.<mac>`). */
function ownerOf(state: string): string {
  const body = state.slice(3, state.lastIndexOf('.'));
  return (JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { p: { a: string } }).p.a;
}

describe('three replicas behind HAProxy on one PostgreSQL', { skip: skipReason }, () => {
  let pg: PgServer | undefined;
  let dir: string;
  let cfg: string;
  let storeUrl: string;
  let lbUrl: string;
  let haproxy: ChildProcess | undefined;
  const replicas: Array<{ port: number; child: ChildProcess; log: string[] }> = [];
  let skipped: string | undefined;

  async function startReplica(port: number): Promise<{ port: number; child: ChildProcess; log: string[] }> {
    const child = spawn(
      process.execPath,
      [MAIN, 'serve', '--http', '--headless', '--port', String(port), '--config', cfg, '--store', storeUrl],
      {
        env: { ...process.env, ...isolatedEnv(dir), PARLEY_SECRET: SECRET },
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const log: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`replica on ${port} did not serve within ${START_MS} ms:\n${log.join('')}`)),
        START_MS,
      );
      child.stderr!.on('data', (d) => {
        log.push(String(d));
        if (/serving MCP at /.test(log.join(''))) clearTimeout(timer), resolve();
      });
      child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`replica exited ${code}:\n${log.join('')}`))));
    });
    return { port, child, log };
  }

  before(async () => {
    if (skipReason) return;
    pg = await startPostgres();
    if (!pg) return void (skipped = pgSkipReason);
    dir = mkdtempSync(join(tmpdir(), 'parley-replicas-'));
    storeUrl = await pg.createDatabase();
    cfg = join(dir, 'parley.json');
    const users = (t: string) =>
      Object.fromEntries(
        IDS.filter((i) => i.startsWith(`${t}/`)).map((i) => [i.slice(t.length + 1), { tokenSha256: hashToken(TOKENS[i]) }]),
      );
    // The broker's limits (5 pending, burst 10 by default) and the gateway's 20 pending prompts per user
    // are raised so the load below (25 concurrent calls per user, spread by the balancer) measures
    // delivery, not limits (a declined prompt would read "no name (decline)").
    writeFileSync(
      cfg,
      JSON.stringify({
        mcpServers: { v2: { command: process.execPath, args: [FIXTURE], timeouts: DUAL_TIMEOUTS } },
        policy: { maxPendingPerServer: 200, burst: 200, ratePerMinute: 6000 },
        gateway: { maxPendingPerUser: 100, tenants: { acme: { users: users('acme') }, globex: { users: users('globex') } } },
      }),
    );
    // The first replica migrates the empty database; the others start once it serves.
    replicas.push(await startReplica(await freePort()));
    replicas.push(...(await Promise.all([freePort().then(startReplica), freePort().then(startReplica)])));
    const lbPort = await freePort();
    const hcfg = join(dir, 'haproxy.cfg');
    writeFileSync(
      hcfg,
      [
        'global',
        '  maxconn 512',
        'defaults',
        '  mode http',
        '  timeout connect 2s',
        '  timeout client 120s',
        '  timeout server 120s',
        '  retries 2',
        '  option redispatch',
        'frontend mcp',
        `  bind 127.0.0.1:${lbPort}`,
        '  default_backend replicas',
        'backend replicas',
        '  balance roundrobin',
        // No stick table: a 2025-era session's requests reach any replica, which forwards them (docs/scaling.md).
        ...replicas.map((r, i) => `  server r${i + 1} 127.0.0.1:${r.port} check inter 500 fall 1 rise 1`),
        '',
      ].join('\n'),
    );
    const checked = spawnSync(HAPROXY, ['-c', '-f', hcfg], { encoding: 'utf8' });
    assert.equal(checked.status, 0, checked.stdout + checked.stderr);
    haproxy = spawn(HAPROXY, ['-db', '-f', hcfg], { stdio: 'ignore' });
    lbUrl = `http://127.0.0.1:${lbPort}/mcp`;
    // Ready when the balancer answers.
    const deadline = Date.now() + START_MS;
    for (;;) {
      const ok = await fetch(lbUrl, { method: 'GET' }).then(
        (r) => r.status > 0,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error('haproxy did not answer');
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  after(async () => {
    haproxy?.kill('SIGTERM');
    for (const r of replicas) r.child.kill('SIGKILL');
    await pg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const connect = async (id: string, answer: (name: string) => unknown, manual = false) => {
    const c = v2Client((async () => answer(id)) as never, { mode: 'auto', manual });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(lbUrl), { requestInit: { headers: { authorization: `Bearer ${TOKENS[id]}` } } }),
    );
    return c;
  };

  it(`${IDS.length} users of 2 tenants × ${PER_ID} concurrent elicitations through the balancer: every answer reaches its own call`, async (t) => {
    if (skipped) return t.skip(skipped);
    const runs = IDS.flatMap((id) => Array.from({ length: PER_ID }, (_, k) => ({ id, k })));
    const results = await Promise.all(
      runs.map(async ({ id, k }) => {
        const c = await connect(id, () => ({ action: 'accept', content: { name: `${id}#${k}` } }));
        try {
          return text(await c.callTool({ name: 'v2__ask', arguments: {} }));
        } finally {
          await c.close();
        }
      }),
    );
    const wrong = runs.filter(({ id, k }, i) => results[i] !== `hello ${id}#${k}`);
    assert.deepEqual(wrong, [], `cross-deliveries or lost answers: ${JSON.stringify(results)}`);
  });

  it('2025-era sessions of SDK v1 and v2 clients, without affinity, get their own prompts', async (t) => {
    if (skipped) return t.skip(skipped);
    const runs = IDS.flatMap((id) => [0, 1].map((k) => ({ id, k, sdk: k === 0 ? 'v1' : 'v2' })));
    const results = await Promise.all(
      runs.map(async ({ id, k, sdk }) => {
        const name = `${id}#${sdk}${k}`;
        const headers = { authorization: `Bearer ${TOKENS[id]}` };
        if (sdk === 'v1') {
          const c = new V1Client({ name: 'v1', version: '1' }, { capabilities: { elicitation: {} } });
          c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name } }));
          await c.connect(new V1Transport(new URL(lbUrl), { requestInit: { headers } }));
          try {
            return text(await c.callTool({ name: 'v2__ask', arguments: {} }));
          } finally {
            await c.close();
          }
        }
        const c = v2Client((async () => ({ action: 'accept', content: { name } })) as never);
        await c.connect(new StreamableHTTPClientTransport(new URL(lbUrl), { requestInit: { headers } }));
        try {
          return text(await c.callTool({ name: 'v2__ask', arguments: {} }));
        } finally {
          await c.close();
        }
      }),
    );
    assert.deepEqual(
      results,
      runs.map(({ id, k, sdk }) => `hello ${id}#${sdk}${k}`),
    );
  });

  it('SIGKILL of a replica mid-round: its calls fail with a clear error at once, the others complete; restarted, it serves again', async (t) => {
    if (skipped) return t.skip(skipped);
    // Manual clients: each round's requestState says which replica parks the call.
    const rounds = await Promise.all(
      Array.from({ length: 9 }, async (_, i) => {
        const id = IDS[i % IDS.length];
        const c = await connect(id, () => ({ action: 'cancel' }), true);
        const first = (await c.callTool({ name: 'v2__ask', arguments: {} } as never, { allowInputRequired: true } as never)) as Record<
          string,
          unknown
        >;
        assert.equal(first.resultType, 'input_required');
        return { id, c, first, owner: ownerOf(first.requestState as string) };
      }),
    );
    const victim = replicas[0];
    const victimUrl = `http://127.0.0.1:${victim.port}/mcp`;
    const onVictim = rounds.filter((r) => r.owner === victimUrl);
    assert.ok(
      onVictim.length > 0 && onVictim.length < rounds.length,
      `round-robin spread the calls: ${rounds.map((r) => r.owner).join(', ')}`,
    );
    victim.child.kill('SIGKILL');
    await exitOf(victim.child);
    const t0 = Date.now();
    const outcomes = await Promise.all(
      rounds.map(async (r) => {
        const key = Object.keys(r.first.inputRequests as object)[0];
        try {
          const res = await r.c.callTool(
            {
              name: 'v2__ask',
              arguments: {},
              inputResponses: { [key]: { action: 'accept', content: { name: r.id } } },
              requestState: r.first.requestState,
            } as never,
            { allowInputRequired: true } as never,
          );
          return text(res);
        } catch (e) {
          return `threw: ${(e as Error).message}`;
        } finally {
          await r.c.close();
        }
      }),
    );
    const elapsed = Date.now() - t0;
    rounds.forEach((r, i) => {
      if (r.owner === victimUrl)
        assert.match(
          outcomes[i],
          /replica .* where this call is parked, cannot be reached/,
          `call parked on the killed replica: ${outcomes[i]}`,
        );
      else assert.equal(outcomes[i], `hello ${r.id}`, `call parked on a live replica: ${outcomes[i]}`);
    });
    assert.ok(elapsed < 15_000, `every retry answered within 15 s (took ${elapsed} ms)`);
    // Restarted on its port, the replica is a member again: calls through the balancer reach it.
    replicas[0] = await startReplica(victim.port);
    // HAProxy takes it back at its next passing health check (inter 500 ms, rise 1; a check on a loaded
    // machine can take longer than a fixed pause): rounds are opened until one is parked on it, bounded.
    const owners = new Set<string>();
    for (let i = 0, end = Date.now() + START_MS; !owners.has(victimUrl) && (i < 6 || Date.now() < end); i++) {
      if (i >= 6) await new Promise((r) => setTimeout(r, 200));
      const c = await connect(IDS[0], () => ({ action: 'cancel' }), true);
      try {
        const first = (await c.callTool({ name: 'v2__ask', arguments: {} } as never, { allowInputRequired: true } as never)) as Record<
          string,
          unknown
        >;
        owners.add(ownerOf(first.requestState as string));
      } finally {
        await c.close();
      }
    }
    assert.ok(owners.has(victimUrl), `the restarted replica parks calls again: ${[...owners].join(', ')}`);
  });
});
