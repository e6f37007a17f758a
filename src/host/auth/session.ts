/**
 * One protected server's authorization for one connection: the `fetch` the Streamable HTTP transport
 * sends through, and the person's side of sign-in. Spec: MCP 2025-06-18 / 2025-11-25 / 2026-07-28
 * §Authorization (RFC 9728 discovery, RFC 8414 / OIDC metadata, PKCE, RFC 8707 `resource`, step-up).
 *
 * The flows are the SDK's `auth()` with {@link ParleyOAuthProvider}; this file decides *when*:
 * - every request to the server's origin carries the stored access token (never another origin);
 * - shortly before expiry ({@link AuthDefaults.refreshSkewMs}) the token is refreshed first;
 * - 401: cached discovery is dropped (the authorization server may have changed), then `auth()` with the
 *   challenge's `resource_metadata` and `scope` (refresh, else sign-in), and the request is sent once
 *   more; a second 401 goes to the transport, which fails the request;
 * - 403 `insufficient_scope`: step-up with the union of the requested, granted and challenged scopes
 *   (a fresh authorization request when that widens the grant), then one more try per request;
 * - concurrent requests share one authorization in flight (one sign-in, not one per request).
 *
 * Sign-in: the authorization URL passes the URL-mode checks (`checkUrl`: https, or http to loopback),
 * then goes to the presenter as a URL-mode {@link InputRequestView} with `signIn` set ("*server* wants you to
 * sign in at *issuer*"). After consent the loopback {@link CallbackServer} waits for the redirect with
 * the same `state`. The whole sign-in is bounded by {@link AuthDefaults.signInTimeoutMs}; a presenter
 * that cannot ask anybody (headless) fails it at once with `SIGN_IN_REQUIRED`.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { auth, computeScopeUnion, extractWWWAuthenticateParams, isStrictScopeSuperset } from '@modelcontextprotocol/client';
import type { FetchLike } from '@modelcontextprotocol/client';
import { checkUrl } from '../broker/policy.js';
import type { HttpServerDef } from '../config/types.js';
import { UserInteractionRequiredError, type Presenter, type PresenterAnswer, type InputRequestView } from '../presenter.js';
import type { CallbackServer } from './callback-server.js';
import type { CredentialStore } from './credential-store.js';
import { NoSignInNow, ParleyOAuthProvider } from './provider.js';

export const AuthDefaults = {
  /** Bound on one sign-in (consent + browser + callback), ms. */
  signInTimeoutMs: 300_000,
  /** Refresh this long before the access token expires, ms. */
  refreshSkewMs: 60_000,
  /**
   * Bound on one request to the authorization server or the resource metadata (discovery, registration,
   * token exchange, refresh) until its response body is read, ms. Without it a hung authorization server
   * held a refresh (and every request of that server waiting on it) for undici's 300 s.
   */
  authFetchMs: 30_000,
  /**
   * A request to the server reads the stored row again first when it was last read longer ago than this,
   * ms: a `parley auth logout` (or a sign-in, a refresh) by another process (a gateway replica, the CLI)
   * reaches this one within it. One store read per server and user per period, never per request.
   */
  storeRecheckMs: 5_000,
  /** Bound on that read, ms: a store that does not answer fails the request naming it. */
  storeReadMs: 5_000,
} as const;

/**
 * Largest answer parley reads from an authorization server or a resource metadata URL (discovery,
 * registration, token), bytes: 1 MiB. Real ones are a few KiB; over it the request fails naming this cap.
 */
export const MAX_AUTH_BODY_BYTES = 1024 * 1024;

/**
 * Where the authorization redirect comes back: the host's loopback {@link CallbackServer}, or a gateway's
 * own HTTP route (`src/gateway/upstream-signin.ts`).
 */
export type SignInCallback = Pick<CallbackServer, 'listen' | 'redirectUrl' | 'expect'>;

/** Host-wide authorization settings, shared by every server's {@link AuthSession}. */
export interface AuthContext {
  store: CredentialStore;
  callback: SignInCallback;
  presenter: Presenter;
  scope: { tenant: string; user: string };
  /** @default {@link AuthDefaults.signInTimeoutMs} */
  signInTimeoutMs?: number;
  /**
   * Allow a sign-in page on this machine (policy `allowLoopbackUrls`, docs/broker.md): refused by default,
   * since a loopback page receives the parley console's session cookie. @default false
   */
  allowLoopbackUrls?: boolean;
  /** @default {@link AuthDefaults.refreshSkewMs} */
  refreshSkewMs?: number;
  /** @default {@link AuthDefaults.authFetchMs} */
  authFetchMs?: number;
  /** @default {@link AuthDefaults.storeRecheckMs} */
  storeRecheckMs?: number;
  /**
   * Back-off of a start that failed for want of authorization (`./sign-in-wait.ts`): the next use tries
   * again sooner only when a sign-in was stored. @default `SignInRetry` of `./sign-in-wait.ts` (30 000 ms, doubling, at most 600 000 ms)
   */
  signInRetry?: { firstMs: number; maxMs: number };
  /** `client_name` for dynamic registration. @default 'parley' */
  clientName?: string;
  /**
   * Mints each authorization request's `state` (at least 32 random bytes in it): a gateway's replicas
   * name the replica that waits for the redirect in it (`src/gateway/upstream-signin.ts`). @default 32 random bytes
   */
  mintState?: () => string;
  /** fetch for the authorization server (discovery, registration, tokens). @default globalThis.fetch */
  fetch?: FetchLike;
  now?: () => number;
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
}

export type SignInErrorCode =
  | 'SIGN_IN_REQUIRED'
  | 'SIGN_IN_DECLINED'
  | 'SIGN_IN_DENIED'
  | 'SIGN_IN_URL_REFUSED'
  | 'SIGN_IN_FAILED'
  | 'SIGN_IN_DEFERRED';

/** A sign-in that could not complete. The message never carries tokens or callback text. */
export class SignInError extends Error {
  override readonly name = 'SignInError';
  constructor(
    readonly code: SignInErrorCode,
    readonly server: string,
    message: string,
  ) {
    super(message);
  }
}

/** `error` codes of RFC 6749 §4.1.2.1 are shown as sent only when they are plain tokens. */
const safeCode = (v: string | null) => (v && /^[a-z_]{1,64}$/.test(v) ? v : 'error');

export class AuthSession {
  readonly provider: ParleyOAuthProvider;
  readonly #ctx: AuthContext;
  readonly #server: string;
  readonly #url: URL;
  readonly #during: <T>(fn: () => Promise<T>) => Promise<T>;
  #inflight: Promise<void> | undefined;
  /** Completed interactive sign-ins of this session. */
  signIns = 0;
  /**
   * Set by the connection while it connects: a 401 then fails the request at once (after noting it)
   * instead of authorizing inside the SDK's connect, see {@link takeDeferred}.
   */
  connecting = false;
  #deferred = false;
  /** The last authorization's error, until one succeeds (the connection reports it instead of the transport's). */
  failure: Error | undefined;
  #resourceMetadataUrl: URL | undefined;
  #scope: string | undefined;

  /** @param during runs a wait on the person (the caller pauses its clocks around it). */
  constructor(ctx: AuthContext, def: HttpServerDef, during: <T>(fn: () => Promise<T>) => Promise<T> = (fn) => fn()) {
    this.#ctx = ctx;
    this.#server = def.name;
    this.#url = new URL(def.url);
    this.#during = during;
    this.#scope = def.oauth?.scope;
    this.provider = new ParleyOAuthProvider({
      key: { ...ctx.scope, server: def.name },
      serverUrl: def.url,
      ...(def.oauth ? { oauth: def.oauth } : {}),
      store: ctx.store,
      redirectUrl: () => ctx.callback.redirectUrl,
      signIn: (url, state) => this.#signIn(url, state),
      ...(ctx.clientName ? { clientName: ctx.clientName } : {}),
      ...(ctx.now ? { now: ctx.now } : {}),
      ...(ctx.mintState ? { mintState: ctx.mintState } : {}),
    });
  }

  /** Starts the loopback listener (the redirect URI must be known before registration). */
  async prepare(): Promise<void> {
    await this.#ctx.callback.listen();
    await this.provider.load();
  }

  /** The transport's fetch (see the module comment). */
  readonly fetch: FetchLike = async (input, init) => {
    const base = this.#ctx.fetch ?? fetch;
    const target = new URL(input instanceof Request ? input.url : String(input));
    if (target.origin !== this.#url.origin) return base(input, init);
    await this.#recheckStored();
    await this.#refreshIfDue();
    const send = async () => {
      const headers = new Headers(init?.headers);
      const t = await this.provider.tokens();
      if (t?.access_token) headers.set('authorization', `Bearer ${t.access_token}`);
      return base(input, { ...init, headers });
    };
    const res = await send();
    if (res.status === 401) {
      const c = extractWWWAuthenticateParams(res);
      await res.body?.cancel().catch(() => {});
      if (c.resourceMetadataUrl) this.#resourceMetadataUrl = c.resourceMetadataUrl;
      this.#scope = c.scope ?? this.#scope;
      // Discover again: the resource may have moved to another authorization server (SEP-2352), whose
      // issuer then no longer matches the stored tokens' and client's stamps (the SDK drops those).
      if (!this.#inflight) await this.provider.invalidateCredentials('discovery');
      if (this.connecting) {
        // Not inside the connect: the SDK's era probe has its own bound, which must not count the
        // person's time. The connection authorizes (takeDeferred) and connects again.
        this.#deferred = true;
        throw new SignInError('SIGN_IN_DEFERRED', this.#server, `server ${this.#server} requires authorization`);
      }
      await this.authorize({});
      return send();
    }
    if (res.status === 403) {
      const c = extractWWWAuthenticateParams(res);
      if (c.error !== 'insufficient_scope') return res;
      await res.body?.cancel().catch(() => {});
      if (c.resourceMetadataUrl) this.#resourceMetadataUrl = c.resourceMetadataUrl;
      const granted = (await this.provider.tokens())?.scope;
      const union = computeScopeUnion(this.#scope, granted, c.scope);
      this.#scope = union;
      this.#ctx.log?.('info', `server "${this.#server}" needs more scope (${c.scope ?? 'unspecified'}); asking for ${union ?? 'it'}`);
      await this.authorize({ force: isStrictScopeSuperset(union, granted) });
      return send();
    }
    return res;
  };

  /** Whether a 401 was deferred while connecting (and forgets it). */
  takeDeferred(): boolean {
    const d = this.#deferred;
    this.#deferred = false;
    return d;
  }

  /**
   * fetch for the OAuth flow, each request bounded by {@link AuthDefaults.authFetchMs} until its body is read.
   * A timer of its own, not `AbortSignal.timeout` (on Node 20 one inside `AbortSignal.any` can be
   * collected and never fire, nodejs/node#57736).
   */
  #authFetchError: Error | undefined;
  readonly #authFetch: FetchLike = async (input, init) => {
    const ms = this.#ctx.authFetchMs ?? AuthDefaults.authFetchMs;
    const where = new URL(input instanceof Request ? input.url : String(input)).origin;
    const bound = new AbortController();
    const timer = setTimeout(
      () => bound.abort(new Error(`${where} did not answer within ${ms} ms (authFetchMs); the authorization server may be down`)),
      ms,
    );
    try {
      const signal = init?.signal ? AbortSignal.any([init.signal, bound.signal]) : bound.signal;
      const res = await (this.#ctx.fetch ?? fetch)(input, { ...init, signal });
      // The body is read under the same bound: a server that sends headers, then stalls the body, would
      // otherwise hold the refresh (and the store's refresh lock, shared by replicas) for ever.
      if (!res.body) return res;
      const parts: Uint8Array[] = [];
      let n = 0;
      const reader = res.body.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        n += r.value.length;
        if (n > MAX_AUTH_BODY_BYTES) {
          await reader.cancel().catch(() => undefined);
          throw new Error(
            `${where} sent an answer over ${MAX_AUTH_BODY_BYTES} bytes (MAX_AUTH_BODY_BYTES), the most parley reads from an authorization server`,
          );
        }
        parts.push(r.value);
      }
      return new Response(Buffer.concat(parts, n), { status: res.status, statusText: res.statusText, headers: res.headers });
    } catch (err) {
      this.#authFetchError = bound.signal.aborted ? (bound.signal.reason as Error) : (err as Error);
      throw this.#authFetchError;
    } finally {
      clearTimeout(timer);
    }
  };

  /** Whether a deferred 401 awaits {@link takeDeferred}. */
  get deferred(): boolean {
    return this.#deferred;
  }

  /**
   * Makes sure usable tokens are stored: refresh, or sign-in through the person. Concurrent calls share
   * one run. @throws SignInError, or the SDK's OAuth errors (e.g. a refused token exchange).
   */
  authorize(o: { force?: boolean; refreshOnly?: boolean }): Promise<void> {
    this.#inflight ??= this.#authorize(o).then(
      () => {
        this.failure = undefined;
        this.#inflight = undefined;
      },
      (err: unknown) => {
        // Name the server and the step; the SDK's error (OAuth error code, issuer or resource mismatch) stays the cause.
        this.failure =
          err instanceof SignInError
            ? err
            : Object.assign(
                new Error(`authorization for server "${this.#server}" failed: ${err instanceof Error ? err.message : String(err)}`, {
                  cause: err,
                }),
                { code: 'AUTHORIZATION_FAILED' },
              );
        this.#inflight = undefined;
        throw this.failure;
      },
    );
    return this.#inflight;
  }

  async #authorize(o: { force?: boolean; refreshOnly?: boolean }): Promise<void> {
    const common = {
      serverUrl: this.#url,
      ...(this.#resourceMetadataUrl ? { resourceMetadataUrl: this.#resourceMetadataUrl } : {}),
      ...(this.#scope ? { scope: this.#scope } : {}),
      fetchFn: this.#authFetch,
    };
    this.#authFetchError = undefined;
    const shared = o.force ? 'none' : await this.#refreshShared(common);
    if (shared === 'authorized') return;
    // A refresh before expiry that did not succeed while the tokens are kept (the authorization server
    // did not answer; a refused refresh drops them): the request goes on with the token held.
    if (o.refreshOnly && shared === 'refresh-failed' && (await this.provider.tokens())?.access_token) {
      const why = (this.#authFetchError as Error | undefined)?.message ?? 'the authorization server did not issue new tokens';
      throw Object.assign(new Error(why), { code: 'REFRESH_FAILED' });
    }
    // A refresh tried under the lock is not tried again outside it: straight to the sign-in.
    const force = o.force || shared === 'refresh-failed';
    const r = await auth(this.provider, { ...common, ...(force ? { forceReauthorization: true } : {}) });
    if (r === 'AUTHORIZED') return;
    const cb = this.provider.takeCallback();
    const code = cb?.get('code');
    if (!cb || !code)
      throw new SignInError('SIGN_IN_FAILED', this.#server, `sign-in for ${this.#server} ended without an authorization code`);
    const iss = cb.get('iss');
    await auth(this.provider, { ...common, authorizationCode: code, ...(iss !== null ? { iss } : {}) });
    this.signIns++;
    this.#ctx.log?.('info', `server "${this.#server}": signed in at ${this.provider.issuer ?? 'the authorization server'}`);
  }

  /**
   * Other processes share the stored tokens (replicas of a gateway on one PostgreSQL store): under the
   * store's lock on this (tenant, user, server), read the row again; tokens another process stored since
   * (a refresh, a sign-in) that are not due are used as they are. Otherwise the refresh happens here,
   * still under the lock, so no two processes spend one refresh token (a provider that rotates refresh
   * tokens revokes the grant when a used one comes back). A sign-in, which waits on a person, happens
   * after the lock is released. Resolves `authorized` when usable tokens are stored, `refresh-failed`
   * when the refresh needs a sign-in, `none` when there was nothing to refresh.
   */
  async #refreshShared(common: Parameters<typeof auth>[1]): Promise<'authorized' | 'refresh-failed' | 'none'> {
    const store = this.#ctx.store;
    const key = { ...this.#ctx.scope, server: this.#server };
    const run = async () => {
      const held = (await this.provider.tokens())?.access_token;
      await this.provider.reload();
      const stored = await this.provider.tokens();
      if (stored?.access_token && stored.access_token !== held && !this.#due()) return 'authorized' as const;
      if (!stored?.refresh_token) return 'none' as const;
      this.provider.refreshOnly = true;
      try {
        return (await auth(this.provider, common)) === 'AUTHORIZED' ? ('authorized' as const) : ('refresh-failed' as const);
      } catch (err) {
        if (err instanceof NoSignInNow) return 'refresh-failed' as const;
        throw err;
      } finally {
        this.provider.refreshOnly = false;
      }
    };
    return store.exclusive ? store.exclusive(key, run) : run();
  }

  /** How to sign in when nobody can be asked here: the command, with the user of a gateway named. */
  #signInHint(): string {
    const { tenant, user } = this.#ctx.scope;
    // An OAuth user claim may hold shell characters (`auth0|5f7c…`): quoted, the command runs as printed.
    const sh = (v: string) => (/^[A-Za-z0-9._@%+-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);
    const flags = `${user === 'default' ? '' : ` --user ${sh(user)}`}${tenant === 'default' ? '' : ` --tenant ${sh(tenant)}`}`;
    const whom = flags ? ` for user "${user}" of tenant "${tenant}"` : '';
    return `${whom}; nobody can be asked here: sign in once with \`parley auth login ${this.#server}${flags}\` on a machine with a browser, using the same --store and PARLEY_SECRET (docs/auth.md)`;
  }

  /** Whether the held access token expires within the refresh window. */
  #due(): boolean {
    const exp = this.provider.expiresAt;
    return exp !== undefined && (this.#ctx.now ?? Date.now)() >= exp - (this.#ctx.refreshSkewMs ?? AuthDefaults.refreshSkewMs);
  }

  #recheck: Promise<void> | undefined;
  /**
   * Reads the stored row again when the last read is older than {@link AuthDefaults.storeRecheckMs}, so
   * that tokens another process deleted (`parley auth logout`) stop being sent here within that period:
   * the request then goes without a token, draws a 401 and asks for a sign-in (headless: fails with
   * the `parley auth login` hint). Concurrent requests share one read; none while an authorization runs
   * (it reads the row itself). @throws Error when the store fails or does not answer within
   * {@link AuthDefaults.storeReadMs}.
   */
  async #recheckStored(): Promise<void> {
    if (this.#inflight) return;
    const at = this.provider.loadedAt;
    const now = (this.#ctx.now ?? Date.now)();
    if (at !== undefined && now - at < (this.#ctx.storeRecheckMs ?? AuthDefaults.storeRecheckMs)) return;
    this.#recheck ??= (async () => {
      const ms = AuthDefaults.storeReadMs;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the credential store did not answer within ${ms} ms (reading the sign-in of server "${this.#server}")`)),
          ms,
        );
      });
      try {
        await Promise.race([this.provider.reload(), late]);
      } finally {
        clearTimeout(timer);
        this.#recheck = undefined;
      }
    })();
    await this.#recheck;
  }

  async #refreshIfDue(): Promise<void> {
    const exp = this.provider.expiresAt;
    // While connecting, a due token is sent as is: an expired one draws a 401, which is deferred and
    // authorized outside the connect (a failed refresh may need a person).
    if (exp === undefined || this.connecting) return;
    if (this.#inflight) {
      await this.#inflight.catch(() => {}); // another request is refreshing (or signing in): use its result
      return;
    }
    const now = (this.#ctx.now ?? Date.now)();
    if (now < exp - (this.#ctx.refreshSkewMs ?? AuthDefaults.refreshSkewMs)) return;
    if (!(await this.provider.tokens())?.refresh_token) return;
    await this.authorize({ refreshOnly: true }).catch((err: unknown) => {
      if (err instanceof SignInError) throw err;
      this.#ctx.log?.(
        'warn',
        `server "${this.#server}": refreshing the access token failed (${(err as Error).message}); trying the request as is`,
      );
    });
  }

  async #signIn(url: URL, state: string): Promise<URLSearchParams> {
    const server = this.#server;
    const checked = checkUrl(url.href, { urlSchemes: ['https'], allowLoopbackUrls: this.#ctx.allowLoopbackUrls === true });
    if (!checked.ok) throw new SignInError('SIGN_IN_URL_REFUSED', server, `sign-in for ${server} refused: ${checked.message}`);
    const issuer = this.provider.issuer ?? url.origin;
    const scope = url.searchParams.get('scope') ?? undefined;
    const resource = url.searchParams.get('resource') ?? undefined;
    const view: InputRequestView = {
      id: randomUUID(),
      server,
      message: `${server} wants you to sign in at ${issuer}`,
      mode: 'url',
      url: checked.view,
      signIn: { issuer, ...(resource ? { resource } : {}), ...(scope ? { scope } : {}) },
      prefill: {},
      prefillSources: {},
      repairs: [],
      warnings: [],
      sensitiveFields: [],
      round: 1,
    };
    const ms = this.#ctx.signInTimeoutMs ?? AuthDefaults.signInTimeoutMs;
    const ac = new AbortController();
    const callback = this.#ctx.callback.expect(state, ms, ac.signal);
    callback.catch(() => {}); // observed below
    try {
      // The prompt ends with the person's answer, or when the callback arrives first (the person opened
      // the URL from the terminal or elsewhere), or when the bound passes (the callback wait rejects).
      const answer = await this.#during(() =>
        Promise.race([this.#ctx.presenter.present(view, ac.signal), callback.then((): PresenterAnswer => ({ action: 'accept' }))]),
      );
      if (answer.action !== 'accept')
        throw new SignInError(
          'SIGN_IN_DECLINED',
          server,
          `sign-in for ${server} was ${answer.action === 'decline' ? 'declined' : 'cancelled'}`,
        );
      const params = await this.#during(() => callback);
      if (params.has('error'))
        throw new SignInError('SIGN_IN_DENIED', server, `${issuer} did not grant access to ${server} (${safeCode(params.get('error'))})`);
      return params;
    } catch (err) {
      if (err instanceof UserInteractionRequiredError)
        throw new SignInError('SIGN_IN_REQUIRED', server, `sign-in required for ${server} (at ${issuer})${this.#signInHint()}`);
      if (err instanceof SignInError) throw err;
      throw new SignInError('SIGN_IN_FAILED', server, `sign-in for ${server} did not complete: ${(err as Error).message}`);
    } finally {
      ac.abort(); // withdraws a prompt still showing, ends a wait still pending
    }
  }
}
