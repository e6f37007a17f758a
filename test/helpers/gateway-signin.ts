// A team gateway for sign-in tests: one `parley serve --http --headless` from dist/ (SQLite store,
// PARLEY_SECRET), users alice and bob of tenant acme, in front of an OAuth-protected upstream server `crm`
// (a real oidc-provider, test/helpers/oidc-stack.ts); `parley auth login` against the same store.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { hashToken } from '../../src/gateway/users.js';
import { exitOf, isolatedEnv } from './cli.js';
import { freePort, MAIN } from './replicas.js';
import { walkRedirects } from '../../scripts/conformance/client.js';

export const SIGNIN_SECRET = 'a gateway secret of at least 32 characters';
export const SIGNIN_TOKENS: Record<string, string> = { alice: 'pt_signin-alice', bob: 'pt_signin-bob' };

export interface SignInGateway {
  url: string;
  port: number;
  dir: string;
  store: string;
  log: string[];
  child: ChildProcess;
  /** `parley auth <args…>` against this gateway's configuration and store; `onUrl` gets the sign-in address. */
  auth(args: string[], onUrl?: (url: string) => void): Promise<{ code: number | null; stdout: string; stderr: string }>;
  stop(): Promise<void>;
}

/** Starts the gateway; `gateway` is merged into parley.json `gateway` (`{publicUrl: true}` = its own address). */
export async function startSignInGateway(
  crmUrl: string,
  gateway: Record<string, unknown> = {},
  /** Configured servers (each an HTTP server at `crmUrl`). @default ['crm'] */
  names: string[] = ['crm'],
  /** The port to serve on. @default a free one */
  port?: number,
): Promise<SignInGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-signin-'));
  port ??= await freePort();
  const store = join(dir, 'gateway.db');
  const cfg = join(dir, 'parley.json');
  const { publicUrl, ...rest } = gateway;
  writeFileSync(
    cfg,
    JSON.stringify({
      mcpServers: Object.fromEntries(names.map((n) => [n, { url: crmUrl }])),
      policy: { allowLoopbackUrls: true },
      gateway: {
        tenants: { acme: { users: Object.fromEntries(Object.entries(SIGNIN_TOKENS).map(([u, t]) => [u, { tokenSha256: hashToken(t) }])) } },
        ...(publicUrl === true ? { publicUrl: `http://127.0.0.1:${port}` } : publicUrl ? { publicUrl } : {}),
        ...rest,
      },
    }),
  );
  const env = { ...process.env, ...isolatedEnv(dir), PARLEY_SECRET: SIGNIN_SECRET };
  const child = spawn(
    process.execPath,
    [MAIN, 'serve', '--http', '--headless', '--port', String(port), '--config', cfg, '--store', store],
    {
      env,
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const log: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not serve within 30 s:\n${log.join('')}`)), 30_000);
    child.stderr!.on('data', (d) => {
      log.push(String(d));
      if (/serving MCP at /.test(log.join(''))) clearTimeout(timer), resolve();
    });
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`gateway exited ${code}:\n${log.join('')}`))));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    dir,
    store,
    log,
    child,
    auth: (args, onUrl) =>
      new Promise((resolve, reject) => {
        const c = spawn(process.execPath, [MAIN, 'auth', ...args, '--config', cfg, '--store', store], {
          env,
          cwd: dir,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        let seen = false;
        const timer = setTimeout(() => (c.kill('SIGKILL'), reject(new Error(`parley auth: no exit in 60 s\n${stderr}`))), 60_000);
        c.stdout.on('data', (d) => (stdout += d));
        c.stderr.on('data', (d) => {
          stderr += d;
          const m = /^ {2}(http\S+)$/m.exec(stderr);
          if (m && !seen) (seen = true), onUrl?.(m[1]!);
        });
        c.on('close', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
      }),
    async stop() {
      const exited = exitOf(child);
      child.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * An SDK v2 client of `user` on `era` ('2025-06-18', '2025-11-25' or '2026-07-28'); `url` declares
 * URL-mode elicitation, whose requests go to `onUrl` (its answer is the client's).
 */
export async function signInClient(
  gatewayUrl: string,
  user: string,
  era: '2025-06-18' | '2025-11-25' | '2026-07-28',
  onUrl?: (params: { url: string; message: string; elicitationId?: string }) => Promise<{ action: 'accept' | 'decline' | 'cancel' }>,
  /** The bearer token. @default the static token of `user` ({@link SIGNIN_TOKENS}) */
  token = SIGNIN_TOKENS[user],
) {
  const c = new Client({ name: `signin-${user}`, version: '1' }, {
    capabilities: { elicitation: onUrl ? { form: {}, url: {} } : { form: {} } },
    ...(era === '2026-07-28' ? { versionNegotiation: { mode: 'auto' } } : era === '2025-06-18' ? { supportedProtocolVersions: [era] } : {}),
  } as never);
  if (onUrl)
    c.setRequestHandler('elicitation/create', async (req) => {
      const p = req.params as { mode?: string; url?: string; message: string; elicitationId?: string };
      if (p.mode !== 'url') return { action: 'decline' };
      return onUrl({ url: p.url!, message: p.message, ...(p.elicitationId ? { elicitationId: p.elicitationId } : {}) });
    });
  const completions: string[] = [];
  if (era === '2025-11-25')
    c.setNotificationHandler(
      'notifications/elicitation/complete' as never,
      ((n: { params: { elicitationId: string } }) => {
        completions.push(n.params.elicitationId);
      }) as never,
    );
  await c.connect(
    new StreamableHTTPClientTransport(new URL(gatewayUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return { client: c, completions };
}

/**
 * A person's browser: its own cookie jar (the gateway's identity cookie, the provider's session), and
 * the gateway token of `user` it types into the gateway's connect form when one is shown.
 */
export class TestBrowser {
  readonly jar = new Map<string, string>();
  /** Connect forms answered. */
  forms = 0;
  constructor(readonly user?: string) {}

  /**
   * Follows redirects (the provider's login and consent finish by themselves), stopping before a URL
   * `stop` accepts (returned unfetched, status 0) or at the first non-redirect; a connect form on the way
   * is answered with this browser's user's gateway token.
   */
  async browse(url: string, stop?: (u: string) => boolean): Promise<{ last: string; status: number }> {
    let at = await walkRedirects(url, { maxHops: 30, timeoutMs: 15_000, cookies: this.jar, ...(stop ? { stop } : {}) });
    const u = new URL(at.last);
    if (at.status === 200 && u.pathname.endsWith('/oauth/upstream/connect') && this.user) {
      this.forms++;
      const res = await this.fetch(new URL('connect', u).href, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ id: u.searchParams.get('id') ?? '', token: SIGNIN_TOKENS[this.user]! }).toString(),
      });
      await res.arrayBuffer();
      const loc = res.headers.get('location');
      if (res.status !== 302 || !loc) return { last: u.href, status: res.status };
      const next = new URL(loc, u).href;
      if (stop?.(next)) return { last: next, status: 0 };
      at = await walkRedirects(next, { maxHops: 30, timeoutMs: 15_000, cookies: this.jar, ...(stop ? { stop } : {}) });
    }
    return at;
  }

  /** {@link browse} that must end at a URL `stop` accepts (the redirect back); throws where it stopped otherwise. */
  async browseTo(url: string, stop: (u: string) => boolean): Promise<string> {
    const { last, status } = await this.browse(url, stop);
    if (status !== 0) throw new Error(`the browser stopped at ${last} (${status})`);
    return last;
  }

  /** One request with this browser's cookies (no redirect followed); keeps the cookies it sets. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.size) headers.set('cookie', [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual', signal: AbortSignal.timeout(15_000) });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      if (i > 0) this.jar.set(pair!.slice(0, i).trim(), pair!.slice(i + 1).trim());
    }
    return res;
  }
}

/** Alice's browser follows `url` (answering a connect form as `user`, default alice) up to `stop`. */
export function browse(url: string, stop?: (u: string) => boolean, user = 'alice'): Promise<{ last: string; status: number }> {
  return new TestBrowser(user).browse(url, stop);
}

/**
 * A browser of `user` (default alice) opens `url` up to the redirect back (a URL `stop` accepts), then
 * brings that redirect to the gateway; returns it and the gateway's answer.
 */
export async function completeIn(
  url: string,
  stop: (u: string) => boolean,
  user = 'alice',
): Promise<{ back: string; res: Response; browser: TestBrowser }> {
  const b = new TestBrowser(user);
  const back = await b.browseTo(url, stop);
  const res = await b.fetch(back);
  return { back, res, browser: b };
}

/** {@link TestBrowser.browseTo} in a fresh browser of `user` (default alice). */
export function browseTo(url: string, stop: (u: string) => boolean, user = 'alice'): Promise<string> {
  return new TestBrowser(user).browseTo(url, stop);
}

/** The gateway's upstream sign-in callback on its loopback address. */
export const callbackUrl = (gw: SignInGateway) => `http://127.0.0.1:${gw.port}/oauth/upstream/callback`;

/** `parley auth list --json` of `user` (tenant acme) on the gateway's store. */
export async function storedSignIns(gw: SignInGateway, user: string): Promise<Array<{ server: string; refreshable: boolean }>> {
  return JSON.parse((await gw.auth(['list', '--user', user, '--tenant', 'acme', '--json'])).stdout);
}
