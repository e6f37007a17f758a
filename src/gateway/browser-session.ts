/**
 * The gateway's browser cookies for sign-in through the client (./upstream-signin.ts; docs/gateway.md
 * §"Signing in through the client"; 2025-11-25 client/elicitation §Phishing): which gateway user a
 * browser was verified to be, so that the person who opens a connect URL, and who brings the upstream
 * authorization server's redirect back, is the user who started the sign-in.
 *
 * - {@link SESSION_COOKIE} holds the verified (tenant, user) only (never a token) and expires after
 *   {@link BROWSER_SESSION_MS}; {@link LOGIN_COOKIE} holds an OpenID Connect sign-in of the browser in
 *   progress (its PKCE verifier, nonce and state) for {@link LOGIN_COOKIE_MS}.
 * - Both are AES-256-GCM sealed (authenticated: a changed byte does not open) under a key derived from
 *   `PARLEY_SECRET` (so every replica opens them) or, without it, a random key of this process (then they
 *   end with it). The cookie name is sealed in as associated data, so one cannot stand in for the other.
 * - `HttpOnly`, `SameSite=Lax`, `Secure` when publicUrl is https, `Path=<publicUrl's path>/oauth/upstream`.
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { generateCookie } from 'hono/cookie';
import { open, seal } from '../host/auth/secret.js';

/** The verified gateway user of this browser. */
export const SESSION_COOKIE = 'parley_gw_user';
/** An OpenID Connect sign-in of this browser in progress (./browser-identity.ts). */
export const LOGIN_COOKIE = 'parley_gw_login';
/** How long a browser stays verified as one gateway user, ms (8 hours). */
export const BROWSER_SESSION_MS = 8 * 3_600_000;
/** How long the browser's OpenID Connect sign-in may take, ms (10 minutes). */
export const LOGIN_COOKIE_MS = 600_000;
/** Longest cookie value opened (longer ones are ignored unread). */
const MAX_COOKIE_CHARS = 2048;

/** A gateway user: the (tenant, user) of a user space. */
export interface GatewayPerson {
  tenant: string;
  user: string;
}

/** What {@link LOGIN_COOKIE} carries between the redirect to the issuer and its answer. */
export interface LoginState {
  /** The OAuth `state` sent to the issuer. */
  state: string;
  /** PKCE code verifier. */
  verifier: string;
  /** OpenID Connect nonce. */
  nonce: string;
  /** The connect id to return to. */
  connect: string;
}

export const samePerson = (a: GatewayPerson, b: GatewayPerson) => a.tenant === b.tenant && a.user === b.user;

/** The value of cookie `name` in a `Cookie` header, or `undefined` (linear scan, bounded by the header size Node allows). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

export class BrowserSessions {
  /** `<publicUrl's path>/oauth/upstream`: the cookies go to the connect, identify and callback routes only. */
  readonly path: string;
  readonly #secure: boolean;
  readonly #key: Buffer;

  /**
   * @param publicUrl parley.json `gateway.publicUrl`
   * @param secret `PARLEY_SECRET` (replicas); without it a random key that lives as long as this process
   */
  constructor(publicUrl: string, secret?: string | Uint8Array) {
    const u = new URL(publicUrl);
    this.path = `${u.pathname.replace(/\/+$/, '')}/oauth/upstream`;
    this.#secure = u.protocol === 'https:';
    this.#key = secret ? createHash('sha256').update('parley gateway browser cookies\n').update(secret).digest() : randomBytes(32);
  }

  /** `Set-Cookie` value naming `who` as this browser's verified user for {@link BROWSER_SESSION_MS}. */
  identityCookie(who: GatewayPerson): string {
    return this.#cookie(SESSION_COOKIE, { t: who.tenant, u: who.user }, BROWSER_SESSION_MS);
  }

  /** The browser's verified user, if its cookie opens and has not expired. */
  identity(req: IncomingMessage): GatewayPerson | undefined {
    const v = this.#read(req, SESSION_COOKIE) as { t?: unknown; u?: unknown } | undefined;
    return typeof v?.t === 'string' && typeof v.u === 'string' ? { tenant: v.t, user: v.u } : undefined;
  }

  /** `Set-Cookie` value carrying an OpenID Connect sign-in in progress for {@link LOGIN_COOKIE_MS}. */
  loginCookie(s: LoginState): string {
    return this.#cookie(LOGIN_COOKIE, s, LOGIN_COOKIE_MS);
  }

  /** The OpenID Connect sign-in in progress in this browser, if its cookie opens and has not expired. */
  login(req: IncomingMessage): LoginState | undefined {
    const v = this.#read(req, LOGIN_COOKIE) as Partial<LoginState> | undefined;
    return typeof v?.state === 'string' && typeof v.verifier === 'string' && typeof v.nonce === 'string' && typeof v.connect === 'string'
      ? (v as LoginState)
      : undefined;
  }

  #cookie(name: string, value: object, ms: number): string {
    const sealed = seal(this.#key, JSON.stringify({ ...value, exp: Date.now() + ms }), name);
    return generateCookie(name, sealed, {
      path: this.path,
      httpOnly: true,
      sameSite: 'Lax',
      secure: this.#secure,
      maxAge: Math.floor(ms / 1000),
    });
  }

  #read(req: IncomingMessage, name: string): Record<string, unknown> | undefined {
    const raw = readCookie(req.headers.cookie, name);
    if (!raw || raw.length > MAX_COOKIE_CHARS) return undefined;
    try {
      const v = JSON.parse(open(this.#key, decodeURIComponent(raw), name)) as Record<string, unknown>;
      return typeof v.exp === 'number' && v.exp > Date.now() ? v : undefined;
    } catch {
      return undefined;
    }
  }
}
