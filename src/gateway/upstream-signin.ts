/**
 * Sign-in to OAuth-protected upstream servers through the gateway user's own client (parley.json
 * `gateway.publicUrl`; docs/gateway.md §Protected upstream servers). Spec: 2025-11-25
 * client/elicitation §URL mode (a third-party authorization whose credentials the client must not see),
 * 2026-07-28 basic/patterns/mrtr (the URL request travels in `inputRequests`), MCP §Authorization.
 *
 * A call of a tool of a server the user must sign in to (its start failed with `SIGN_IN_REQUIRED`)
 * asks the client, in URL mode, to open the authorization URL. The flow is the host's own
 * ({@link AuthSession}: the SDK's `auth()`, PKCE, `resource`, `iss`, the URL checks of `checkUrl`); only
 * the redirect differs: `<publicUrl>/oauth/upstream/callback` ({@link UPSTREAM_CALLBACK_PATH}), served by
 * the gateway's HTTP server behind its Host/Origin checks. There:
 * - only `GET`, request target at most {@link MAX_CALLBACK_URL_CHARS} characters;
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
import { isLoopbackUrl } from './forward.js';

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
}

/** What the caller does with the authorization URL: ask the client (URL-mode elicitation). */
export type AskClient = (view: InputRequestView, signal: AbortSignal) => Promise<PresenterAnswer>;

/** A sign-in in progress for one (tenant, user, server), and the authorization URL it last showed. */
interface Run {
  done: Promise<void>;
  view?: InputRequestView;
  /** Calls that joined before the URL was shown, waiting for it. */
  onView: Array<(view: InputRequestView) => void>;
}

interface Waiter {
  key: CredentialKey;
  resolve(params: URLSearchParams): void;
}

const digest = (s: string) => createHash('sha256').update(s).digest('hex');
const who = (k: { tenant: string; user: string }) => JSON.stringify([k.tenant, k.user]);

const page = (title: string, body: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font:16px system-ui;margin:3em"><h1>${title}</h1><p>${body}</p></body>`;
/** No script, frame, form or base on the callback page (it shows fixed text only); its one inline style. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/** The callback page's headers, also for a page relayed from another replica. */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CSP,
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};
const reply = (status: number, title: string, body: string) => new HttpDenial(status, { ...PAGE_HEADERS }, page(title, body));

export class UpstreamSignIns {
  readonly redirectUrl: string;
  /** Sign-ins waiting for their redirect, by SHA-256 of the state (a map lookup leaks nothing of the state). */
  readonly #waiting = new Map<string, Waiter>();
  /** One sign-in in progress per (tenant, user, server). */
  readonly #inflight = new Map<string, Run>();
  /** Callbacks refused (unknown, replayed or expired state, wrong method, too long), for diagnostics and tests. */
  refused = 0;

  constructor(private readonly o: UpstreamSignInOptions) {
    this.redirectUrl = `${o.publicUrl.replace(/\/+$/, '')}${UPSTREAM_CALLBACK_PATH}`;
    this.#callbackPath = new URL(this.redirectUrl).pathname;
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
    const fresh: Run = { done: Promise.resolve(), onView: [] };
    const shown: AskClient = (view, signal) => {
      fresh.view = view;
      for (const f of fresh.onView.splice(0)) f(view);
      return ask(view, signal);
    };
    fresh.done = this.#run(key, def, shown).finally(() => this.#inflight.delete(k));
    this.#inflight.set(k, fresh);
    return fresh.done;
  }

  /**
   * A later call of the same (tenant, user, server) while a sign-in is in progress: its client is shown
   * the same authorization URL too (the earlier call's client may have given up on its prompt: a
   * cancelled 2025 call, an abandoned 2026-07-28 round), and it ends with that sign-in. Its own decline
   * fails only this call. The prompt is withdrawn when the sign-in ends.
   */
  #join(run: Run, key: CredentialKey, ask: AskClient): Promise<void> {
    const ended = new AbortController();
    void run.done.then(
      () => ended.abort(),
      () => ended.abort(),
    );
    const view = run.view ? Promise.resolve(run.view) : new Promise<InputRequestView>((r) => run.onView.push(r));
    const asked = view.then(async (v) => {
      if (ended.signal.aborted) return run.done;
      const answer = await ask({ ...v, id: `${v.id}+${randomBytes(4).toString('hex')}` }, ended.signal).catch(() => undefined);
      if (ended.signal.aborted || !answer) return run.done;
      if (answer.action !== 'accept')
        throw new SignInError(
          'SIGN_IN_DECLINED',
          key.server,
          `sign-in for ${key.server} was ${answer.action === 'decline' ? 'declined' : 'cancelled'}`,
        );
      return run.done;
    });
    return Promise.race([run.done, asked]);
  }

  async #run(key: CredentialKey, def: HttpServerDef, ask: AskClient): Promise<void> {
    const session = new AuthSession(
      {
        store: this.o.credentials,
        callback: this.#callbackFor(key),
        presenter: { interactive: true, present: (view, signal) => ask(view, signal), notify: () => {} },
        scope: { tenant: key.tenant, user: key.user },
        allowLoopbackUrls: this.o.allowLoopbackUrls === true,
        signInTimeoutMs: this.o.signInTimeoutMs ?? AuthDefaults.signInTimeoutMs,
        ...(this.o.log ? { log: this.o.log } : {}),
        mintState: () => this.#mintState(),
      },
      def,
    );
    await session.prepare();
    await session.authorize({});
  }

  /** `<32 random bytes>` or, with a secret and a known own URL, `<32 random bytes>.<owner URL>.<HMAC>` (base64url). */
  #mintState(): string {
    const nonce = randomBytes(32).toString('base64url');
    const self = this.o.selfUrl?.();
    if (!this.o.secret || !self) return nonce;
    const body = `${nonce}.${Buffer.from(self).toString('base64url')}`;
    return `${body}.${this.#mac(body)}`;
  }

  #mac(body: string): string {
    return createHmac('sha256', this.o.secret!).update(`parley upstream sign-in state\n${body}`).digest('base64url');
  }

  /** The replica a sealed state names, when the seal holds and it is a loopback URL other than this one. */
  #ownerOf(state: string): string | undefined {
    if (!this.o.secret || state.length > 1024) return undefined;
    const parts = state.split('.');
    if (parts.length !== 3) return undefined;
    const want = Buffer.from(this.#mac(`${parts[0]}.${parts[1]}`));
    const got = Buffer.from(parts[2]!);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
    const owner = Buffer.from(parts[1]!, 'base64url').toString('utf8');
    return isLoopbackUrl(owner) && owner !== this.o.selfUrl?.() ? owner : undefined;
  }

  /** Relays a redirect to the replica that waits for it and answers with that replica's page. */
  async #relay(owner: string, search: string): Promise<HttpDenial> {
    try {
      const res = await fetch(new URL(`${UPSTREAM_CALLBACK_PATH}${search}`, owner), {
        redirect: 'manual',
        headers: { [FORWARDED]: '1' },
        signal: AbortSignal.timeout(CALLBACK_FORWARD_MS),
      });
      // The owner's page (ours: no token, no echoed parameter) and status, always under our own headers:
      // whatever answers on that loopback port (a state names it under PARLEY_SECRET, which `parley auth
      // login` users hold too) cannot choose the content type or drop the CSP on the gateway's origin.
      const body = (await res.text()).slice(0, 4096);
      return new HttpDenial(res.status, { ...PAGE_HEADERS }, body);
    } catch (e) {
      this.o.log?.('warn', `a sign-in redirect for replica ${owner} could not be relayed there: ${(e as Error).message}`);
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

  /**
   * The callback's path as the redirect names it: {@link UPSTREAM_CALLBACK_PATH} under the path of
   * `publicUrl` (`/parley/oauth/upstream/callback` for `https://gw.example.com/parley`).
   */
  readonly #callbackPath: string;

  /**
   * The gateway's HTTP route for {@link UPSTREAM_CALLBACK_PATH}, also under `publicUrl`'s path (a proxy
   * that passes `/parley/…` on unchanged), after the Host/Origin checks of `serve()`; `undefined` for
   * any other path.
   */
  route(pathname: string, req: IncomingMessage): HttpDenial | Promise<HttpDenial> | undefined {
    if (pathname !== UPSTREAM_CALLBACK_PATH && pathname !== this.#callbackPath) return undefined;
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
      const owner = state && !req.headers[FORWARDED] ? this.#ownerOf(state) : undefined;
      if (owner) return this.#relay(owner, new URL(target, 'http://gateway').search);
      this.refused++;
      this.o.log?.('info', 'a sign-in redirect with an unknown, expired or already used state was refused'); // info: anyone can send these
      return reply(
        400,
        'Sign-in refused',
        'This sign-in answer does not belong to a sign-in in progress (unknown, expired or already used). Nothing was done.',
      );
    }
    this.#waiting.delete(id); // single-use
    waiter.resolve(params);
    if (params.has('error'))
      return reply(200, 'Sign-in not completed', 'The authorization server did not grant access. You can close this tab.');
    return reply(200, 'Signed in', 'parley is finishing the sign-in. You can close this tab and return to your client.');
  }
}
