// Revision-specific behaviour: 2025-06-18 (no `mode`, no URL mode) through a raw JSON-RPC peer, the
// re-ask cap on 2026-07-28, and cancellation from an SDK v1 client over HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createShared, serve } from '../src/server/index.js';
import { demoServer, modernPair, text } from './fixtures/toolkit/peers.js';
import { WAIT_MS } from './helpers/wait.js';
import { verifies } from './helpers/verifies.js';

/** A raw JSON-RPC client: our own state machine under test is the server, so a scripted peer is fine here. */
async function rawPeer(protocolVersion: string, capabilities: Record<string, unknown>) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const server = demoServer(createShared());
  await server.mcp.connect(b);
  const inbox: any[] = [];
  const waiters: Array<() => void> = [];
  a.onmessage = (m: any) => {
    if (m.method === 'ping') return void a.send({ jsonrpc: '2.0', id: m.id, result: {} });
    inbox.push(m);
    waiters.splice(0).forEach((w) => w());
  };
  await a.start();
  const next = async (pred: (m: any) => boolean) => {
    for (const end = Date.now() + WAIT_MS; ; ) {
      const idx = inbox.findIndex(pred);
      if (idx >= 0) return inbox.splice(idx, 1)[0];
      if (Date.now() >= end) throw new Error(`raw peer: no matching message within ${WAIT_MS} ms`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 10);
      });
    }
  };
  await a.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion, capabilities, clientInfo: { name: 'raw', version: '1' } },
  });
  const init = await next((m) => m.id === 1);
  await a.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    a,
    next,
    init,
    close: async () => {
      await a.close();
      await server.mcp.close();
    },
  };
}

test('2025-06-18: form elicitation is sent without a mode key and answered', async () => {
  const p = await rawPeer('2025-06-18', { elicitation: {} });
  try {
    assert.equal(p.init.result.protocolVersion, '2025-06-18');
    await p.a.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'greet', arguments: {} } });
    const req = await p.next((m) => m.method === 'elicitation/create');
    assert.equal(req.params.mode, undefined);
    verifies('ELIC-0618-NO-MODE');
    assert.equal(req.params.requestedSchema.type, 'object');
    await p.a.send({ jsonrpc: '2.0', id: req.id, result: { action: 'accept', content: { name: 'Ada' } } });
    const res = await p.next((m) => m.id === 2);
    assert.equal(text(res.result), 'hello Ada');
  } finally {
    await p.close();
  }
});

test('R4 legacy 2025-11-25 (raw peer): an unknown action on the wire ends the call with an error naming the allowed actions', async () => {
  const p = await rawPeer('2025-11-25', { elicitation: { form: {} } });
  try {
    await p.a.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'greet', arguments: {} } });
    const req = await p.next((m) => m.method === 'elicitation/create');
    assert.equal(req.params.mode, 'form');
    await p.a.send({ jsonrpc: '2.0', id: req.id, result: { action: 'reject' } });
    const res = await p.next((m) => m.id === 2);
    assert.equal(res.result.isError, true);
    assert.match(text(res.result), /unknown elicitation action "reject"; allowed actions: accept, decline, cancel/);
  } finally {
    await p.close();
  }
});

test('2025-06-18: a multi-select field is refused before sending (lint for the connection revision); 2025-11-25 sends it', async () => {
  const old = await rawPeer('2025-06-18', { elicitation: {} });
  try {
    await old.a.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'multi', arguments: {} } });
    const res = await old.next((m) => m.id === 2 || m.method === 'elicitation/create');
    assert.equal(res.id, 2); // nothing was sent
    assert.equal(res.result.isError, true);
    assert.match(text(res.result), /2025-06-18.*fruits|fruits.*2025-06-18/s);
  } finally {
    await old.close();
  }
  const now = await rawPeer('2025-11-25', { elicitation: {} });
  try {
    await now.a.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'multi', arguments: {} } });
    const req = await now.next((m) => m.method === 'elicitation/create');
    await now.a.send({ jsonrpc: '2.0', id: req.id, result: { action: 'accept', content: { fruits: ['pear'] } } });
    assert.deepEqual(JSON.parse(text((await now.next((m) => m.id === 2)).result)).content, { fruits: ['pear'] });
  } finally {
    await now.close();
  }
});

test('a zod shape the wire cannot carry (nested object) is refused with the field named; nothing is sent', async () => {
  const p = await rawPeer('2025-11-25', { elicitation: {} });
  try {
    await p.a.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nested', arguments: {} } });
    const res = await p.next((m) => m.id === 2 || m.method === 'elicitation/create');
    assert.equal(res.id, 2);
    assert.equal(res.result.isError, true);
    assert.match(text(res.result), /address/);
  } finally {
    await p.close();
  }
});

test('2025-06-18: URL mode does not exist, so nothing is sent and the tool explains', async () => {
  const p = await rawPeer('2025-06-18', { elicitation: { url: {} } });
  try {
    await p.a.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'login', arguments: {} } });
    const res = await p.next((m) => m.id === 2 || m.method === 'elicitation/create');
    assert.equal(res.id, 2);
    assert.equal(res.result.isError, true);
  } finally {
    await p.close();
  }
});

test('2026-07-28: re-asks stop after maxReasks with an error naming the field', async () => {
  const p = await modernPair(() => ({ action: 'accept', content: {} }), { extra: { maxReasks: 2 } });
  try {
    const r: any = await p.client.callTool({ name: 'raw', arguments: {} });
    assert.equal(r.isError, true);
    assert.match(text(r), /after 2 re-asks.*"name" is required/);
  } finally {
    await p.close();
  }
});

test('Q3 with an SDK v1 client over HTTP: cancelling the call aborts the pending elicitation', async () => {
  const h = await serve(() => demoServer(createShared()), { http: {} });
  const c = new V1Client({ name: 'v1', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  let aborted!: () => void;
  const done = new Promise<void>((r) => (aborted = r));
  // The toolkit's first push on this connection: without the id-0 ping the v1 client would ignore the cancel.
  const ac = new AbortController();
  c.setRequestHandler(
    ElicitRequestSchema,
    (_r, extra) =>
      new Promise((resolve) => {
        extra.signal.addEventListener('abort', () => {
          aborted();
          resolve({ action: 'cancel' });
        });
        setTimeout(() => ac.abort('user'), 20); // the person is looking at the prompt when the call is cancelled
      }),
  );
  try {
    await c.connect(new V1Http(new URL(h.url)));
    const call = c.callTool({ name: 'greet', arguments: {} }, undefined, { signal: ac.signal });
    await assert.rejects(call);
    await Promise.race([
      done,
      new Promise((_r, j) => setTimeout(() => j(new Error(`elicitation not cancelled within ${WAIT_MS} ms`)), WAIT_MS).unref()),
    ]);
    verifies('CANCEL-SERVER-REQUEST');
  } finally {
    await c.close();
    await h.close();
  }
});
