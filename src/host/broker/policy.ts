/**
 * Broker policy checks: per-server token bucket, URL-mode URL checks (scheme allowlist, loopback-only
 * http, Punycode and mixed-script warnings). Pure functions plus one small stateful limiter.
 * Spec: 2025-11-25 client/elicitation §Security Considerations (clients SHOULD rate-limit) and
 * §Safe URL Handling (show the full URL, warn on Punycode, never prefetch).
 * @module
 */
import { domainToUnicode } from 'node:url';
import type { PolicyDef } from '../config/types.js';
import type { UrlView } from '../presenter.js';

/**
 * Token bucket per server: capacity `burst`, refilled at `ratePerMinute` tokens per 60000 ms.
 * `take(server)` returns false when the bucket is empty (the request is then declined).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  constructor(
    private readonly policy: Pick<PolicyDef, 'ratePerMinute' | 'burst'>,
    private readonly now: () => number,
  ) {}

  take(server: string): boolean {
    const t = this.now();
    const cap = Math.max(1, this.policy.burst);
    const b = this.buckets.get(server) ?? { tokens: cap, at: t };
    b.tokens = Math.min(cap, b.tokens + ((t - b.at) * this.policy.ratePerMinute) / 60_000);
    b.at = t;
    this.buckets.set(server, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}

/**
 * True for hosts that reach this machine: `localhost` and `*.localhost`, 127.0.0.0/8, 0.0.0.0, `[::1]`,
 * `[::]` and IPv4-mapped 127/8 (`[::ffff:7f00:1]`). `hostname` as `URL` normalises it (`127.1` →
 * `127.0.0.1`, lower case), a trailing dot ignored.
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    /^127\.\d+\.\d+\.\d+$/.test(h) ||
    h === '0.0.0.0' ||
    h === '[::1]' ||
    h === '[::]' ||
    /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(h)
  );
}

export type UrlCheck =
  | { ok: true; view: UrlView & { warningDetails: NonNullable<UrlView['warningDetails']> } }
  | { ok: false; reason: 'url-scheme' | 'url-invalid'; message: string };

const SCRIPTS = [
  'Latin',
  'Cyrillic',
  'Greek',
  'Armenian',
  'Hebrew',
  'Arabic',
  'Han',
  'Hiragana',
  'Katakana',
  'Hangul',
  'Thai',
  'Devanagari',
];
const SCRIPT_RE = SCRIPTS.map((s) => [s, new RegExp(`\\p{Script=${s}}`, 'u')] as const);

/** Scripts used by the letters of one host label (Common/Inherited ignored). */
function scriptsOf(label: string): Set<string> {
  const found = new Set<string>();
  for (const ch of label) for (const [name, re] of SCRIPT_RE) if (re.test(ch)) found.add(name);
  // Han + Hiragana/Katakana is ordinary Japanese, not a spoof.
  if (found.has('Han') && (found.has('Hiragana') || found.has('Katakana'))) found.delete('Han');
  if (found.has('Hiragana') && found.has('Katakana')) found.delete('Katakana');
  return found;
}

/** Direction controls: LRM, RLM, ALM, LRE/RLE/PDF/LRO/RLO, LRI/RLI/FSI/PDI. */
const BIDI = /[\u200E\u200F\u061C\u202A-\u202E\u2066-\u2069]/u;
/** Characters that are shown escaped in a URL: controls, format characters (bidi included), default ignorables, whitespace. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\s]/gu;

const HIDDEN_ONE = new RegExp(HIDDEN.source, 'u');

/** Percent-encodes (UTF-8) every control, format, invisible or whitespace character of `text`. Linear. */
export function escapeHidden(text: string): string {
  return text.replace(HIDDEN, (ch) => encodeURIComponent(ch));
}

/** Placeholder for the user information removed from a URL. */
export const URL_CREDENTIALS_REDACTED = '[redacted]';

/**
 * `raw` with the user information of its authority (`user:password@`) replaced by `[redacted]@`.
 * String-level and linear, so it also works on URLs `new URL` refuses. Anything without `//`
 * authority is returned unchanged.
 */
export function redactUrl(raw: string): string {
  const start = raw.indexOf('//');
  if (start < 0) return raw;
  let end = raw.length;
  for (let i = start + 2; i < raw.length; i++) {
    const c = raw[i];
    if (c === '/' || c === '?' || c === '#' || c === '\\') {
      end = i;
      break;
    }
  }
  const at = raw.lastIndexOf('@', end - 1);
  if (at < start + 2) return raw;
  return raw.slice(0, start + 2) + URL_CREDENTIALS_REDACTED + raw.slice(at);
}

const SCHEME_CHAR = /[a-z0-9+.-]/i;
/** Longest scheme looked at before a `://` (characters). */
const SCHEME_MAX = 32;

/**
 * `text` with the user information of every `scheme://user:password@` inside it replaced by
 * `[redacted]@` (messages, answers). One pass: each `://` is looked at once, forwards only up to the
 * next `/`, `?`, `#`, whitespace or `@`.
 */
export function redactUrlsInText(text: string): string {
  let at = text.indexOf('://');
  if (at < 0) return text;
  let out = '';
  let from = 0;
  while (at >= 0) {
    let s = at;
    while (s > 0 && at - s < SCHEME_MAX && SCHEME_CHAR.test(text[s - 1])) s--;
    let i = at + 3;
    while (i < text.length && !'/?#@\\'.includes(text[i]) && !/\s/.test(text[i])) i++;
    if (s < at && i < text.length && text[i] === '@') {
      out += text.slice(from, at + 3) + URL_CREDENTIALS_REDACTED;
      from = i;
    }
    at = text.indexOf('://', Math.max(i, at + 3));
  }
  return out + text.slice(from);
}

/** A copy of `content` with URL credentials in its string values (and string-array entries) redacted. */
export function redactUrlsInContent<T extends Record<string, unknown>>(content: T): T {
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(content)) {
    const r =
      typeof v === 'string' ? redactUrlsInText(v) : Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? redactUrlsInText(x) : x)) : v;
    const changed = typeof v === 'string' ? r !== v : Array.isArray(v) && (r as unknown[]).some((x, i) => x !== v[i]);
    if (changed) (out ??= { ...content })[k] = r;
  }
  return (out ?? content) as T;
}

/** What each URL warning code means, for a person. */
export const URL_WARNING_TEXT: Record<string, string> = {
  punycode: 'The address uses Punycode (an xn-- name): the host shown may imitate another site.',
  'mixed-script': 'The host name mixes alphabets (for example Latin and Cyrillic letters): it may imitate another site.',
  'credentials-in-url': 'The address contained a user name or password; parley removed it, shows it as [redacted] and does not store it.',
  'http-localhost': 'Plain http to this computer (localhost): the connection is not encrypted; open it only if you started that service.',
  'bidi-control':
    'The address contained right-to-left or other direction-control characters, which can make it read differently from where it goes; they are shown escaped (for example %E2%80%AE).',
  'invisible-characters': 'The address contained invisible or control characters; they are shown escaped.',
};

/**
 * Checks a URL-mode `url`. Allowed: schemes in `policy.urlSchemes` (default `['https']`) except
 * `http`, to hosts that are not this machine. Everything else (`javascript:`, `file:`, `data:`,
 * non-loopback `http:`) is refused. Loopback hosts ({@link isLoopbackHost}) are refused whatever the
 * scheme unless `policy.allowLoopbackUrls` (default false): cookies are not scoped by port or scheme,
 * so a page on 127.0.0.1 receives the parley console's session cookie. When allowed, `http` is allowed
 * for them too (warning `http-localhost`). Never fetches anything. The view's `full` is the URL as
 * sent with user information removed (`[redacted]@`) and every control, format (bidi) and invisible
 * character percent-encoded; the warnings say which of these happened. Linear in `raw.length`.
 */
export function checkUrl(raw: string, policy: Pick<PolicyDef, 'urlSchemes' | 'allowLoopbackUrls'>): UrlCheck {
  const shown = escapeHidden(redactUrl(raw));
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { ok: false, reason: 'url-invalid', message: `URL ${JSON.stringify(shown)} is not a valid absolute URL.` };
  }
  const scheme = u.protocol.replace(/:$/, '').toLowerCase();
  const warnings: string[] = [];
  if (u.hostname && isLoopbackHost(u.hostname) && !policy.allowLoopbackUrls) {
    return {
      ok: false,
      reason: 'url-scheme',
      message: `URL to this computer (${u.host}) refused: a page on a loopback address could take over the parley console's session. Set "policy": {"allowLoopbackUrls": true} in parley.json to allow it.`,
    };
  }
  if (scheme === 'http') {
    if (!isLoopbackHost(u.hostname))
      return {
        ok: false,
        reason: 'url-scheme',
        message: `http is allowed only for localhost, 127.0.0.1 and [::1]; refused ${u.host}. Servers must use https.`,
      };
    warnings.push('http-localhost');
  } else if (!policy.urlSchemes.map((s) => s.toLowerCase()).includes(scheme)) {
    return {
      ok: false,
      reason: 'url-scheme',
      message: `URL scheme "${scheme}:" is not allowed (allowed: ${policy.urlSchemes.join(', ')}; http for localhost only).`,
    };
  }
  if (!u.hostname) return { ok: false, reason: 'url-invalid', message: `URL ${JSON.stringify(shown)} has no host.` };
  const labels = u.hostname.split('.');
  if (labels.some((l) => l.startsWith('xn--'))) warnings.push('punycode');
  const unicodeHost = domainToUnicode(u.hostname) || u.hostname;
  if (unicodeHost.split('.').some((l) => scriptsOf(l).size > 1)) warnings.push('mixed-script');
  if (u.username || u.password) warnings.push('credentials-in-url');
  if (BIDI.test(raw)) warnings.push('bidi-control');
  else if (HIDDEN_ONE.test(raw)) warnings.push('invisible-characters');
  const view: UrlView & { warningDetails: NonNullable<UrlView['warningDetails']> } = {
    full: shown,
    host: escapeHidden(unicodeHost),
    asciiHost: u.hostname,
    warnings,
    warningDetails: warnings.map((code) => ({ code, text: URL_WARNING_TEXT[code] ?? code })),
  };
  return { ok: true, view };
}
