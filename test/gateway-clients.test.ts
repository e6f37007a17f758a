// Issue 6's upstream matrix: SDK v1 and SDK v2 clients (default and auto), each with and without
// elicitation and roots, against one gateway in front of a 2025-era server (elicits) and
// server-filesystem (uses roots). Without elicitation the prompt goes to the fallback presenter (here a
// scripted one standing in for the console); with roots on a 2025 era the client's root reaches
// server-filesystem; 2026-07-28 clients' roots are not bridged (docs/gateway.md §Roots).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway } from '../src/gateway/index.js';
import type { Gateway } from '../src/gateway/index.js';
import { ScriptedPresenter } from '../src/host/index.js';
import { fixture, stdioDef } from './fixtures/servers-host/helpers.js';
import { text } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';

const FILESYSTEM = new URL('../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url).pathname;

type Peer = { call(name: string, args?: Record<string, unknown>): Promise<unknown>; end(): Promise<void> };

describe('gateway × upstream clients (v1, v2 default, v2 auto) × elicitation × roots', () => {
  let dir: string;
  let gw: Gateway;
  let url: string;
  let stop: () => Promise<void>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-gw-clients-'));
    const config = gatewayConfig({ v1: fixture('v1', 'v1-push.mjs'), fs: stdioDef('fs', [FILESYSTEM]) });
    // 12 prompts to one server in quick succession: above the default rate limit, which would decline.
    Object.assign(config.policy, { ratePerMinute: 600, burst: 100 });
    gw = createGateway(config, {
      fallback: () => new ScriptedPresenter({ v1: { name: 'console' } }),
    });
    ({ url, stop } = await serveGateway(gw, {}, () => rmSync(dir, { recursive: true, force: true })));
    await gw.space('default').host.start();
  });
  after(() => stop());

  async function connect(kind: 'v1' | 'v2' | 'v2-auto', elicit: boolean, root?: string): Promise<Peer> {
    if (kind === 'v1') {
      const c = new V1Client(
        { name: 'v1', version: '1' },
        { capabilities: { ...(elicit ? { elicitation: { form: {} } } : {}), ...(root ? { roots: { listChanged: true } } : {}) } },
      );
      if (elicit) c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'client' } }));
      if (root) c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: root }] }));
      const t = new V1Http(new URL(url));
      await c.connect(t);
      return {
        call: (name, args = {}) => c.callTool({ name, arguments: args }),
        end: async () => (await t.terminateSession(), await c.close()),
      };
    }
    const c = new Client(
      { name: kind, version: '1' },
      {
        capabilities: { ...(elicit ? { elicitation: { form: {} } } : {}), ...(root ? { roots: { listChanged: true } } : {}) } as never,
        ...(kind === 'v2-auto' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
      },
    );
    if (elicit) c.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'client' } }));
    if (root) c.setRequestHandler('roots/list', async () => ({ roots: [{ uri: root }] }));
    const t = new StreamableHTTPClientTransport(new URL(url));
    await c.connect(t);
    return {
      call: (name, args = {}) => c.callTool({ name, arguments: args }),
      end: async () => (await t.terminateSession().catch(() => undefined), await c.close()),
    };
  }

  for (const kind of ['v1', 'v2', 'v2-auto'] as const) {
    for (const elicit of [true, false]) {
      for (const roots of [true, false]) {
        it(`${kind}, ${elicit ? 'with' : 'without'} elicitation, ${roots ? 'with' : 'without'} roots`, async () => {
          const ws = join(dir, `${kind}-${elicit}-${roots}`);
          mkdirSync(ws);
          const p = await connect(kind, elicit, roots ? pathToFileURL(ws).href : undefined);
          try {
            assert.equal(text((await p.call('v1__ask')) as never), elicit ? 'hello client' : 'hello console');
            const expectRoot = roots && kind !== 'v2-auto';
            // server-filesystem applies roots asynchronously after list_changed: poll, bounded (30 s).
            let allowed = '';
            for (const until = Date.now() + (expectRoot ? 30_000 : 0); ; ) {
              allowed = text((await p.call('fs__list_allowed_directories')) as never);
              if (allowed.includes(ws) || Date.now() >= until) break;
              await new Promise((r) => setTimeout(r, 100));
            }
            assert.equal(allowed.includes(ws), expectRoot, allowed);
          } finally {
            await p.end();
          }
        });
      }
    }
  }
});
