/**
 * `startConsole`: the web console of `parley up`. Serves the page, its script and styles, the JSON
 * API and a server-sent event stream, on 127.0.0.1 only, behind a per-run token. See
 * docs/console.md for the panels, the API and the security model.
 * @module
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { bodyLimit } from 'hono/body-limit';
import { setCookie } from 'hono/cookie';
import { html } from 'hono/html';
import { secureHeaders } from 'hono/secure-headers';
import type { HostApi } from './hostApi.js';
import type { WebPresenter } from './presenter.js';
import { apiRoutes } from './api.js';
import { cookieName, guard, newToken, Sessions, SESSION_TTL_MS, type Refusal } from './security.js';
import { SseHub } from './sse.js';
import { PAGE_HTML } from './assets/page.js';
import { APP_CSS } from './assets/style.js';
import { APP_JS } from './assets/app.js';

export interface ConsoleOptions {
  host: HostApi;
  /** Pending elicitations are shown and answered when given. */
  presenter?: WebPresenter;
  /** TCP port; 0 picks a free one. @default 0 */
  port?: number;
  /** Only loopback is allowed. @default '127.0.0.1' */
  hostname?: '127.0.0.1';
  /** SSE keep-alive period in ms. @default 15000 */
  heartbeatMs?: number;
  /** Lifetime of a browser session (cookie `Max-Age` and server-side expiry), ms. @default 43_200_000 (12 h) */
  sessionTtlMs?: number;
  /**
   * Longest time to receive one request's headers and body, ms (Node's `requestTimeout`, checked every
   * second): a client that stalls gets HTTP 408 and its connection is closed. @default 30_000
   */
  requestReceiveMs?: number;
}

export interface ConsoleHandle {
  /**
   * `http://127.0.0.1:<port>/?token=<token>`: give it to a person once (a TTY, `--open`, a 0600 file),
   * never to a log.
   */
  url: string;
  /** The origin without the token, e.g. `http://127.0.0.1:5173`. */
  origin: string;
  token: string;
  port: number;
  /** Stops the server, ends every event stream. Pending prompts stay with the presenter. */
  close(): Promise<void>;
}

/** Largest accepted API request body, in bytes (1 MiB). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The page a browser gets when access is refused: what happened and what to do (escaped by `html`). */
const refusalPage = (r: Refusal) => html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>parley console: no access</title></head>
<body><main><h1>parley console: no access</h1><p id="refusal" data-reason="${r.reason}">${r.message}</p></main></body></html>
`;

/**
 * The console's security headers, set by Hono's `secureHeaders` on every answer (page, assets, API,
 * event stream, refusals, the token redirect): the CSP below, `X-Frame-Options: DENY` (stricter than
 * Hono's `SAMEORIGIN`), `Referrer-Policy: no-referrer`, `X-Content-Type-Options: nosniff`, and Hono's
 * other defaults (`Cross-Origin-Opener-Policy` and `Cross-Origin-Resource-Policy: same-origin`,
 * `Origin-Agent-Cluster: ?1`, `X-DNS-Prefetch-Control: off`, `X-Download-Options: noopen`,
 * `X-Permitted-Cross-Domain-Policies: none`, `X-XSS-Protection: 0`). No `Strict-Transport-Security`:
 * the console is plain HTTP on 127.0.0.1, where browsers ignore it (RFC 6797 §8.1).
 */
const securityHeaders = () =>
  secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ['data:'],
      connectSrc: ["'self'"],
      formAction: ["'none'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
    xFrameOptions: 'DENY',
    referrerPolicy: 'no-referrer',
    xContentTypeOptions: 'nosniff',
    strictTransportSecurity: false,
  });

/**
 * Starts the console. @throws Error when `hostname` is not loopback or the port is taken.
 * @returns the URL to print (with the token) and `close()`.
 */
export async function startConsole(opts: ConsoleOptions): Promise<ConsoleHandle> {
  const hostname = opts.hostname ?? '127.0.0.1';
  if (hostname !== '127.0.0.1') throw new Error(`The console binds 127.0.0.1 only (got hostname "${String(hostname)}").`);
  const token = newToken();
  const sessions = new Sessions(opts.sessionTtlMs ?? SESSION_TTL_MS);
  const hub = new SseHub(opts.heartbeatMs);
  let port = 0;

  const app = new Hono();
  app.use('*', securityHeaders());
  // Nothing the console answers may be cached: answers, audit rows, the page with its session.
  app.use('*', async (c, next) => {
    await next();
    c.res.headers.set('cache-control', 'no-store');
  });
  app.use('*', async (c, next) => {
    const access = guard(
      {
        method: c.req.method,
        host: c.req.header('host'),
        origin: c.req.header('origin'),
        secFetchSite: c.req.header('sec-fetch-site'),
        cookie: c.req.header('cookie'),
        authorization: c.req.header('authorization'),
        queryToken: c.req.path === '/' ? c.req.query('token') : undefined,
      },
      token,
      port,
      sessions,
    );
    if (!access.ok) {
      const r = access.refusal;
      const page = c.req.method === 'GET' && !c.req.path.startsWith('/api/') && (c.req.header('accept') ?? '').includes('text/html');
      return page ? c.html(refusalPage(r), r.status) : c.json({ error: r.message, reason: r.reason }, r.status);
    }
    if (access.by === 'token') {
      // Trade the URL token for a session of its own (the cookie never holds the token), then drop the
      // token from the address bar and history. A valid token always wins over whatever cookies came.
      setCookie(c, cookieName(port), sessions.create(), {
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
        maxAge: Math.floor(sessions.ttlMs / 1000),
      });
      return c.redirect('/', 303);
    }
    await next();
  });

  app.use(
    '/api/*',
    bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.json({ error: `Request body over ${MAX_BODY_BYTES} bytes.` }, 413) }),
  );

  app.get('/', (c) => c.html(PAGE_HTML));
  app.get('/app.js', (c) => c.body(APP_JS, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/app.css', (c) => c.body(APP_CSS, 200, { 'content-type': 'text/css; charset=utf-8' }));
  app.get('/api/events', (c) =>
    hub.open(c, { event: 'snapshot', data: { prompts: opts.presenter?.pending() ?? [], notices: opts.presenter?.recentNotices() ?? [] } }),
  );
  app.route('/api', apiRoutes(opts.host, opts.presenter));
  // A person who reloads or types a sub-address (/tools, /roots, /index.html) gets the page, at the
  // section of that name when there is one, instead of a JSON 404; the browser's own /favicon.ico
  // gets an empty answer. Scripts (/api/…, or no text/html in Accept) still get the JSON 404.
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.notFound((c) => {
    const page = c.req.method === 'GET' && !c.req.path.startsWith('/api/') && (c.req.header('accept') ?? '').includes('text/html');
    if (page) return c.redirect(`/${sectionFor(c.req.path)}`, 303);
    return c.json({ error: `No such console resource: ${c.req.method} ${c.req.path}` }, 404);
  });
  app.onError((e, c) => c.json({ error: `Console error: ${e.message}` }, 500));

  const unsubHost = opts.host.subscribe((e) => hub.send('host', e));
  const unsubPresenter = opts.presenter?.on((e) => hub.send(e.type, e));

  const server = await new Promise<Server>((resolve, reject) => {
    const receiveMs = opts.requestReceiveMs ?? 30_000;
    const serverOptions = { requestTimeout: receiveMs, headersTimeout: receiveMs, connectionsCheckingInterval: 1_000 };
    const s = serve({ fetch: app.fetch, port: opts.port ?? 0, hostname, serverOptions }, () => resolve(s as Server)) as Server;
    s.once('error', reject);
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        unsubHost();
        unsubPresenter?.();
        hub.closeAll();
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}

/** The page's sections a sub-address may name (`/tools` → `#tools-section`); `/prompts` is `#prompts`. */
const SECTIONS = new Set(['notices', 'servers', 'tools', 'roots', 'presets', 'answers', 'audit']);

/** `#<section>` for the first path segment of `path` when it names a section of the page, else `''`. */
function sectionFor(path: string): string {
  const first = path.split('/')[1]?.toLowerCase() ?? '';
  if (first === 'prompts' || first === 'requests') return '#prompts';
  return SECTIONS.has(first) ? `#${first}-section` : '';
}
