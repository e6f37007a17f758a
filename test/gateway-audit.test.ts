// Issue 17 item 4: the gateway composes through the Host facade, so prompts/get and resources/read of an
// upstream client are audited like tool calls (a `start` row, then `ok` with durationMs). Before, the
// gateway called the server manager directly for prompts/get and no row was written. Real SDK v2
// clients on both upstream eras over HTTP on 127.0.0.1, a toolkit server downstream over stdio, and a
// file-backed SQLite store.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { openSqliteStore, type ServerDef, type Store } from '../src/host/index.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';

const origin = { file: '<test>', pointer: '' };

describe('gateway: prompts/get and resources/read are audited like tool calls', () => {
  let gw: Gateway;
  let url: string;
  let stop: () => Promise<void>;
  let store: Store;
  const dir = mkdtempSync(join(tmpdir(), 'parley-gw-audit-'));
  before(async () => {
    const servers: Record<string, ServerDef> = {
      lists: {
        name: 'lists',
        origin,
        type: 'stdio',
        command: process.execPath,
        args: ['--import', 'tsx', 'test/fixtures/toolkit/lists-server.ts'],
        env: {},
      } as ServerDef,
    };
    store = openSqliteStore(join(dir, 'parley.db'));
    gw = createGateway(gatewayConfig(servers), { store });
    ({ url, stop } = await serveGateway(gw, {}, () => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }));
  });
  after(() => stop());

  for (const mode of [undefined, 'auto'] as const) {
    it(`${mode ? '2026-07-28' : '2025-11-25'} upstream client`, { timeout: 60_000 }, async () => {
      const c = new Client({ name: 'auditee', version: '1' }, { capabilities: {}, ...(mode ? { versionNegotiation: { mode } } : {}) });
      const t = new StreamableHTTPClientTransport(new URL(url));
      await c.connect(t);
      const uri = `item://${mode ?? 'legacy'}`;
      const since = Date.now();
      try {
        const prompt = await c.getPrompt({ name: 'lists__hello' });
        assert.deepEqual(prompt.messages, []);
        const read = await c.readResource({ uri });
        assert.equal((read.contents[0] as { text?: string }).text, uri);
      } finally {
        await t.terminateSession().catch(() => undefined);
        await c.close();
      }
      // Audit rows are written without blocking the call: wait for this test's rows (bounded, 5 s).
      const of = async (kind: string, key: string, value: string) => {
        for (const until = Date.now() + 5000; ; await new Promise((r) => setTimeout(r, 20))) {
          const rows = (await store.queryAudit({ server: 'lists', kind, limit: 1000 })).filter(
            (r) => r.ts >= since && (r.detail as Record<string, unknown> | undefined)?.[key] === value,
          );
          if (rows.length >= 2 || Date.now() > until) return rows;
        }
      };
      const prompts = await of('prompt-get', 'prompt', 'hello');
      assert.deepEqual(prompts.map((r) => r.action).sort(), ['ok', 'start'], 'prompts/get: start and ok rows');
      const reads = await of('resource-read', 'uri', uri);
      assert.deepEqual(reads.map((r) => r.action).sort(), ['ok', 'start'], 'resources/read: start and ok rows');
      const ok = reads.find((r) => r.action === 'ok');
      assert.equal(typeof ok?.durationMs, 'number', 'the ok row has the duration, as tool-call rows do');
      assert.equal(ok?.scope.user, 'default');
    });
  }
});
