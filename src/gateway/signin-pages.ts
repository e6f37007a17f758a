/**
 * The pages of the gateway's sign-in through the client (./upstream-signin.ts): fixed text, no script,
 * no frame, never a token nor an echoed parameter (the connect form carries only the connect id the
 * gateway minted, checked against {@link CONNECT_ID}), under a strict `Content-Security-Policy`.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { HttpDenial } from '../server/serve.js';

/** Largest body of the connect form (`id` and `token`), bytes. */
export const MAX_FORM_BYTES = 4096;
/** What a connect id (or a state) the gateway mints looks like: base64url parts joined by `.`. */
export const CONNECT_ID = /^[A-Za-z0-9_-]{1,400}(\.[A-Za-z0-9_-]{1,400}){0,2}$/;

const page = (title: string, body: string, extra = '') =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font:16px system-ui;margin:3em"><h1>${title}</h1><p>${body}</p>${extra}</body>`;
/** No script, frame, form or base (fixed text only); its one inline style. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/**
 * The connect form's page: the same, without `form-action`. A browser checks `form-action` against every
 * redirect that follows the submission too, and the form's answer is the redirect to the upstream
 * authorization server (any origin), which `form-action 'self'` blocks. The page has no script and no
 * echoed text, so its one form (to `connect`, fixed) is the only one it can hold.
 */
export const FORM_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";
/** The sign-in pages' headers, also for a page relayed from another replica. */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CSP,
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/**
 * The connect form's headers: {@link FORM_CSP}, and a referrer policy under which a browser posts the
 * form with the gateway's Origin (under `no-referrer` it sends `Origin: null`, which the Origin check of
 * `serve()` refuses); the Referer, which holds the connect id, then goes to the gateway only.
 */
export const FORM_HEADERS: Record<string, string> = {
  ...PAGE_HEADERS,
  'content-security-policy': FORM_CSP,
  'referrer-policy': 'same-origin',
};

/** A page with fixed text. */
export const reply = (status: number, title: string, body: string) => new HttpDenial(status, { ...PAGE_HEADERS }, page(title, body));

/** A 302 to `location` (the upstream authorization server, or the connect URL), optionally setting a cookie. */
export const redirect = (location: string, cookie?: string) =>
  new HttpDenial(302, { ...PAGE_HEADERS, location, ...(cookie ? { 'set-cookie': cookie } : {}) }, '');

/**
 * The connect page asking for the gateway token of the user who started the sign-in (a static-token
 * user), `status` 200, or 403 with `why` when this browser is someone else. `id` must match {@link CONNECT_ID}.
 */
export function tokenForm(status: number, id: string, why: string): HttpDenial {
  if (!CONNECT_ID.test(id)) return reply(400, 'Sign-in refused', 'This sign-in link is not valid.');
  const form =
    `<form method="post" action="connect"><input type="hidden" name="id" value="${id}">` +
    '<label>Gateway token <input type="password" name="token" autocomplete="off" required></label> ' +
    '<button type="submit">Continue</button></form>';
  return new HttpDenial(
    status,
    { ...FORM_HEADERS },
    page(
      status === 200 ? 'Confirm who you are' : 'Not your sign-in',
      `${why} Enter the gateway token your client uses (the one of the user who started this sign-in); it is checked here and never shown or stored.`,
      form,
    ),
  );
}

/**
 * Reads an `application/x-www-form-urlencoded` body of at most {@link MAX_FORM_BYTES} bytes (the
 * server's request timeout bounds the wait). @throws HttpDenial 413 / 415
 */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? ''))
    throw reply(415, 'Refused', 'The sign-in form is sent as application/x-www-form-urlencoded.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_FORM_BYTES) throw reply(413, 'Refused', 'The sign-in form is too long.');
    chunks.push(c);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
