// A cap on TCP connections to `parley serve --http` (gateway.maxConnections, serve()'s
// HttpOptions.maxConnections, default 10 000): a flood of idle connections, each allowed
// requestReceiveMs (30 s) to send its request, used to hold one file descriptor each without
// bound. Over the cap a connection is closed unread; a real SDK v2 client gets in once one frees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createGateway } from '../src/gateway/index.js';
import { loadHostConfig } from '../src/host/config/index.js';
import { MAX_CONNECTIONS, serve } from '../src/server/serve.js';
import { createParleyServer } from '../src/server/index.js';
import { fixture } from './fixtures/servers-host/helpers.js';
import { sandbox } from './fixtures/config/tmp.js';
import { v2Client } from './fixtures/toolkit/peers.js';
import { gatewayConfig, serveGateway } from './helpers/gateway.js';

/** An idle TCP connection to `url`'s port; resolves once connected. `closed` resolves when the server closes it. */
async function idle(url: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  socket.on('error', () => undefined);
  await new Promise<void>((r, j) => {
    socket.once('connect', () => r());
    socket.once('error', j);
  });
  return { socket, closed };
}

const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([p, new Promise<never>((_, j) => setTimeout(() => j(new Error(`${what}: not within ${ms} ms`)), ms))]);

test('gateway.maxConnections: over the cap a connection is closed unread; a client gets in once they free', {
  timeout: 60_000,
}, async (t) => {
  const config = gatewayConfig({ v2: fixture('v2', 'v2-dual.mjs') });
  config.gateway = { users: {}, maxConnections: 3 };
  const gw = createGateway(config, {});
  const { url, stop } = await serveGateway(gw);
  t.after(() => stop());
  const held = [await idle(url), await idle(url), await idle(url)];
  t.after(() => held.forEach((h) => h.socket.destroy()));
  const fourth = await idle(url);
  await within(fourth.closed, 5000, 'the fourth connection was closed by the gateway');
  for (const h of held) assert.equal(h.socket.destroyed, false, 'connections under the cap stay open');

  // A client may open two connections at once (its GET stream and a POST): free them all.
  for (const h of held.splice(0)) {
    h.socket.destroy();
    await h.closed;
  }
  await new Promise((r) => setTimeout(r, 100)); // the server sees the closes
  const client = v2Client((async () => ({ action: 'cancel' })) as never);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  assert.ok((await client.listTools()).tools.length > 0);
});

test('maxConnections: the default is 10 000; serve() refuses a bad value; parley.json names the field', async () => {
  assert.equal(MAX_CONNECTIONS, 10_000);
  const server = createParleyServer({ name: 's', version: '1' });
  await assert.rejects(
    serve(() => server as never, { http: { maxConnections: 0 } }),
    /serve\(\): maxConnections must be a whole number of connections from 1 to 1000000; got 0/,
  );
  const s = sandbox();
  try {
    s.write('parley.json', JSON.stringify({ servers: {}, gateway: { maxConnections: 'lots' } }));
    const { issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    const issue = issues.find((i) => i.path === '/gateway/maxConnections' && /positive integer/.test(i.message));
    assert.ok(issue, JSON.stringify(issues));
  } finally {
    s.cleanup();
  }
});
