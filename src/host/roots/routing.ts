/**
 * URI routing: which configured servers serve a URI (a root, a resource URI).
 *
 * 1. Static routes ({@link RouteDef}: glob, or regex when `regex: true`) are tried first; when any
 *    matches, the union of their `servers` (route order) is the answer and discovery is not consulted.
 * 2. Otherwise dynamic discovery: a server serves the URI when one of its resource templates
 *    (`resources/templates/list` → `uriTemplate`, RFC 6570, starting with a literal scheme) matches
 *    it, or when it declares the URI's scheme in the experimental capability {@link URI_SCHEMES_CAPABILITY}.
 * 3. Otherwise no server (`[]`): the caller decides the default (see `RootRegistry`).
 *
 * Globs get canonical scheme, host and drive-letter spelling; write their path part percent-encoded
 * as canonical URIs are (`my%20project`, not `my project`). Regexes run as written.
 *
 * URIs are matched ONLY in {@link normalizeRootUri} form (never also raw: a raw
 * `file:///srv/data/../../etc` must not match `file:///srv/data/**`). A URI that does not normalise
 * (bad escapes, encoded separators, no scheme) routes to no server.
 * @module
 */
import type { RouteDef } from '../config/types.js';
import { normalizeRootUri, uriScheme } from '../../schema/uri.js';
import { globToRegExp } from './glob.js';
import { LinearPattern, type Token } from './pattern.js';

/**
 * Experimental server capability through which a server declares the URI schemes it serves:
 * `capabilities.experimental['parley/uriSchemes'] = { schemes: ['sales', 'https'] }` (a bare string
 * array is accepted too).
 */
export const URI_SCHEMES_CAPABILITY = 'parley/uriSchemes';

/** Reads the declared schemes from a server's capabilities; unknown shapes yield `[]` (never throws). */
export function declaredSchemes(capabilities: unknown): string[] {
  const exp = (capabilities as { experimental?: Record<string, unknown> } | undefined)?.experimental;
  const v = exp?.[URI_SCHEMES_CAPABILITY];
  const list = Array.isArray(v) ? v : (v as { schemes?: unknown } | undefined)?.schemes;
  return Array.isArray(list) ? list.filter((s): s is string => typeof s === 'string').map((s) => s.toLowerCase().replace(/:$/, '')) : [];
}

/** A bad route in configuration; `pointer` is the JSON pointer into the config (`/routes/<i>/match`). */
export class RouteError extends Error {
  override readonly name = 'RouteError';
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super(`${pointer}: ${message}`);
  }
}

/** Longest URI template compiled for discovery, chars; a longer one is ignored (reported as malformed). */
export const MAX_TEMPLATE_CHARS = 1024;
/** Longest URI matched against templates, chars; a longer URI matches no template. */
export const MAX_MATCH_URI_CHARS = 8192;

/** What each RFC 6570 operator's expansion may look like (a superset), as a linear-time token. */
const OPS: Record<string, Token> = {
  '': { kind: 'star', excl: '/?#' },
  '+': { kind: 'star', excl: '#' },
  '#': { kind: 'opt', first: '#', excl: '' },
  '/': { kind: 'opt', first: '/', excl: '?#' },
  '.': { kind: 'opt', first: '.', excl: '/?#' },
  ';': { kind: 'opt', first: ';', excl: '/?#' },
  '?': { kind: 'opt', first: '?&', excl: '#' },
  '&': { kind: 'opt', first: '&', excl: '#' },
};

/** A compiled URI template: `test(uri)` says whether the template can expand to `uri`. */
export interface TemplateMatcher {
  test(uri: string): boolean;
}

/**
 * Compiles an RFC 6570 URI template (levels 1–4) into a matcher for every URI the template can expand
 * to (a superset: variable values are not validated). Matching is linear in the URI's length
 * (`pattern.ts`): templates come from servers, and a backtracking RegExp of adjacent expressions was
 * exponential. Returns `undefined` for an unterminated expression or a template longer than
 * {@link MAX_TEMPLATE_CHARS}; URIs longer than {@link MAX_MATCH_URI_CHARS} match nothing.
 */
export function uriTemplateToRegExp(template: string): TemplateMatcher | undefined {
  if (template.length > MAX_TEMPLATE_CHARS) return undefined;
  const toks: Token[] = [];
  for (let i = 0; i < template.length; ) {
    if (template[i] === '{') {
      const end = template.indexOf('}', i);
      if (end < 0) return undefined;
      const body = template.slice(i + 1, end);
      const op = '+#./;?&'.includes(body[0] ?? '') ? body[0] : '';
      const t = OPS[op];
      // Adjacent stars of the same kind are one star (same language, fewer states).
      const prev = toks[toks.length - 1];
      if (!(t.kind === 'star' && prev?.kind === 'star' && prev.excl === t.excl)) toks.push(t);
      i = end + 1;
    } else {
      toks.push({ kind: 'lit', ch: template[i] });
      i++;
    }
  }
  const pattern = new LinearPattern(toks);
  return { test: (uri: string) => uri.length <= MAX_MATCH_URI_CHARS && pattern.test(uri) };
}

interface Compiled {
  test: (uri: string) => boolean;
  servers: string[];
}

interface Discovery {
  templates: TemplateMatcher[];
  schemes: Set<string>;
}

function canonical(uri: string): string | undefined {
  try {
    return normalizeRootUri(uri);
  } catch {
    return undefined;
  }
}

/**
 * Brings a glob's fixed parts to canonical URI spelling so it can match normalised URIs: lower-case
 * scheme and authority, `file:` drive letter upper-case (`%3A`/`|` → `:`), `localhost` dropped.
 */
function canonicalGlob(glob: string): string {
  let g = glob.replace(/^([A-Za-z][A-Za-z0-9+.-]*):/, (m) => m.toLowerCase());
  g = g.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/*?\\]*)/, (_m, p: string, host: string) => p + host.toLowerCase());
  if (g.startsWith('file://')) {
    g = g
      .replace(/^file:\/\/localhost\//, 'file:///')
      .replace(/^file:\/\/\/([A-Za-z])(?::|%3[Aa]|\|)/, (_m, d: string) => `file:///${d.toUpperCase()}:`);
  }
  return g;
}

/** Static + dynamic URI routing. Not persistent; the host feeds discovery after each server connects. */
export class UriRouter {
  private routes: Compiled[] = [];
  private readonly discovery = new Map<string, Discovery>();

  /** @throws {RouteError} for an invalid regex or a route without servers. */
  constructor(routes: RouteDef[] = []) {
    this.setRoutes(routes);
  }

  /** Replaces the static routes. @throws {RouteError} (nothing is replaced then). */
  setRoutes(routes: RouteDef[]): void {
    this.routes = routes.map((r, i) => {
      if (!Array.isArray(r.servers) || r.servers.some((s) => typeof s !== 'string')) {
        throw new RouteError(`/routes/${i}/servers`, 'must be an array of server names');
      }
      if (typeof r.match !== 'string' || r.match === '')
        throw new RouteError(`/routes/${i}/match`, 'must be a non-empty glob or regex string');
      let re: { test(u: string): boolean };
      if (r.regex) {
        try {
          re = new RegExp(r.match);
        } catch (e) {
          throw new RouteError(
            `/routes/${i}/match`,
            `invalid regular expression (${(e as Error).message}); fix the pattern or drop "regex": true to use a glob`,
          );
        }
      } else re = globToRegExp(canonicalGlob(r.match));
      return { test: (u: string) => re.test(u), servers: [...r.servers] };
    });
  }

  /**
   * Records what a server serves, from its `resources/templates/list` `uriTemplate` strings and its
   * capabilities (see {@link declaredSchemes}). Replaces earlier discovery for that server.
   * @returns templates that could not be compiled (ignored).
   */
  setDiscovery(server: string, d: { uriTemplates?: string[]; schemes?: string[]; capabilities?: unknown }): string[] {
    const bad: string[] = [];
    const templates: TemplateMatcher[] = [];
    for (const t of d.uriTemplates ?? []) {
      // A template must start with a literal scheme: `{+anything}` would claim every URI, every root.
      const re = typeof t === 'string' && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(t) ? uriTemplateToRegExp(t) : undefined;
      if (re) templates.push(re);
      else bad.push(String(t));
    }
    const schemes = new Set([...(d.schemes ?? []).map((s) => s.toLowerCase().replace(/:$/, '')), ...declaredSchemes(d.capabilities)]);
    this.discovery.set(server, { templates, schemes });
    return bad;
  }

  /** Forgets a server's discovery (e.g. it disconnected). */
  removeServer(server: string): void {
    this.discovery.delete(server);
  }

  /** Only the static routes' answer for `uri` (union of matching routes' servers, route order). */
  staticServersFor(uri: string): string[] {
    const u = canonical(uri);
    if (u === undefined) return [];
    const out = new Set<string>();
    for (const r of this.routes) if (r.test(u)) r.servers.forEach((s) => out.add(s));
    return [...out];
  }

  /** Servers that serve `uri`: static routes first, then discovery; `[]` when none. Never throws. */
  serversFor(uri: string): string[] {
    const fixed = this.staticServersFor(uri);
    if (fixed.length) return fixed;
    const u = canonical(uri);
    if (u === undefined) return [];
    const scheme = uriScheme(u);
    const out: string[] = [];
    for (const [server, d] of this.discovery) {
      if ((scheme && d.schemes.has(scheme)) || d.templates.some((re) => re.test(u))) out.push(server);
    }
    return out;
  }
}
