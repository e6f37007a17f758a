// The console's audit view shows only its own user's rows (issue 12, item 12): a gateway whose users
// answered elicitations over HTTP shares its database with the single-user console of a later
// `parley serve --stdio`; that console must not show the users' rows, answers included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway, DEFAULT_USER, hashToken } from '../src/gateway/index.js';
import { openSqliteStore } from '../src/host/store/index.js';
import { hostApiFor, startConsole } from '../src/ui/web/index.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { text, v2Client } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';

test("a single-user console lists only its own audit rows, not the gateway users' (answers included)", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-console-audit-'));
  const store = openSqliteStore(join(dir, 'g.db'));
  const config = gatewayConfig({ v1: fixture('v1', 'v1-push.mjs') });
  config.gateway = { users: { alice: { tokenSha256: hashToken('pt_alice') } } };
  const gw = createGateway(config, { store });
  const { url, stop } = await serveGateway(gw, {}, () => (store.close(), rmSync(dir, { recursive: true, force: true })));
  const con = await startConsole({ host: hostApiFor(gw.space(DEFAULT_USER).host, store) });
  try {
    // alice answers a real elicitation through the HTTP gateway with a real SDK client.
    const c = v2Client((async () => ({ action: 'accept', content: { name: 'Alice Secret-Answer' } })) as never);
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: 'Bearer pt_alice' } } }));
    assert.equal(text(await c.callTool({ name: 'v1__ask', arguments: {} })), 'hello Alice Secret-Answer');
    await c.close();
    assert.ok(
      (await store.queryAudit({ scope: { user: 'alice' } })).some((r) => r.kind === 'answer'),
      'alice has audit rows',
    );
    // The console's own user calls a tool too (its row must show).
    await gw.space(DEFAULT_USER).host.callTool('v1', 'echo', {});

    const rows = (await (
      await fetch(`${con.origin}/api/audit?limit=1000`, { headers: { authorization: `Bearer ${con.token}` } })
    ).json()) as Array<{ scope: { user: string }; kind: string }>;
    assert.ok(
      rows.some((r) => r.kind === 'tool-call'),
      "the console user's own rows are shown",
    );
    assert.deepEqual([...new Set(rows.map((r) => r.scope.user))], [DEFAULT_USER]);
    assert.ok(!JSON.stringify(rows).includes('Secret-Answer'), "no other user's answer");
    const answers = (await (
      await fetch(`${con.origin}/api/audit?kind=answer`, { headers: { authorization: `Bearer ${con.token}` } })
    ).json()) as unknown[];
    assert.equal(answers.length, 0);
  } finally {
    await con.close();
    await stop();
  }
});
