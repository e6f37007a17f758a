/**
 * The console's request guard: a random token (query on the first page load, then an HttpOnly
 * SameSite=Strict cookie, or `Authorization: Bearer`), a `Host` check against DNS rebinding and an
 * `Origin` check on state-changing requests against cross-site requests. The token is never logged.
 * @module
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** Name of the session cookie. */
export const COOKIE = 'parley_console';

/** 32 hex characters from `crypto.randomBytes(16)`. */
export const newToken = (): string => randomBytes(16).toString('hex');

/** Constant-time comparison of a presented token with the real one. */
export function tokenMatches(presented: string | undefined, token: string): boolean {
  if (typeof presented !== 'string') return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Reads one cookie value from a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Reads a bearer token from an `Authorization` header. */
export function readBearer(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}

/** Hosts (with port) the console answers to. */
export const allowedHosts = (port: number): string[] => [`127.0.0.1:${port}`, `localhost:${port}`];

/** Origins allowed on state-changing requests: the console's own. */
export const allowedOrigins = (port: number): string[] => allowedHosts(port).map((h) => `http://${h}`);

/** A refusal: HTTP status and a message for the person (never containing the token). */
export interface Refusal {
  status: 401 | 403;
  message: string;
}

export interface GuardInput {
  method: string;
  host: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
  cookie: string | undefined;
  authorization: string | undefined;
  /** `?token=` of the request, if any. */
  queryToken: string | undefined;
}

/**
 * Decides whether a request may proceed. Order: Host (403), Origin for non-GET/HEAD (403),
 * token (401). A state-changing request authenticated by cookie alone must carry the console's own
 * Origin (browsers always send it on POST); a bearer-token client without Origin is allowed.
 * @returns a refusal, or `undefined` to proceed.
 */
export function guard(req: GuardInput, token: string, port: number): Refusal | undefined {
  if (!req.host || !allowedHosts(port).includes(req.host.toLowerCase())) {
    return { status: 403, message: `Host "${req.host ?? ''}" is not this console; open it at http://127.0.0.1:${port}/` };
  }
  const bearer = readBearer(req.authorization);
  const changing = req.method !== 'GET' && req.method !== 'HEAD';
  if (changing) {
    if (req.origin !== undefined && !allowedOrigins(port).includes(req.origin.toLowerCase())) return { status: 403, message: `Requests from origin "${req.origin}" are refused: only the console's own page may change state.` };
    if (req.secFetchSite !== undefined && !['same-origin', 'none'].includes(req.secFetchSite)) return { status: 403, message: 'Cross-site requests are refused.' };
    if (req.origin === undefined && bearer === undefined) return { status: 403, message: 'A state-changing request needs an Origin header (browsers) or an Authorization: Bearer token (scripts).' };
  }
  const presented = bearer ?? readCookie(req.cookie, COOKIE) ?? (req.method === 'GET' ? req.queryToken : undefined);
  if (!tokenMatches(presented, token)) return { status: 401, message: 'Missing or wrong console token: open the URL that `parley up` printed.' };
  return undefined;
}
