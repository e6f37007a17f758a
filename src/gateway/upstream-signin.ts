/**
 * Sign-in to OAuth-protected upstream servers through the gateway user's own client (parley.json
 * `gateway.publicUrl`; docs/gateway.md §Protected upstream servers). Spec: 2025-11-25
 * client/elicitation §URL mode (a third-party authorization whose credentials the client must not see),
 * 2026-07-28 basic/patterns/mrtr (the URL request travels in `inputRequests`), MCP §Authorization.
 *
 * A call of a tool of a server the user must sign in to (its start failed with `SIGN_IN_REQUIRED`)
 * asks the client, in URL mode, to open a **connect URL** (`<publicUrl>/oauth/upstream/connect?id=…`,
 * {@link UPSTREAM_CONNECT_PATH}; client/elicitation §Phishing): it redirects to the authorization URL
 * only once the browser is verified as the user who asked (the sealed identity cookie of
 * ./browser-session.ts; else the user's gateway token in a form, or an OpenID Connect sign-in at the
 * gateway's issuer, ./browser-identity.ts), and the callback requires the same cookie. The flow is the host's own
 * ({@link AuthSession}: the SDK's `auth()`, PKCE, `resource`, `iss`, the URL checks of `checkUrl`); only
 * the redirect differs: `<publicUrl>/oauth/upstream/callback` ({@link UPSTREAM_CALLBACK_PATH}), served by
 * the gateway's HTTP server behind its Host/Origin checks. There:
 * - only `GET`, request target at most {@link MAX_CALLBACK_URL_CHARS} characters;
 * - the browser's identity cookie must name the (tenant, user) that asked (else 403, the sign-in stays open);
 * - the `state` (32 random bytes, minted by the provider for this sign-in) must name a sign-in in
 *   progress; it is bound to the (tenant, user, server) that asked (its tokens are stored under that key
 *   and exchanged with that sign-in's PKCE verifier, so a code obtained for another sign-in is refused by
 *   the authorization server), single-use (removed when it arrives) and expires with the sign-in
 *   (`signInTimeoutMs`, default 300 000 ms); a missing, unknown, expired or replayed state gets 400 and
 *   changes nothing;
 * - the page never shows a token nor echoes a parameter, and forbids scripts and framing (`Content-Security-Policy`).
 * Bounds: one sign-in in progress per (tenant, user, server) (later calls share it and show its URL too); at most
 * {@link MAX_PENDING_SIGN_INS_PER_USER} per (tenant, user), {@link MAX_PENDING_SIGN_INS} in all; each bounded by `signInTimeoutMs`.
 * The sign-in in progress lives in the process that asked. With `PARLEY_SECRET` (replicas) the state
 * also names that replica under an HMAC, and a redirect a load balancer sends to another replica is
 * relayed to it over loopback (one hop, bounded by {@link CALLBACK_FORWARD_MS}), as 2025-era sessions are.
 * @module
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AuthDefaults, AuthSession, CallbackWaitError, MAX_CALLBACK_URL_CHARS, SignInError } from '../host/auth/index.js';
import type { CredentialKey, CredentialStore, SignInCallback } from '../host/auth/index.js';
import type { HttpServerDef, InputRequestView, PresenterAnswer } from '../host/index.js';
import { HttpDenial } from '../server/serve.js';
import { BrowserSessions, type GatewayPerson, LOGIN_COOKIE, SESSION_COOKIE, samePerson } from './browser-session.js';
import { isLoopbackUrl } from './forward.js';
import { CONNECT_ID, FORM_CSP, FORM_HEADERS, PAGE_HEADERS, readForm, redirect, reply, tokenForm } from './signin-pages.js';
import { hashToken, identityKey } from './users.js';

/** Path of the redirect URI on the gateway's own HTTP server. */
export const UPSTREAM_CALLBACK_PATH = '/oauth/upstream/callback';
/**
 * The tool offered (as `<server>__parley_sign_in`) to a client that declared URL mode, for each server its
 * user must sign in to: that server's tools cannot be listed before the sign-in.
 */
export const SIGN_IN_TOOL = 'parley_sign_in';
/** Most sign-ins waiting for their redirect per (tenant, user) at once. */
export const MAX_PENDING_SIGN_INS_PER_USER = 4;
/** Most sign-ins in progress in one gateway process, all users together (`maxPending`). */
export const MAX_PENDING_SIGN_INS = 1000;
/** Bound on relaying a redirect to the replica that waits for it, ms. */
export const CALLBACK_FORWARD_MS = 10_000;
/** Path of the connect URL, the one the client is shown: it checks the browser's person, then redirects upstream. */
export const UPSTREAM_CONNECT_PATH = '/oauth/upstream/connect';
/** Path where the gateway's own issuer sends a browser back after verifying its person (./browser-identity.ts). */
export const UPSTREAM_IDENTIFY_PATH = '/oauth/upstream/identify';
/** Wrong gateway tokens the connect form accepts per sign-in link; then the link is spent. */
export const MAX_CONNECT_ATTEMPTS = 5;
/** Longest gateway token the connect form hashes. */
const MAX_FORM_TOKEN_CHARS = 512;
/** Marks a redirect relayed by another replica (it is not relayed again). */
const FORWARDED = 'x-parley-signin-forwarded';

export interface UpstreamSignInOptions {
  /** parley.json `gateway.publicUrl`, e.g. `https://gw.example.com` (a trailing `/` is dropped). */
  publicUrl: string;
  credentials: CredentialStore;
  /** policy `allowLoopbackUrls`: a sign-in page on this machine (tests). @default false */
  allowLoopbackUrls?: boolean;
  /** Bound on one sign-in (the person's time and the redirect), ms. @default 300 000 */
  signInTimeoutMs?: number;
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  /**
   * Replicas (`PARLEY_SECRET`): each `state` then also names, under an HMAC-SHA256 with this key, the
   * replica that waits for the redirect (its loopback URL), and a redirect that reaches another replica is
   * relayed there (bounded by {@link CALLBACK_FORWARD_MS}). Without it a state is 32 random bytes.
   */
  secret?: string | Uint8Array;
  /**
   * Most sign-ins in progress at once, all users together: each holds a PKCE verifier, a state and a
   * timer for up to `signInTimeoutMs`, and users may be any subject of the gateway's issuer.
   * @default {@link MAX_PENDING_SIGN_INS} (1000)
   */
  maxPending?: number;
  /** This replica's MCP URL once it serves (named in states with `secret`). */
  selfUrl?: () => string | undefined;
  /**
   * Static-token users (identity → token hash, ./users.ts `gatewayIdentities`): the connect page
   * identifies such a user by their gateway token, posted in a form. @default none
   */
  users?: Record<string, { tokenSha256: string }>;
  /**
   * The OpenID Connect sign-in of the browser at the gateway's own issuer (`gateway.oauth.browserClient`,
   * ./browser-identity.ts), which identifies the other users (those of `gateway.oauth`). @default none
   */
  browser?: BrowserSignIn;
  /**
   * parley.json `gateway.unverifiedSignIn`: offer the sign-in also to users no browser can be checked
   * for (OAuth users without `browserClient`), without checking who opens the URL. @default false
   */
  unverified?: boolean;
}

/** How a browser proves it is a user of `gateway.oauth` (./browser-identity.ts). */
export interface BrowserSignIn {
  /** The redirect to the issuer for connect id `connect` (sets the login cookie). */
  start(connect: string, sessions: BrowserSessions): Promise<HttpDenial>;
  /** The issuer's answer at {@link UPSTREAM_IDENTIFY_PATH}: the person and the connect id to return to. @throws HttpDenial */
  finish(req: IncomingMessage, sessions: BrowserSessions): Promise<{ person: GatewayPerson; connect: string }>;
}

/** A connect URL in use: the sign-in it leads to. */
interface Connect {
  key: CredentialKey;
  /** The upstream authorization URL. */
  authUrl: string;
  /** Wrong tokens posted so far. */
  attempts: number;
}

const declinedError = (server: string, action: string) =>
  new SignInError('SIGN_IN_DECLINED', server, `sign-in for ${server} was ${action === 'decline' ? 'declined' : 'cancelled'}`);

/** What the caller does with the authorization URL: ask the client (URL-mode elicitation). */
export type AskClient = (view: InputRequestView, signal: AbortSignal) => Promise<PresenterAnswer>;

/** A sign-in in progress for one (tenant, user, server), and the authorization URL it last showed. */
interface Run {
  done: Promise<void>;
  view?: InputRequestView;
  /** Calls that joined before the URL was shown, waiting for it. */
  onView: Array<(view: InputRequestView) => void>;
  /** Calls that joined it and still wait for it. */
  joined: number;
}

interface Waiter {
  key: CredentialKey;
  resolve(params: URLSearchParams): void;
}

const digest = (s: string) => createHash('sha256').update(s).digest('hex');
const who = (k: { tenant: string; user: string }) => JSON.stringify([k.tenant, k.user]);

export class UpstreamSignIns {
  readonly redirectUrl: string;
  /** Sign-ins waiting for their redirect, by SHA-256 of the state (a map lookup leaks nothing of the state). */
  readonly #waiting = new Map<string, Waiter>();
  /** One sign-in in progress per (tenant, user, server). */
  readonly #inflight = new Map<string, Run>();
  /** Connect URLs in use, by SHA-256 of their id. */
  readonly #connects = new Map<string, Connect>();
  /** Callbacks refused (unknown, replayed or expired state, wrong method, too long), for diagnostics and tests. */
  refused = 0;
  /** The browsers' verified gateway users (./browser-session.ts). */
  readonly sessions: BrowserSessions;
  readonly #base: string;

  constructor(private readonly o: UpstreamSignInOptions) {
    this.#base = o.publicUrl.replace(/\/+$/, '');
    this.redirectUrl = `${this.#base}${UPSTREAM_CALLBACK_PATH}`;
    this.#basePath = new URL(this.#base).pathname.replace(/\/+$/, '');
    this.sessions = new BrowserSessions(this.#base, o.secret);
  }

  /** Where the gateway's issuer sends the browser back (register it as the browser client's redirect URI). */
  get identifyUrl(): string {
    return `${this.#base}${UPSTREAM_IDENTIFY_PATH}`;
  }

  /** Whether a browser can be checked to be `who`: a static-token user, or any user when the browser signs in at the issuer. */
  canVerify(who: GatewayPerson): boolean {
    return Object.hasOwn(this.o.users ?? {}, identityKey(who.tenant, who.user)) || !!this.o.browser;
  }

  /** Whether `who` is offered sign-in through the client (client/elicitation §Phishing: only when checked, unless opted out). */
  offers(who: GatewayPerson): boolean {
    return this.canVerify(who) || this.o.unverified === true;
  }

  /**
   * The host name of `publicUrl`, for the Host check of the HTTP server (which compares host names: a
   * `host:port` entry never matched, so a publicUrl with a port drew 403 "Invalid Host").
   */
  get host(): string {
    return new URL(this.redirectUrl).hostname;
  }

  /** Sign-ins waiting for their redirect for (tenant, user). */
  pending(scope: { tenant: string; user: string }): number {
    let n = 0;
    for (const w of this.#waiting.values()) if (who(w.key) === who(scope)) n++;
    return n;
  }

  /**
   * Signs (tenant, user) in to `def` through `ask` (which shows the URL to the client), and stores the
   * tokens under that key in the credential store. Concurrent calls for one key share one sign-in.
   * @throws SignInError (declined, denied, URL refused, no redirect within the bound, too many pending),
   *   or an Error with code `AUTHORIZATION_FAILED` (the token exchange failed, e.g. a foreign code)
   */
  signIn(key: CredentialKey, def: HttpServerDef, ask: AskClient): Promise<void> {
    const k = JSON.stringify([key.tenant, key.user, key.server]);
    const run = this.#inflight.get(k);
    if (run) return this.#join(run, key, ask);
    // Refused before the client is asked (the same check guards each state as it is registered).
    if ([...this.#inflight.keys()].filter((x) => x.startsWith(`${who(key).slice(0, -1)},`)).length >= MAX_PENDING_SIGN_INS_PER_USER)
      return Promise.reject(this.#tooMany(key));
    const most = this.o.maxPending ?? MAX_PENDING_SIGN_INS;
    if (this.#inflight.size >= most)
      return Promise.reject(
        Object.assign(
          new Error(
            `sign-in to "${key.server}" refused: the gateway already has ${most} sign-ins waiting for a browser (MAX_PENDING_SIGN_INS (${most}), all users); try again once some finish (each ends after signInTimeoutMs)`,
          ),
          { code: 'SIGN_IN_PENDING_CAP' },
        ),
      );
    const fresh: Run = { done: Promise.resolve(), onView: [], joined: 0 };
    let refuse!: (e: Error) => void;
    const declined = new Promise<never>((_, reject) => (refuse = reject));
    declined.catch(() => {});
    const shown: AskClient = async (view, signal) => {
      fresh.view = view;
      for (const f of fresh.onView.splice(0)) f(view);
      const answer = await ask(view, signal);
      if (answer.action === 'accept' || fresh.joined === 0) return answer;
      // Others joined and wait for this sign-in: the decline fails this call only, and the sign-in
      // stays open for them (until its redirect, or signInTimeoutMs).
      refuse(declinedError(key.server, answer.action));
      return new Promise<PresenterAnswer>((r) => signal.addEventListener('abort', () => r({ action: 'cancel' }), { once: true }));
    };
    fresh.done = this.#run(key, def, shown).finally(() => this.#inflight.delete(k));
    this.#inflight.set(k, fresh);
    return Promise.race([fresh.done, declined]);
  }

  /**
   * A later call of the same (tenant, user, server) while a sign-in is in progress: its client is shown
   * the same authorization URL too (the earlier call's client may have given up on its prompt: a
   * cancelled 2025 call, an abandoned 2026-07-28 round), and it ends with that sign-in. Its own decline
   * fails only this call, as the first call's decline does while others wait for the sign-in (with
   * none waiting, that decline ends the sign-in). The prompt is withdrawn when the sign-in ends.
   */
  #join(run: Run, key: CredentialKey, ask: AskClient): Promise<void> {
    const ended = new AbortController();
    void run.done.then(
      () => ended.abort(),
      () => ended.abort(),
    );
    run.joined++;
    const view = run.view ? Promise.resolve(run.view) : new Promise<InputRequestView>((r) => run.onView.push(r));
    const asked = view.then(async (v) => {
      if (ended.signal.aborted) return run.done;
      const answer = await ask({ ...v, id: `${v.id}+${randomBytes(4).toString('hex')}` }, ended.signal).catch(() => undefined);
      if (ended.signal.aborted || !answer) return run.done;
      if (answer.action !== 'accept') throw declinedError(key.server, answer.action);
      return run.done;
    });
    const mine = Promise.race([run.done, asked]);
    void mine.then(
      () => run.joined--,
      () => run.joined--,
    );
    return mine;
  }

  async #run(key: CredentialKey, def: HttpServerDef, ask: AskClient): Promise<void> {
    const connects: string[] = [];
    try {
      await this.#authorize(key, def, (view, signal) => ask(this.#throughConnect(key, view, connects), signal));
    } finally {
      for (const c of connects) this.#connects.delete(c);
    }
  }

  /**
   * The view the client is shown: the upstream authorization URL replaced by a connect URL
   * (`<publicUrl>/oauth/upstream/connect?id=<id>`, the id 32 random bytes, sealed with the owner replica
   * under `secret` as states are), which leads there only once the browser is checked to be `key`'s user.
   */
  #throughConnect(key: CredentialKey, view: InputRequestView, connects: string[]): InputRequestView {
    if (view.mode !== 'url' || !view.url) return view;
    const id = this.#mint('connect');
    const h = digest(id);
    connects.push(h);
    this.#connects.set(h, { key, authUrl: view.url.full, attempts: 0 });
    const full = `${this.#base}${UPSTREAM_CONNECT_PATH}?id=${id}`;
    const u = new URL(full);
    return { ...view, url: { full, host: u.hostname, asciiHost: u.hostname, warnings: [] } };
  }

  async #authorize(key: CredentialKey, def: HttpServerDef, ask: AskClient): Promise<void> {
    const session = new AuthSession(
      {
        store: this.o.credentials,
        callback: this.#callbackFor(key),
        presenter: { interactive: true, present: (view, signal) => ask(view, signal), notify: () => {} },
        scope: { tenant: key.tenant, user: key.user },
        allowLoopbackUrls: this.o.allowLoopbackUrls === true,
        signInTimeoutMs: this.o.signInTimeoutMs ?? AuthDefaults.signInTimeoutMs,
        ...(this.o.log ? { log: this.o.log } : {}),
        mintState: () => this.#mint('state'),
      },
      def,
    );
    await session.prepare();
    await session.authorize({});
  }

  /**
   * A state or connect id: `<32 random bytes>` or, with a secret and a known own URL,
   * `<32 random bytes>.<owner URL>.<HMAC>` (base64url; the HMAC also names which of the two it is).
   */
  #mint(kind: 'state' | 'connect'): string {
    const nonce = randomBytes(32).toString('base64url');
    const self = this.o.selfUrl?.();
    if (!this.o.secret || !self) return nonce;
    const body = `${nonce}.${Buffer.from(self).toString('base64url')}`;
    return `${body}.${this.#mac(kind, body)}`;
  }

  #mac(kind: 'state' | 'connect', body: string): string {
    const label = kind === 'state' ? 'parley upstream sign-in state' : 'parley upstream sign-in connect';
    return createHmac('sha256', this.o.secret!).update(`${label}\n${body}`).digest('base64url');
  }

  /** The replica a sealed state or connect id names, when the seal holds and it is a loopback URL other than this one. */
  #ownerOf(kind: 'state' | 'connect', state: string): string | undefined {
    if (!this.o.secret || state.length > 1024) return undefined;
    const parts = state.split('.');
    if (parts.length !== 3) return undefined;
    const want = Buffer.from(this.#mac(kind, `${parts[0]}.${parts[1]}`));
    const got = Buffer.from(parts[2]!);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
    const owner = Buffer.from(parts[1]!, 'base64url').toString('utf8');
    return isLoopbackUrl(owner) && owner !== this.o.selfUrl?.() ? owner : undefined;
  }

  /**
   * Relays a request (a redirect, a connect URL, the connect form) to the replica that waits for it,
   * with the browser's cookies, and answers with that replica's page and status; of its headers only a
   * `Location` (an http(s) URL) and a `Set-Cookie` of the gateway's identity or login cookie pass.
   */
  async #relay(owner: string, path: string, req: IncomingMessage, form?: URLSearchParams): Promise<HttpDenial> {
    try {
      const res = await fetch(new URL(path, owner), {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: {
          [FORWARDED]: '1',
          ...(req.headers.cookie ? { cookie: req.headers.cookie } : {}),
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(form ? { body: form.toString() } : {}),
        signal: AbortSignal.timeout(CALLBACK_FORWARD_MS),
      });
      // The owner's page (ours: no token, no echoed parameter) and status, always under our own headers:
      // whatever answers on that loopback port (a state names it under PARLEY_SECRET, which `parley auth
      // login` users hold too) cannot choose the content type or drop the CSP on the gateway's origin.
      const body = (await res.text()).slice(0, 4096);
      // The connect form's headers (form-action 'self', its referrer policy) are the one set other than the default that passes.
      const headers: Record<string, string> = {
        ...(res.headers.get('content-security-policy') === FORM_CSP ? FORM_HEADERS : PAGE_HEADERS),
      };
      const location = res.headers.get('location');
      if (location && /^https?:\/\//i.test(location)) headers.location = location;
      // The identity cookie, or the login cookie of the browser sign-in the owner starts (the identify
      // step, on whichever replica it lands, needs it); one of them per answer.
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`) || c.startsWith(`${LOGIN_COOKIE}=`));
      if (cookie) headers['set-cookie'] = cookie;
      return new HttpDenial(res.status, headers, body);
    } catch (e) {
      this.o.log?.('warn', `a sign-in request for replica ${owner} could not be relayed there: ${(e as Error).message}`);
      return reply(
        502,
        'Sign-in not completed',
        'The gateway replica that started this sign-in cannot be reached. Start the sign-in again from your client.',
      );
    }
  }

  #tooMany(key: CredentialKey): Error {
    return Object.assign(
      new Error(
        `sign-in to "${key.server}" refused: user "${key.user}" of tenant "${key.tenant}" already has ${MAX_PENDING_SIGN_INS_PER_USER} sign-ins waiting for their browser (MAX_PENDING_SIGN_INS_PER_USER); finish or abandon those first (each ends after signInTimeoutMs)`,
      ),
      { code: 'SIGN_IN_PENDING_CAP' },
    );
  }

  /** The redirect target of one key's sign-in: registers each `state` bound to `key`. */
  #callbackFor(key: CredentialKey): SignInCallback {
    const self = this;
    return {
      listen: async () => {},
      get redirectUrl() {
        return self.redirectUrl;
      },
      expect: (state, timeoutMs, signal) =>
        new Promise<URLSearchParams>((resolve, reject) => {
          if (this.pending(key) >= MAX_PENDING_SIGN_INS_PER_USER) return reject(this.#tooMany(key));
          const id = digest(state);
          let timer: ReturnType<typeof setTimeout> | undefined;
          const done = () => {
            clearTimeout(timer);
            if (this.#waiting.get(id) === waiter) this.#waiting.delete(id);
            signal?.removeEventListener('abort', onAbort);
          };
          const waiter: Waiter = { key, resolve: (p) => (done(), resolve(p)) };
          const onAbort = () => (done(), reject(new CallbackWaitError('SIGN_IN_ABORTED', 'sign-in abandoned (the request was cancelled)')));
          if (signal?.aborted) return onAbort();
          this.#waiting.set(id, waiter);
          signal?.addEventListener('abort', onAbort, { once: true });
          timer = setTimeout(
            () => (done(), reject(new CallbackWaitError('SIGN_IN_TIMEOUT', `no sign-in completed within ${timeoutMs} ms`))),
            timeoutMs,
          );
        }),
    };
  }

  /** The path of `publicUrl` without a trailing `/` (`/parley` for `https://gw.example.com/parley/`). */
  readonly #basePath: string;

  /** Whether `pathname` is `path`, bare or under `publicUrl`'s path (a proxy that passes `/parley/…` on unchanged). */
  #at(pathname: string, path: string): boolean {
    return pathname === path || pathname === `${this.#basePath}${path}`;
  }

  /**
   * The gateway's HTTP routes for {@link UPSTREAM_CONNECT_PATH}, {@link UPSTREAM_IDENTIFY_PATH} and
   * {@link UPSTREAM_CALLBACK_PATH}, also under `publicUrl`'s path, after the Host/Origin checks of
   * `serve()` (a cross-site form post carries a foreign Origin and is refused there); `undefined` for any
   * other path.
   */
  route(pathname: string, req: IncomingMessage): HttpDenial | Promise<HttpDenial> | undefined {
    if (this.#at(pathname, UPSTREAM_CONNECT_PATH)) return this.#connect(req).catch((e) => this.#refusal(e));
    if (this.#at(pathname, UPSTREAM_IDENTIFY_PATH)) return this.#identify(req).catch((e) => this.#refusal(e));
    if (!this.#at(pathname, UPSTREAM_CALLBACK_PATH)) return undefined;
    const target = req.url ?? '';
    if (req.method !== 'GET') {
      this.refused++;
      return reply(405, 'Refused', 'Only GET.');
    }
    if (target.length > MAX_CALLBACK_URL_CHARS) {
      this.refused++;
      return reply(414, 'Refused', 'The sign-in answer is too long.');
    }
    const params = new URL(target, 'http://gateway').searchParams;
    const state = params.get('state') ?? '';
    const id = state ? digest(state) : '';
    const waiter = id ? this.#waiting.get(id) : undefined;
    if (!waiter) {
      // Started on another replica (replicas behind a load balancer): relay it there, once.
      const owner = state && !req.headers[FORWARDED] ? this.#ownerOf('state', state) : undefined;
      if (owner) return this.#relay(owner, `${UPSTREAM_CALLBACK_PATH}${new URL(target, 'http://gateway').search}`, req);
      this.refused++;
      this.o.log?.('info', 'a sign-in redirect with an unknown, expired or already used state was refused'); // info: anyone can send these
      return reply(
        400,
        'Sign-in refused',
        'This sign-in answer does not belong to a sign-in in progress (unknown, expired or already used). Nothing was done.',
      );
    }
    // The browser must be the one checked at the connect URL (client/elicitation §Phishing): an
    // authorization URL forwarded to someone else comes back without the requesting user's cookie.
    // The sign-in stays open for the right person.
    if (!this.#mayComplete(req, waiter.key)) {
      this.refused++;
      this.o.log?.(
        'warn',
        `a sign-in redirect for a user of tenant "${waiter.key.tenant}" came from a browser not verified as that user; refused`,
      );
      return reply(
        403,
        'Sign-in refused',
        'This browser is not signed in to the gateway as the user who started this sign-in. Open the sign-in link your client showed, in your own browser. Nothing was stored.',
      );
    }
    this.#waiting.delete(id); // single-use
    waiter.resolve(params);
    if (params.has('error'))
      return reply(200, 'Sign-in not completed', 'The authorization server did not grant access. You can close this tab.');
    return reply(200, 'Signed in', 'parley is finishing the sign-in. You can close this tab and return to your client.');
  }

  /** Whether this browser may finish `key`'s sign-in: its verified user is `key`'s (unchecked only when opted out for users no browser can be checked for). */
  #mayComplete(req: IncomingMessage, key: GatewayPerson): boolean {
    if (this.o.unverified && !this.canVerify(key)) return true;
    const me = this.sessions.identity(req);
    return !!me && samePerson(me, key);
  }

  /**
   * The connect URL (GET, the link the client showed) and its form (POST `id`, `token`): identifies the
   * person in this browser (the identity cookie; else the gateway token for a static-token user; else
   * the OpenID Connect sign-in at the gateway's issuer) and redirects to the upstream authorization URL
   * only when that is the user who started the sign-in. Single-use once it redirected there.
   */
  async #connect(req: IncomingMessage): Promise<HttpDenial> {
    const target = req.url ?? '';
    if (req.method !== 'GET' && req.method !== 'POST') return reply(405, 'Refused', 'Only GET and POST.');
    if (target.length > MAX_CALLBACK_URL_CHARS) return reply(414, 'Refused', 'The sign-in link is too long.');
    const form = req.method === 'POST' ? await readForm(req) : undefined;
    const id = (form ?? new URL(target, 'http://gateway').searchParams).get('id') ?? '';
    const h = CONNECT_ID.test(id) ? digest(id) : '';
    const c = h ? this.#connects.get(h) : undefined;
    if (!c) {
      const owner = h && !req.headers[FORWARDED] ? this.#ownerOf('connect', id) : undefined;
      if (owner) return this.#relay(owner, `${UPSTREAM_CONNECT_PATH}${form ? '' : `?id=${id}`}`, req, form);
      this.refused++;
      return reply(
        400,
        'Sign-in refused',
        'This sign-in link is unknown, expired or already used. Start the sign-in again from your client.',
      );
    }
    const isStatic = Object.hasOwn(this.o.users ?? {}, identityKey(c.key.tenant, c.key.user));
    const pass = (cookie?: string) => (this.#connects.delete(h), redirect(c.authUrl, cookie));
    if (form) {
      if (!isStatic) return reply(403, 'Sign-in refused', 'This sign-in is not checked with a gateway token.');
      const token = form.get('token') ?? '';
      if (token && token.length <= MAX_FORM_TOKEN_CHARS && this.#tokenMatches(c.key, token))
        return pass(this.sessions.identityCookie(c.key));
      if (++c.attempts >= MAX_CONNECT_ATTEMPTS) {
        this.#connects.delete(h);
        this.o.log?.(
          'warn',
          `a sign-in link of a user of tenant "${c.key.tenant}" got ${MAX_CONNECT_ATTEMPTS} wrong gateway tokens; it is spent`,
        );
        return reply(
          429,
          'Sign-in refused',
          'Too many wrong tokens for this sign-in link; it no longer works. Start the sign-in again from your client.',
        );
      }
      return tokenForm(403, id, 'That is not the gateway token of the user who started this sign-in.');
    }
    const me = this.sessions.identity(req);
    if (me && samePerson(me, c.key)) return pass();
    if (this.o.unverified && !this.canVerify(c.key)) return pass();
    const other = 'This sign-in was started by another gateway user than the one this browser is signed in as.';
    if (isStatic)
      return me
        ? tokenForm(403, id, other)
        : tokenForm(200, id, 'Before you sign in, the gateway checks that you are the user who started this sign-in.');
    if (me) return reply(403, 'Not your sign-in', `${other} Nothing was done; the sign-in stays open for the user who started it.`);
    if (this.o.browser) return this.o.browser.start(id, this.sessions);
    return reply(403, 'Sign-in refused', 'The gateway cannot check who you are for this sign-in.');
  }

  /** The issuer's answer to the browser's OpenID Connect sign-in: remember its person, then back to the connect URL. */
  async #identify(req: IncomingMessage): Promise<HttpDenial> {
    if (!this.o.browser) return reply(404, 'Not found', 'No browser sign-in is configured.');
    if (req.method !== 'GET') return reply(405, 'Refused', 'Only GET.');
    if ((req.url ?? '').length > MAX_CALLBACK_URL_CHARS) return reply(414, 'Refused', 'The sign-in answer is too long.');
    const { person, connect } = await this.o.browser.finish(req, this.sessions);
    return redirect(`${this.#base}${UPSTREAM_CONNECT_PATH}?id=${connect}`, this.sessions.identityCookie(person));
  }

  /** A page thrown by a step (a malformed form, the issuer's refusal) is the answer; anything else is logged and a 502 without detail. */
  #refusal(e: unknown): HttpDenial {
    if (e instanceof HttpDenial) return e;
    this.o.log?.('warn', `a sign-in step failed: ${(e as Error).message}`);
    return reply(
      502,
      'Sign-in not completed',
      "The gateway could not check who you are with its issuer. Try again from your client's sign-in link.",
    );
  }

  /** SHA-256 of `token` against `key`'s user's configured hash, in constant time. */
  #tokenMatches(key: GatewayPerson, token: string): boolean {
    const want = this.o.users?.[identityKey(key.tenant, key.user)];
    if (!want) return false;
    const a = Buffer.from(hashToken(token), 'hex');
    const b = Buffer.from(want.tokenSha256, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
