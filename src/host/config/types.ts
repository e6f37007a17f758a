/**
 * The host's static configuration after loading, merging and interpolation. Loaders produce it from
 * `mcpServers` files (Claude Desktop, Cursor, Claude Code `.mcp.json`), VS Code `servers` + `inputs`
 * (JSONC) and parley's own `parley.json` superset.
 * @module
 */

/** A stdio server definition. Strings are already interpolated. */
export interface StdioServerDef {
  name: string;
  type: 'stdio';
  command: string;
  args: string[];
  /** Working directory, absolute. */
  cwd?: string;
  /** Variables merged OVER the inherited environment (PATH, HOME, … stay). */
  env: Record<string, string>;
  /** Absolute path of the dotenv file named by `envFile`, if any. */
  envFile?: string;
  /** Variables read from `envFile` at load time; applied under `env` by `buildChildEnv`. */
  envFileVars?: Record<string, string>;
  /** Names of env keys whose values are secrets (from password inputs); never logged. */
  secretEnv?: string[];
  /** Per-server timeouts in ms. See {@link ServerTimeouts}. */
  timeouts?: Partial<ServerTimeouts>;
  /** `${input:id}` ids still present in string fields; resolved at first start through the presenter. */
  inputRefs?: string[];
  /** Start on first use instead of at `parley up` (see {@link isLazy} for the default). */
  lazy?: boolean;
  /** Where this definition came from, for error messages: file path and JSON pointer. */
  origin: ConfigOrigin;
}

/** A remote server definition: Streamable HTTP, with fallback to legacy SSE when `type` is `'http'`. */
export interface HttpServerDef {
  name: string;
  /** `'http'` (Streamable HTTP, falls back to SSE) or `'sse'` (legacy HTTP+SSE only). Inferred `'http'` from `url`. */
  type: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
  secretHeaders?: string[];
  /**
   * OAuth client settings for a protected server (MCP authorization; docs/auth.md). All optional: without
   * them parley uses a Client ID Metadata Document when `clientMetadataUrl` is set and the authorization
   * server supports it, else dynamic client registration (RFC 7591).
   */
  oauth?: {
    /** Pre-registered client id (preferred over CIMD and dynamic registration). */
    clientId?: string;
    /** Secret of the pre-registered client; use `${env:NAME}`, never clear text. */
    clientSecret?: string;
    /** HTTPS URL of parley's Client ID Metadata Document (used when the server advertises support). */
    clientMetadataUrl?: string;
    /** Scope to ask for when neither the challenge nor the resource metadata names one. */
    scope?: string;
  };
  timeouts?: Partial<ServerTimeouts>;
  inputRefs?: string[];
  /** Start on first use instead of at `parley up` (see {@link isLazy} for the default). */
  lazy?: boolean;
  origin: ConfigOrigin;
}

export type ServerDef = StdioServerDef | HttpServerDef;

export interface ServerTimeouts {
  /** Connect + negotiate. @default 30000 */
  startupMs: number;
  /** A tool call's own running time, excluding time spent waiting on a person. @default 120000 */
  toolCallMs: number;
  /** Hard cap on a tool call including human time. @default 3600000 */
  maxTotalMs: number;
  /**
   * How long the `server/discover` era probe waits for an answer, ms (capped by `startupMs`). Stdio: a
   * server silent that long is taken as 2025-era; the wait includes the process's own start, so a
   * dual-era server that starts slowly (`npx` installing it, say) needs more. Streamable HTTP: a probe
   * not answered in time fails the start (after the legacy SSE transport is tried), with "Version
   * negotiation probe timed out after <probeMs>ms". Not used for `sse`. @default 10000
   */
  probeMs?: number;
}

export interface ConfigOrigin {
  /** Absolute file path, or `'<embedded>'` / `'<flag>'`. */
  file: string;
  /** JSON pointer of the entry inside the file. */
  pointer: string;
  /** 1-based line and column where the format allows. */
  line?: number;
  column?: number;
}

/** A static route: URI pattern → server names. */
export interface RouteDef {
  /** Glob (`file:///srv/data/**`, `sales://*`) or, when `regex` is true, a JavaScript regex source. */
  match: string;
  regex?: boolean;
  servers: string[];
}

/** Broker policy from configuration. Every field has a safe default. */
export interface PolicyDef {
  /** What to do with a form that asks for sensitive-looking fields. @default 'decline' */
  sensitiveFields: 'decline' | 'ask' | 'allow';
  /** Token bucket per server: requests per minute. @default 30 */
  ratePerMinute: number;
  /** Token bucket burst size. @default 10 */
  burst: number;
  /** Most pending input requests per server. @default 5 */
  maxPendingPerServer: number;
  /** URL schemes allowed in URL mode. http is allowed only for localhost in any case. @default ['https'] */
  urlSchemes: string[];
  /**
   * Allow URL-mode URLs to this machine (localhost, 127.0.0.0/8, 0.0.0.0, [::1]), also over http. Off by
   * default: a page on a loopback address receives the parley console's session cookie. @default false
   */
  allowLoopbackUrls?: boolean;
  /**
   * A server's `sampling/createMessage` (pushed on 2025 eras, an `inputRequests` entry on 2026-07-28):
   * `'ask'` shows it to the person when the presenter can show sampling requests (the console, the
   * terminal, scripted answers) and declines it otherwise; `'decline'` always declines. @default 'ask'
   */
  sampling: 'ask' | 'decline';
}

/** A VS Code style `${input:id}` definition. */
export interface InputVariableDef {
  id: string;
  type: 'promptString' | 'pickString';
  description?: string;
  password?: boolean;
  default?: string;
  options?: string[];
}

/**
 * parley.json `rootPolicy`: what happens to roots no route matches, and how root health is watched.
 * Every key optional; see {@link effectiveRootPolicy} for the defaults.
 */
export interface RootPolicyDef {
  /**
   * A root that no static route and no discovered template or scheme matches goes to every server
   * (`'all'`) or to none (`'none'`). @default `'none'` when the configuration has routes, else `'all'`
   */
  unrouted?: 'all' | 'none';
  /** Period of the automatic root health checks, ms (≥ 1000). @default 30000 */
  healthIntervalMs?: number;
  /** Also re-check a root on file-system events in its parent folder (`fs.watch`, debounced 200 ms). @default true */
  watch?: boolean;
  /**
   * Period of re-reading the stored app roots, ms (500 to 3600000): a root added or removed by another
   * process on the same store (`parley roots add` in another terminal) reaches this host's servers
   * (`notifications/roots/list_changed`) and console within one period. @default 2000
   */
  storePollMs?: number;
}

/**
 * Whether a server starts on first use: its `lazy` setting, else lazy when the configuration has routes
 * and none of them names the server (no route needs it at start), else eager.
 */
export function isLazy(config: Pick<HostConfig, 'routes'>, def: Pick<ServerDef, 'name' | 'lazy'>): boolean {
  if (def.lazy !== undefined) return def.lazy;
  return config.routes.length > 0 && !config.routes.some((r) => r.servers.includes(def.name));
}

/** The root policy with its defaults applied (see {@link RootPolicyDef}). */
export function effectiveRootPolicy(config: Pick<HostConfig, 'routes' | 'rootPolicy'>): Required<RootPolicyDef> {
  const p = config.rootPolicy ?? {};
  return {
    unrouted: p.unrouted ?? (config.routes.length > 0 ? 'none' : 'all'),
    healthIntervalMs: p.healthIntervalMs ?? 30_000,
    watch: p.watch ?? true,
    storePollMs: p.storePollMs ?? 2000,
  };
}

export interface HostConfig {
  servers: Record<string, ServerDef>;
  routes: RouteDef[];
  policy: PolicyDef;
  /** Presets shipped in configuration (name → preset body). */
  presets: Record<string, { roots?: Array<{ uri: string; name?: string }>; answers?: Record<string, Record<string, unknown>> }>;
  /** Known values offered as prefill for fields of the same name (e.g. `{"email": "ada@example.com"}`). */
  profile: Record<string, unknown>;
  /** `${input:id}` definitions (VS Code `inputs`). */
  inputs: Record<string, InputVariableDef>;
  /**
   * Roots from configuration (app scope): `file://` roots, and virtual roots of other schemes
   * (`postgres://sales-db`, `chart://…`), which are used for routing only and never sent to a server.
   */
  roots: Array<{ uri: string; name?: string }>;
  /** parley.json `rootPolicy` as written (merged per key); {@link effectiveRootPolicy} adds defaults. */
  rootPolicy?: RootPolicyDef;
  /** `parley serve` settings (parley.json `gateway`). */
  gateway?: GatewayDef;
  /** Files read, in the order they were merged (lowest precedence first). */
  sources: string[];
  /**
   * Names of servers whose winning definition has errors. They are absent from `servers` (never started
   * with a literal placeholder); the issues say why.
   */
  invalidServers?: string[];
}

/** parley.json `gateway`: who may use `parley serve --http`. */
export interface GatewayDef {
  /**
   * User name → SHA-256 (lowercase hex) of that user's bearer token. Tokens are never stored in
   * configuration, only their hashes (`parley serve token <user>` makes one). Empty: single-user mode
   * (loopback only, no token).
   */
  users: Record<string, { tokenSha256: string }>;
  /** Most open 2025-era HTTP sessions per user; over it `initialize` gets HTTP 429. @default 50 */
  maxSessionsPerUser?: number;
  /** Most elicitations per user waiting for that user's client at once (pushed or parked). @default 20 */
  maxPendingPerUser?: number;
  /** A 2025-era HTTP session with no request for this long is closed, ms. @default 1_800_000 (30 min) */
  sessionIdleMs?: number;
  /**
   * Period of the SSE keep-alive comment on every open event stream of `parley serve --http`, ms: a
   * stream waiting on a person carries a few bytes this often, so a proxy's read timeout (nginx
   * `proxy_read_timeout`, docs/scaling.md) can be a small multiple of it. @default 15000
   */
  keepAliveMs?: number;
  /**
   * Most TCP connections to `parley serve --http` at once (all users); more are closed unread. An
   * integer from 1 to 1 000 000 (otherwise a configuration error at `/gateway/maxConnections`). @default 10000
   */
  maxConnections?: number;
  /**
   * Whether a client sees the last stderr lines of a server that failed to start or died mid-call in
   * its error (still with the server's `env`/`headers` values and URL credentials as `[redacted]`).
   * Off: the client gets the exit code or signal and a short reason; the stderr stays in parley's log
   * and console. @default false
   */
  showServerStderr?: boolean;
  /**
   * The gateway's own public address (`https://gw.example.com`, http only for loopback; no fragment).
   * With it, a user who must sign in to a protected upstream server gets a URL-mode elicitation whose
   * redirect comes back to `<publicUrl>/oauth/upstream/callback` (docs/gateway.md §Protected upstream
   * servers). @default none: such a user is told to run `parley auth login`
   */
  publicUrl?: string;
  /**
   * With `publicUrl`: also offer sign-in through the client to users whose browser the gateway cannot
   * check (users of `oauth` when it has no `browserClient`), and let whoever opens their URL finish it.
   * This gives up the check client/elicitation §Phishing asks for (a URL forwarded to another person
   * signs that person's upstream account in as the user's). @default false: such users are told to run
   * `parley auth login`
   */
  unverifiedSignIn?: boolean;
  /**
   * OAuth access tokens from one issuer, accepted besides the static tokens of `users`
   * (docs/gateway.md §"The gateway as a protected resource"). Absent: static tokens only.
   */
  oauth?: GatewayOAuthDef;
  /**
   * Tenant name → that tenant's users (same shape as `users`) and, optionally, the configured servers
   * its users get (`servers`, names from `mcpServers`; absent = all). Users of `users` belong to tenant
   * `"default"`. Store rows (audit, remembered answers, presets, roots) and broker limits are keyed by
   * (tenant, user); a user name may recur in several tenants. Tenant names: 1-64 of `[A-Za-z0-9._@-]`.
   */
  tenants?: Record<string, TenantDef>;
}

/** parley.json `gateway.tenants.<name>`. */
export interface TenantDef {
  users: Record<string, { tokenSha256: string }>;
  /** The configured servers this tenant's users get. @default every configured server */
  servers?: string[];
  /**
   * Users of this tenant (names from `users`) who administer it: they read the tenant's audit, presets,
   * remembered answers and roots at the gateway's `/admin/*` endpoints, and no other tenant's
   * (src/gateway/admin.ts). @default none
   */
  admins?: string[];
}

/**
 * parley.json `gateway.oauth`: the gateway as an OAuth 2.1 protected resource (MCP authorization,
 * RFC 9728 metadata, RFC 8707 audience). Tokens are JWTs checked against the issuer's JWKS, or, with
 * `introspection`, opaque tokens checked by RFC 7662 introspection.
 */
export interface GatewayOAuthDef {
  /** The authorization server's issuer identifier (an absolute http(s) URL; https outside loopback). */
  issuer: string;
  /** The gateway's resource URL, the audience tokens must name. @default the served URL, e.g. `http://127.0.0.1:8765/mcp` */
  resource?: string;
  /** JWKS location. @default the issuer metadata's `jwks_uri` (OIDC discovery, else RFC 8414) */
  jwksUri?: string;
  /** RFC 7662 token introspection instead of local JWT checks. */
  introspection?: {
    /** @default the issuer metadata's `introspection_endpoint` */
    endpoint?: string;
    /** The gateway's client id at the issuer (client_secret_basic). */
    clientId: string;
    /** Name of the environment variable holding the client secret (never the secret itself). */
    clientSecretEnv?: string;
  };
  /**
   * The OpenID Connect client (authorization code + PKCE) the gateway signs a browser in with, to check
   * that the person who opens a sign-in link (`publicUrl`) is the user who asked (src/gateway/browser-identity.ts).
   * Register `<publicUrl>/oauth/upstream/identify` as its redirect URI. @default none
   */
  browserClient?: {
    clientId: string;
    /** Name of the environment variable holding its secret (client_secret_basic); absent: a public client. */
    clientSecretEnv?: string;
    /** Scopes asked for; must include `openid`. @default ['openid'] */
    scopes: string[];
  };
  /** Scopes every token must carry; a token without them gets 403 `insufficient_scope`. @default [] */
  scopes: string[];
  /** Claim naming the user. @default 'sub' */
  userClaim: string;
  /** Claim naming the tenant; absent = every token's user is in tenant `default`. */
  tenantClaim?: string;
  /** Accepted JWS algorithms. @default ['RS256','PS256','ES256','EdDSA'] */
  algorithms: string[];
  /** Clock skew allowed for `exp`/`nbf`/`iat`, ms. @default 5000 */
  clockSkewMs: number;
}
