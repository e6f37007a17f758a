// The console's request guard over real HTTP on 127.0.0.1: token (401), Host (403), Origin (403).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startConsole, type ConsoleHandle } from '../src/ui/web/index.js';
import { WebPresenter } from '../src/ui/web/presenter.js';
import { createTestHost, type TestHost } from './fixtures/console/host.js';

let host: TestHost;
let con: ConsoleHandle;
let cookie: string;
const written: string[] = [];
const realOut = process.stdout.write.bind(process.stdout);
const realErr = process.stderr.write.bind(process.stderr);

/** Raw request (node:http) so Host and Origin can be set freely. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      // A fresh connection each (agent: false): after a 413 the server closes a socket whose body it did
      // not read, and a kept-alive socket reused by the next request would fail with "socket hang up".
      {
        host: '127.0.0.1',
        port: con.port,
        method,
        path,
        headers: { host: `127.0.0.1:${con.port}`, ...headers },
        timeout: 15_000,
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

before(async () => {
  // Capture everything written while the console starts and serves, to prove the token is not logged.
  process.stdout.write = ((c: string | Uint8Array, ...a: unknown[]) => (
    written.push(String(c)), realOut(c, ...(a as []))
  )) as typeof process.stdout.write;
  process.stderr.write = ((c: string | Uint8Array, ...a: unknown[]) => (
    written.push(String(c)), realErr(c, ...(a as []))
  )) as typeof process.stderr.write;
  host = createTestHost();
  con = await startConsole({ host, presenter: new WebPresenter(), port: 0 });
  const r = await raw('GET', `/?token=${con.token}`);
  cookie = String(r.headers['set-cookie']).split(';')[0];
});

after(async () => {
  process.stdout.write = realOut;
  process.stderr.write = realErr;
  await con.close();
  host.close();
});

test('the URL carries a 32-hex token and the server listens on 127.0.0.1 only', () => {
  assert.match(con.token, /^[0-9a-f]{32}$/);
  assert.equal(con.url, `http://127.0.0.1:${con.port}/?token=${con.token}`);
  assert.ok(con.port > 0);
});

test('startConsole refuses a non-loopback hostname', async () => {
  await assert.rejects(startConsole({ host, hostname: '0.0.0.0' as '127.0.0.1' }), /127\.0\.0\.1 only/);
});

test('first page load trades ?token= for a separate session secret in an HttpOnly SameSite=Strict cookie, never the token', async () => {
  const r = await raw('GET', `/?token=${con.token}`);
  assert.equal(r.status, 303);
  assert.equal(r.headers.location, '/');
  const set = String(r.headers['set-cookie']);
  // Cookies are not scoped by port: every service on 127.0.0.1 receives them, so the token is never one.
  assert.ok(!set.includes(con.token), `the cookie must not carry the token: ${set}`);
  assert.match(set, new RegExp(`^parley_console_${con.port}=[A-Za-z0-9_-]{43};`));
  assert.match(set, /HttpOnly/);
  assert.match(set, /SameSite=Strict/);
  assert.match(set, /Path=\//);
  assert.match(set, /Max-Age=43200/);
  assert.equal(r.headers['cache-control'], 'no-store');
  // Each exchange makes a new session; both work.
  const again = String((await raw('GET', `/?token=${con.token}`)).headers['set-cookie']).split(';')[0];
  assert.notEqual(again, cookie);
  assert.equal((await raw('GET', '/api/servers', { cookie: again })).status, 200);
  const page = await raw('GET', '/', { cookie });
  assert.equal(page.status, 200);
  assert.match(page.body, /<title>parley console<\/title>/);
  assert.match(String(page.headers['content-security-policy']), /default-src 'none'/);
  assert.equal(page.headers['x-content-type-options'], 'nosniff');
});

test('a valid ?token= wins over a stale or planted cookie; planted cookies do not lock the API', async () => {
  const stale = `parley_console_${con.port}=${'A'.repeat(43)}`;
  const old = `parley_console_${con.port}=${con.token}`; // an old-style cookie holding a token
  const r = await raw('GET', `/?token=${con.token}`, { cookie: `parley_console=${'0'.repeat(32)}; ${stale}; ${old}` });
  assert.equal(r.status, 303, r.body);
  const fresh = String(r.headers['set-cookie']).split(';')[0];
  // A page on another 127.0.0.1 port planted `parley_console_<port>=junk; Path=/api`: browsers send it first.
  assert.equal((await raw('GET', '/api/servers', { cookie: `${stale}; ${fresh}` })).status, 200);
  assert.equal((await raw('GET', '/api/servers', { cookie: `${stale}` })).status, 401);
});

test('a refused browser gets a page saying why and what to do; scripts get JSON with the reason', async () => {
  const html = { accept: 'text/html,application/xhtml+xml' };
  const none = await raw('GET', '/', html);
  assert.equal(none.status, 401);
  assert.match(String(none.headers['content-type']), /text\/html/);
  assert.match(none.body, /data-reason="no-token"/);
  assert.match(none.body, /open the console address printed when parley started/);
  const stale = await raw('GET', '/', { ...html, cookie: `parley_console_${con.port}=${'B'.repeat(43)}` });
  assert.match(stale.body, /data-reason="session-ended"/);
  assert.match(stale.body, /session has ended/);
  const wrong = await raw('GET', `/?token=${'f'.repeat(32)}`, html);
  assert.match(wrong.body, /data-reason="wrong-token"/);
  assert.match(wrong.body, /earlier run/);
  const api = await raw('GET', '/api/servers');
  assert.equal(JSON.parse(api.body).reason, 'no-token');
});

test('a session ends after sessionTtlMs; the token URL starts a new one', async () => {
  // Two requests must land within one session's life and a loaded machine can take hundreds of ms for
  // them: a life of 300 ms ended some sessions before their first API call.
  const ttl = 2_000;
  const short = await startConsole({ host, port: 0, sessionTtlMs: ttl });
  try {
    const get = (path: string, headers: Record<string, string> = {}) => fetch(`${short.origin}${path}`, { headers, redirect: 'manual' });
    const r = await get(`/?token=${short.token}`);
    const bornBy = Date.now();
    const c = String(r.headers.get('set-cookie')).split(';')[0];
    assert.match(String(r.headers.get('set-cookie')), /Max-Age=0|Max-Age=\d/);
    assert.equal((await get('/api/servers', { cookie: c })).status, 200);
    await new Promise((res) => setTimeout(res, bornBy + ttl + 100 - Date.now()));
    const ended = await get('/api/servers', { cookie: c });
    assert.equal(ended.status, 401);
    assert.equal(((await ended.json()) as { reason: string }).reason, 'session-ended');
    const again = String((await get(`/?token=${short.token}`)).headers.get('set-cookie')).split(';')[0];
    assert.equal((await get('/api/servers', { cookie: again })).status, 200);
  } finally {
    await short.close();
  }
});

test('missing or wrong token → 401 on the page, assets and API', async () => {
  for (const path of ['/', '/app.js', '/app.css', '/api/servers', '/api/events', '/api/prompts']) {
    assert.equal((await raw('GET', path)).status, 401, path);
    assert.equal((await raw('GET', path, { cookie: `parley_console_${con.port}=` + '0'.repeat(43) })).status, 401, path);
    // The token itself is not a session.
    assert.equal((await raw('GET', path, { cookie: `parley_console_${con.port}=${con.token}` })).status, 401, path);
  }
  assert.equal((await raw('GET', `/?token=${'f'.repeat(32)}`)).status, 401);
  // The query token is accepted only on the first page load, never on the API.
  assert.equal((await raw('GET', `/api/servers?token=${con.token}`)).status, 401);
  const r = await raw('GET', '/api/servers', { authorization: `Bearer ${'a'.repeat(32)}` });
  assert.equal(r.status, 401);
  assert.doesNotMatch(r.body, new RegExp(con.token));
});

test('cookie or bearer token opens the API', async () => {
  assert.equal((await raw('GET', '/api/servers', { cookie })).status, 200);
  const r = await raw('GET', '/api/servers', { authorization: `Bearer ${con.token}` });
  assert.equal(r.status, 200);
  assert.equal(JSON.parse(r.body)[0].name, 'everything');
});

test('a foreign Host header (DNS rebinding) → 403 even with the token', async () => {
  for (const h of [`evil.example:${con.port}`, '127.0.0.1', `127.0.0.1:${con.port + 1}`, `[::1]:${con.port}`]) {
    assert.equal((await raw('GET', '/api/servers', { host: h, cookie })).status, 403, h);
  }
  assert.equal((await raw('GET', '/api/servers', { host: `localhost:${con.port}`, cookie })).status, 200);
});

test('state-changing requests need the console origin: foreign Origin → 403, own → 200', async () => {
  const json = { 'content-type': 'application/json' };
  const evil = await raw('POST', '/api/servers/files/restart', { ...json, cookie, origin: 'http://evil.example' }, '{}');
  assert.equal(evil.status, 403);
  assert.equal(
    (await raw('POST', '/api/servers/files/restart', { ...json, cookie, origin: `http://127.0.0.1:${con.port + 1}` }, '{}')).status,
    403,
  );
  assert.equal((await raw('POST', '/api/servers/files/restart', { ...json, cookie, origin: 'null' }, '{}')).status, 403);
  // Cookie alone without Origin: refused (browsers always send Origin on POST).
  assert.equal((await raw('POST', '/api/servers/files/restart', { ...json, cookie }, '{}')).status, 403);
  assert.equal(
    (
      await raw(
        'POST',
        '/api/servers/files/restart',
        { ...json, cookie, origin: `http://127.0.0.1:${con.port}`, 'sec-fetch-site': 'cross-site' },
        '{}',
      )
    ).status,
    403,
  );
  assert.equal(host.servers[1].state, 'failed', 'no refused request reached the host');
  const ok = await raw(
    'POST',
    '/api/servers/files/restart',
    { ...json, cookie, origin: `http://127.0.0.1:${con.port}`, 'sec-fetch-site': 'same-origin' },
    '{}',
  );
  assert.equal(ok.status, 200);
  assert.equal(host.servers[1].state, 'ready');
  // A script with the bearer token and no Origin may change state.
  assert.equal((await raw('POST', '/api/servers/everything/restart', { ...json, authorization: `Bearer ${con.token}` }, '{}')).status, 200);
  // Foreign Origin with a valid bearer is still refused.
  assert.equal(
    (
      await raw(
        'POST',
        '/api/servers/everything/restart',
        { ...json, authorization: `Bearer ${con.token}`, origin: 'http://evil.example' },
        '{}',
      )
    ).status,
    403,
  );
});

test('API bodies over 1 MiB are refused with 413', async () => {
  const big = JSON.stringify({ uri: 'file:///x', name: 'x'.repeat(1024 * 1024 + 10) });
  const r = await raw(
    'POST',
    '/api/roots',
    { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(big)), authorization: `Bearer ${con.token}` },
    big,
  );
  assert.equal(r.status, 413);
  assert.equal(host.roots.list().length, 0);
});

test('every answer carries the same security headers: page, assets, API, 404, refusals, the token redirect, 413, events', async () => {
  const CSP =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";
  const bearer = { authorization: `Bearer ${con.token}` };
  const big = 'x'.repeat(1024 * 1024 + 1);
  const answers: Array<[string, Awaited<ReturnType<typeof raw>>]> = [
    ['page', await raw('GET', '/', { cookie })],
    ['script', await raw('GET', '/app.js', { cookie })],
    ['styles', await raw('GET', '/app.css', { cookie })],
    ['api', await raw('GET', '/api/servers', bearer)],
    ['404', await raw('GET', '/api/nothing-here', bearer)],
    ['refusal page', await raw('GET', '/', { accept: 'text/html' })],
    ['refusal json', await raw('GET', '/api/servers')],
    ['host 403', await raw('GET', '/api/servers', { host: 'evil.example', cookie })],
    ['token redirect', await raw('GET', `/?token=${con.token}`)],
    ['413', await raw('POST', '/api/roots', { ...bearer, 'content-type': 'application/json', 'content-length': String(big.length) }, big)],
  ];
  for (const [what, r] of answers) {
    assert.equal(r.headers['content-security-policy'], CSP, what);
    assert.equal(r.headers['x-frame-options'], 'DENY', what);
    assert.equal(r.headers['x-content-type-options'], 'nosniff', what);
    assert.equal(r.headers['referrer-policy'], 'no-referrer', what);
    assert.equal(r.headers['cache-control'], 'no-store', what);
    assert.equal(r.headers['cross-origin-opener-policy'], 'same-origin', what);
    assert.equal(r.headers['cross-origin-resource-policy'], 'same-origin', what);
    assert.equal(r.headers['strict-transport-security'], undefined, `${what}: no HSTS on plain-HTTP loopback`);
  }
  assert.deepEqual(
    answers.map(([what, r]) => [what, r.status]),
    [
      ['page', 200],
      ['script', 200],
      ['styles', 200],
      ['api', 200],
      ['404', 404],
      ['refusal page', 401],
      ['refusal json', 401],
      ['host 403', 403],
      ['token redirect', 303],
      ['413', 413],
    ],
  );
  // The event stream's headers, read without waiting for its end.
  const ac = new AbortController();
  const events = await fetch(`${con.origin}/api/events`, { headers: bearer, signal: ac.signal });
  try {
    assert.equal(events.headers.get('content-security-policy'), CSP);
    assert.equal(events.headers.get('x-frame-options'), 'DENY');
    assert.equal(events.headers.get('cache-control'), 'no-store');
  } finally {
    ac.abort();
  }
});

test('the token never appears in anything written to stdout or stderr', () => {
  assert.ok(!written.join('').includes(con.token));
});

test('a request that stalls mid-headers gets 408 within requestReceiveMs and its connection closes', { timeout: 30_000 }, async (t) => {
  const { connect } = await import('node:net');
  const host = createTestHost();
  const c = await startConsole({ host, port: 0, requestReceiveMs: 1_500 });
  t.after(() => c.close());
  const started = Date.now();
  const got = await new Promise<string>((resolve, reject) => {
    const sock = connect(c.port, '127.0.0.1', () => sock.write('GET /api/prompts HTTP/1.1\r\nhost: 127.0.0.1\r\nx-'));
    let text = '';
    sock.on('data', (d) => (text += d.toString('latin1')));
    sock.on('error', reject);
    sock.on('close', () => resolve(text));
    setTimeout(() => (sock.destroy(), resolve(`(still open) ${text}`)), 10_000).unref();
  });
  assert.match(got, /^HTTP\/1\.1 408 /, got);
  assert.ok(Date.now() - started < 1_500 + 1_000 + 2_000, `ended after ${Date.now() - started} ms`);
});
