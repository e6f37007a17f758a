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
  constructor(private readonly policy: Pick<PolicyDef, 'ratePerMinute' | 'burst'>, private readonly now: () => number) {}

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
  return h === 'localhost' || h.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '0.0.0.0' || h === '[::1]' || h === '[::]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(h);
}

export type UrlCheck = { ok: true; view: UrlView } | { ok: false; reason: 'url-scheme' | 'url-invalid'; message: string };

const SCRIPTS = ['Latin', 'Cyrillic', 'Greek', 'Armenian', 'Hebrew', 'Arabic', 'Han', 'Hiragana', 'Katakana', 'Hangul', 'Thai', 'Devanagari'];
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

/**
 * Checks a URL-mode `url`. Allowed: schemes in `policy.urlSchemes` (default `['https']`) except
 * `http`, to hosts that are not this machine. Everything else (`javascript:`, `file:`, `data:`,
 * non-loopback `http:`) is refused. Loopback hosts ({@link isLoopbackHost}) are refused whatever the
 * scheme unless `policy.allowLoopbackUrls` (default false): cookies are not scoped by port or scheme,
 * so a page on 127.0.0.1 receives the parley console's session cookie. When allowed, `http` is allowed
 * for them too (warning `http-localhost`). Never fetches anything.
 */
export function checkUrl(raw: string, policy: Pick<PolicyDef, 'urlSchemes' | 'allowLoopbackUrls'>): UrlCheck {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { ok: false, reason: 'url-invalid', message: `URL ${JSON.stringify(raw)} is not a valid absolute URL.` };
  }
  const scheme = u.protocol.replace(/:$/, '').toLowerCase();
  const warnings: string[] = [];
  if (u.hostname && isLoopbackHost(u.hostname) && !policy.allowLoopbackUrls) {
    return { ok: false, reason: 'url-scheme', message: `URL to this computer (${u.host}) refused: a page on a loopback address could take over the parley console's session. Set "policy": {"allowLoopbackUrls": true} in parley.json to allow it.` };
  }
  if (scheme === 'http') {
    if (!isLoopbackHost(u.hostname)) return { ok: false, reason: 'url-scheme', message: `http is allowed only for localhost, 127.0.0.1 and [::1]; refused ${u.host}. Servers must use https.` };
    warnings.push('http-localhost');
  } else if (!policy.urlSchemes.map((s) => s.toLowerCase()).includes(scheme)) {
    return { ok: false, reason: 'url-scheme', message: `URL scheme "${scheme}:" is not allowed (allowed: ${policy.urlSchemes.join(', ')}; http for localhost only).` };
  }
  if (!u.hostname) return { ok: false, reason: 'url-invalid', message: `URL ${JSON.stringify(raw)} has no host.` };
  const labels = u.hostname.split('.');
  if (labels.some((l) => l.startsWith('xn--'))) warnings.push('punycode');
  const unicodeHost = domainToUnicode(u.hostname) || u.hostname;
  if (unicodeHost.split('.').some((l) => scriptsOf(l).size > 1)) warnings.push('mixed-script');
  if (u.username || u.password) warnings.push('credentials-in-url');
  return { ok: true, view: { full: raw, host: unicodeHost, asciiHost: u.hostname, warnings } };
}
