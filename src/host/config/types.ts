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
  timeouts?: Partial<ServerTimeouts>;
  inputRefs?: string[];
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
}

/** A VS Code style `${input:id}` definition. */
export interface InputDef {
  id: string;
  type: 'promptString' | 'pickString';
  description?: string;
  password?: boolean;
  default?: string;
  options?: string[];
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
  inputs: Record<string, InputDef>;
  /** Roots from configuration (app scope). */
  roots: Array<{ uri: string; name?: string }>;
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
}
