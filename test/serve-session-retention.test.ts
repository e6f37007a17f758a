// serve() (src/server/serve.ts) must not keep a 2025-era session's initialize request alive for the
// session's life: the transport's callbacks once closed over the request handler's scope, so every open
// session held its initialize request and response (headers, raw header strings, streams) on the heap
// (docs/scaling.md, heap per pending session). Checked with weak references after forced GCs while the
// sessions stay open.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { IncomingMessage } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { serve } from '../src/server/serve.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

it('an open session keeps no reference to its initialize request', async () => {
  const inits: Array<WeakRef<IncomingMessage>> = [];
  const h = await serve(() => new McpServer({ name: 'retention', version: '1' }, { capabilities: { tools: {} } }), {
    http: {
      authenticate: (req) => {
        if (req.method === 'POST' && !req.headers['mcp-session-id']) inits.push(new WeakRef(req));
        return undefined;
      },
    },
  });
  const clients: Client[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const c = new Client({ name: `c${i}`, version: '1' });
      await c.connect(new StreamableHTTPClientTransport(new URL(h.url)));
      await c.listTools().catch(() => undefined); // a later request of the session, on any socket
      clients.push(c);
    }
    assert.equal(inits.length, 5);
    for (let k = 0; k < 5; k++) {
      gc();
      await new Promise((r) => setTimeout(r, 20));
    }
    const alive = inits.filter((w) => w.deref() !== undefined).length;
    assert.equal(alive, 0, `${alive} of 5 open sessions still hold their initialize request`);
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    await h.close();
  }
});
