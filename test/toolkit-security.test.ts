// Identity binding: requestState and URL flows belong to one user; HTTP session handling; S8 in Chinese.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createShared, serve } from '../src/server/index.js';
import { demoServer, legacyPair, text, v2Client } from './fixtures/toolkit/peers.js';
import { waitUntil } from './helpers/wait.js';
import { verifies } from './helpers/verifies.js';

const asUser = (user: string) => ({ requestInit: { headers: { 'x-test-user': user } } });
const authenticate = (req: any) => {
  const u = req.headers['x-test-user'];
  return typeof u === 'string' ? { token: 't', clientId: 'c', scopes: [], extra: { sub: u } } : undefined;
};

test('requestState minted for one user is refused (-32602) when another user replays it', async () => {
  const shared = createShared(); // one per process: every request's instance must use the same key
  const h = await serve(() => demoServer(shared), { http: { authenticate } });
  const mk = async (user: string) => {
    const c = v2Client(() => ({ action: 'cancel' }), { mode: 'auto', manual: true });
    await c.connect(new StreamableHTTPClientTransport(new URL(h.url), asUser(user)));
    return c;
  };
  const alice = await mk('alice'),
    bob = await mk('bob');
  try {
    const r1: any = await alice.callTool({ name: 'raw', arguments: {} }, { allowInputRequired: true });
    assert.equal(r1.resultType, 'input_required');
    const replay = {
      name: 'raw',
      arguments: {},
      inputResponses: { e0: { action: 'accept', content: { name: 'x' } } },
      requestState: r1.requestState,
    } as any;
    await assert.rejects(bob.callTool(replay, { allowInputRequired: true }), (e: any) => e.code === -32602 && /\(user\)/.test(e.message));
    verifies('MRTR-STATE-BIND-PRINCIPAL');
    const ok: any = await alice.callTool(replay, { allowInputRequired: true });
    assert.equal(JSON.parse(text(ok)).content.name, 'x');
  } finally {
    await alice.close();
    await bob.close();
    await h.close();
  }
});

test('URL flow completed out of band by its own user notifies the starting connection; another user cannot complete it', async () => {
  const completed: string[] = [];
  const p = await legacyPair(() => ({ action: 'accept' }));
  p.client.setNotificationHandler('notifications/elicitation/complete', (n: any) => void completed.push(n.params.elicitationId));
  try {
    const id = text(await p.client.callTool({ name: 'loginlater', arguments: {} }));
    await assert.rejects(p.server.completeUrlElicitation(id, 'mallory'), /unknown URL elicitation/);
    verifies('ELIC-1125-URL-BIND-USER');
    await assert.rejects(p.server.completeUrlElicitation('no-such-id'), /unknown URL elicitation/);
    await p.server.completeUrlElicitation(id);
    await waitUntil(() => completed.length > 0);
    assert.deepEqual(completed, [id]);
  } finally {
    await p.close();
  }
});

test('S8: sensitive fields are detected in Chinese too', async () => {
  let asked = 0;
  const p = await legacyPair(() => {
    asked++;
    return { action: 'cancel' };
  });
  try {
    const r: any = await p.client.callTool({ name: 'zhsecret', arguments: {} });
    assert.equal(r.isError, true);
    assert.match(text(r), /"mima".*密码/);
    assert.equal(asked, 0);
  } finally {
    await p.close();
  }
});

test('HTTP legacy leg: unknown session → 404, non-initialize without a session → 400, wrong path → 404', async () => {
  const h = await serve(() => demoServer(createShared()), { http: {} });
  const post = (body: unknown, headers: Record<string, string> = {}, url = h.url) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });
  try {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    assert.equal((await post(list, { 'mcp-session-id': 'nope', 'mcp-protocol-version': '2025-11-25' })).status, 404);
    assert.equal((await post(list, { 'mcp-protocol-version': '2025-11-25' })).status, 400);
    assert.equal((await post(list, {}, h.url.replace('/mcp', '/other'))).status, 404);
  } finally {
    await h.close();
  }
});

test('elicitUrl refuses URLs a server must not send, before anything is sent', async () => {
  verifies('ELIC-1125-URL-SAFE-HANDLING');
  const { checkElicitationUrl } = await import('../src/server/context.js');
  for (const bad of [
    'not a url',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'data:text/html,x',
    'http://example.com/login',
    'https://user:pw@example.com/x',
  ]) {
    assert.throws(() => checkElicitationUrl(bad), /elicitUrl:/, bad);
  }
  for (const good of ['https://example.com/connect?flow=1', 'http://localhost:3000/cb', 'http://127.0.0.1/x']) checkElicitationUrl(good);
});

test('2026-07-28: a roots request answered with something other than a roots/list result is -32602, not "no roots"', async () => {
  const shared = createShared();
  const h = await serve(() => demoServer(shared), { http: {} });
  const c = v2Client(() => ({ action: 'cancel' }), { mode: 'auto', manual: true });
  await c.connect(new StreamableHTTPClientTransport(new URL(h.url)));
  try {
    const r1: any = await c.callTool({ name: 'roots', arguments: {} }, { allowInputRequired: true });
    assert.equal(r1.resultType, 'input_required');
    const [key] = Object.keys(r1.inputRequests);
    assert.equal(r1.inputRequests[key].method, 'roots/list');
    const wrong = {
      name: 'roots',
      arguments: {},
      inputResponses: { [key]: { action: 'accept', content: {} } },
      requestState: r1.requestState,
    } as any;
    await assert.rejects(
      c.callTool(wrong, { allowInputRequired: true }),
      (e: any) => e.code === -32602 && new RegExp(`inputResponses\\.${key}: expected a roots/list result`).test(e.message),
    );
    const right = { ...wrong, inputResponses: { [key]: { roots: [{ uri: 'file:///tmp/ws' }] } } };
    assert.equal(text(await c.callTool(right, { allowInputRequired: true })), 'file:///tmp/ws');
  } finally {
    await c.close();
    await h.close();
  }
});

test('HTTP legacy session belongs to its user (extra.sub), not to the client id several users share', async () => {
  const h = await serve(() => demoServer(createShared()), { http: { authenticate } });
  try {
    const post = (user: string, body: unknown, sid?: string) =>
      fetch(h.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-test-user': user,
          'mcp-protocol-version': '2025-11-25',
          ...(sid ? { 'mcp-session-id': sid } : {}),
        },
        body: JSON.stringify(body),
      });
    const init = await post('alice', {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'a', version: '1' } },
    });
    const sid = init.headers.get('mcp-session-id');
    assert.ok(sid, `alice got a session (status ${init.status})`);
    await init.text();
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const bob = await post('bob', list, sid!);
    assert.equal(bob.status, 404, 'bob (same clientId "c", other sub) cannot use alice\'s session');
    await bob.text();
    const alice = await post('alice', list, sid!);
    assert.equal(alice.status, 200, 'alice can');
    await alice.text();
  } finally {
    await h.close();
  }
});
