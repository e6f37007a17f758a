/**
 * The console's request guard: a random per-run token, shown only in the URL bar, traded on the first
 * page load for a separate random session secret in an HttpOnly SameSite=Strict cookie; or
 * `Authorization: Bearer <token>` for scripts. A `Host` check against DNS rebinding and an `Origin`
 * check on state-changing requests against cross-site requests. The token is never logged and never
 * put in a cookie: cookies are not scoped by port, so every other service on 127.0.0.1 receives them.
 * docs/console.md §Security model.
 * @module
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** Prefix of the session cookie's name; the console's port follows (`parley_console_5173`). */
export const COOKIE_PREFIX = 'parley_console_';

/**
 * Name of the session cookie of the console on `port`. Per port, since cookies are not: two consoles
 * running at once (on different ports) must not overwrite each other's session.
 */
export const cookieName = (port: number): string => `${COOKIE_PREFIX}${port}`;

/** Lifetime of a console session (the cookie's `Max-Age` and the server-side expiry), ms: 12 hours. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** Most live sessions per console; the oldest is dropped beyond it (each token exchange makes one). */
export const MAX_SESSIONS = 64;

/** 32 hex characters from `crypto.randomBytes(16)`. */
export const newToken = (): string => randomBytes(16).toString('hex');

/** Constant-time comparison of a presented secret with the real one. */
export function tokenMatches(presented: string | undefined, token: string): boolean {
  if (typeof presented !== 'string') return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Every value of cookie `name` in a `Cookie` header, in header order. All of them, not the first:
 * another page on 127.0.0.1 may plant a cookie of the same name with a longer `Path` (e.g. `/api`),
 * which browsers send first. (Hono's `getCookie` returns the first value only.) Bounded by the header
 * size Node accepts (16 KiB by default).
 */
export function readCookies(header: string | undefined, name: string): string[] {
  const out: string[] = [];
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) out.push(part.slice(eq + 1).trim());
  }
  return out;
}

/** Reads a bearer token from an `Authorization` header. */
export function readBearer(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}

/**
 * The console's live sessions: random 256-bit secrets (base64url), each valid for `ttlMs` from its
 * creation, at most {@link MAX_SESSIONS} at once. In memory only: a restarted console has none.
 */
export class Sessions {
  private readonly live = new Map<string, number>();
  constructor(
    readonly ttlMs = SESSION_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new session secret (for the cookie). */
  create(): string {
    const secret = randomBytes(32).toString('base64url');
    this.live.set(secret, this.now() + this.ttlMs);
    while (this.live.size > MAX_SESSIONS) this.live.delete(this.live.keys().next().value as string);
    return secret;
  }

  /** True when one of `presented` is a live session. Expired ones are dropped. */
  valid(presented: readonly string[]): boolean {
    const t = this.now();
    for (const [s, until] of this.live) if (until <= t) this.live.delete(s);
    // Map lookup by a random 256-bit key: its timing tells nothing usable about other keys.
    return presented.some((p) => p.length === 43 && this.live.has(p));
  }
}

/** Hosts (with port) the console answers to. */
export const allowedHosts = (port: number): string[] => [`127.0.0.1:${port}`, `localhost:${port}`];

/** Origins allowed on state-changing requests: the console's own. */
export const allowedOrigins = (port: number): string[] => allowedHosts(port).map((h) => `http://${h}`);

/** Why a request was refused, for the person: what happened and what to do. */
export type RefusalReason = 'host' | 'origin' | 'wrong-token' | 'session-ended' | 'no-token';

/** A refusal: HTTP status and a message for the person (never containing the token). */
export interface Refusal {
  status: 401 | 403;
  reason: RefusalReason;
  message: string;
}

export interface GuardInput {
  method: string;
  host: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
  cookie: string | undefined;
  authorization: string | undefined;
  /** `?token=` of the request, if any (only the page `/` trades it for a session). */
  queryToken: string | undefined;
}

/** What a request that passed the guard presented. `'token'`: a valid `?token=` on `/` (start a session). */
export type Access = { ok: true; by: 'token' | 'session' | 'bearer' } | { ok: false; refusal: Refusal };

/** `43200000` → `12 hours`, `90000` → `2 minutes` (rounded up). */
const lifetime = (ms: number): string =>
  ms >= 3_600_000 ? `${Math.round(ms / 3_600_000)} hours` : `${Math.max(1, Math.ceil(ms / 60_000))} minutes`;

const OPEN_PRINTED =
  'open the console address printed when parley started (`parley up` prints it once; `parley serve` and `parley up --json` write it to the console-url file named in their log)';

/**
 * Decides whether a request may proceed. Order: Host (403), Origin for non-GET/HEAD (403), then
 * credentials (401): a `?token=` on a GET of the page is checked first and wins over any cookie (a
 * stale cookie of an earlier run, or one planted by another page on 127.0.0.1, must not lock the
 * person out); then a bearer token; then every session cookie presented. A state-changing request
 * authenticated by cookie alone must carry the console's own Origin (browsers always send it on
 * POST); a bearer-token client without Origin is allowed.
 */
export function guard(req: GuardInput, token: string, port: number, sessions: Sessions): Access {
  const refuse = (status: 401 | 403, reason: RefusalReason, message: string): Access => ({
    ok: false,
    refusal: { status, reason, message },
  });
  if (!req.host || !allowedHosts(port).includes(req.host.toLowerCase())) {
    return refuse(403, 'host', `Host "${req.host ?? ''}" is not this console; open it at http://127.0.0.1:${port}/`);
  }
  const bearer = readBearer(req.authorization);
  const changing = req.method !== 'GET' && req.method !== 'HEAD';
  if (changing) {
    if (req.origin !== undefined && !allowedOrigins(port).includes(req.origin.toLowerCase()))
      return refuse(403, 'origin', `Requests from origin "${req.origin}" are refused: only the console's own page may change state.`);
    if (req.secFetchSite !== undefined && !['same-origin', 'none'].includes(req.secFetchSite))
      return refuse(403, 'origin', 'Cross-site requests are refused.');
    if (req.origin === undefined && bearer === undefined)
      return refuse(
        403,
        'origin',
        'A state-changing request needs an Origin header (browsers) or an Authorization: Bearer token (scripts).',
      );
  }
  if (req.queryToken !== undefined && !changing) {
    if (tokenMatches(req.queryToken, token)) return { ok: true, by: 'token' };
    return refuse(
      401,
      'wrong-token',
      `The token in this address is not this console's (it may be from an earlier run of parley, which makes a new token each time): ${OPEN_PRINTED}.`,
    );
  }
  if (bearer !== undefined) {
    if (tokenMatches(bearer, token)) return { ok: true, by: 'bearer' };
    return refuse(401, 'wrong-token', 'Wrong console token in Authorization: Bearer.');
  }
  const presented = readCookies(req.cookie, cookieName(port));
  if (sessions.valid(presented)) return { ok: true, by: 'session' };
  if (presented.length > 0) {
    return refuse(
      401,
      'session-ended',
      `Your console session has ended (a session lasts ${lifetime(sessions.ttlMs)} and ends when parley restarts): ${OPEN_PRINTED}.`,
    );
  }
  return refuse(401, 'no-token', `This console needs the address with its token: ${OPEN_PRINTED}.`);
}
