/**
 * parley's `OAuthClientProvider` (SDK v2) for one protected server and one person: what the SDK's
 * `auth()` reads and writes, kept in a {@link CredentialStore}. The protocol flow (discovery,
 * registration, PKCE, token exchange, refresh, issuer checks) is the SDK's; this file only stores
 * things and hands the authorization URL to the person's side (`redirectToAuthorization`).
 *
 * Client registration, in the spec's order: a pre-registered `oauth.clientId` (and secret) from
 * config; else a Client ID Metadata Document (`oauth.clientMetadataUrl`, used by the SDK when the
 * authorization server advertises `client_id_metadata_document_supported`); else dynamic
 * registration (RFC 7591), whose result is stored per issuer. A dynamically registered client whose
 * `redirect_uris` lack the current loopback callback (port aside) reads as absent, so the SDK registers again.
 * The PKCE verifier, `state` and discovery state live in memory for one sign-in only.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type {
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { HttpServerDef } from '../config/types.js';
import { summarize, type CredentialKey, type CredentialRecord, type CredentialSecrets, type CredentialStore } from './credential-store.js';

export interface ProviderOptions {
  key: CredentialKey;
  /** The MCP server URL (the protected resource). */
  serverUrl: string;
  oauth?: HttpServerDef['oauth'];
  store: CredentialStore;
  /** The loopback redirect URI (`CallbackServer.redirectUrl`). */
  redirectUrl: () => string;
  /**
   * The person's side: shows `authorizationUrl` and resolves with the callback's query parameters
   * once the redirect carrying `state` arrived. Rejects when nobody can or will sign in.
   */
  signIn: (authorizationUrl: URL, state: string) => Promise<URLSearchParams>;
  clientName?: string;
  now?: () => number;
  /** Mints the authorization request's `state`. @default 32 random bytes, base64url */
  mintState?: () => string;
}

/** `u` without its port (loopback redirect URIs match on everything else). */
function withoutPort(u: string): string {
  try {
    const x = new URL(u);
    x.port = '';
    return x.href;
  } catch {
    return u;
  }
}

/** Thrown instead of asking the person while {@link ParleyOAuthProvider.refreshOnly} is set. */
export class NoSignInNow extends Error {
  override readonly name = 'NoSignInNow';
  constructor() {
    super('a sign-in is needed (asked outside the refresh lock)');
  }
}

export class ParleyOAuthProvider implements OAuthClientProvider {
  readonly #o: ProviderOptions;
  #record: CredentialRecord | undefined;
  #loaded = false;
  #verifier: string | undefined;
  #state: string | undefined;
  #discovery: OAuthDiscoveryState | undefined;
  #callback: URLSearchParams | undefined;
  /** Writes by this process so far: a read that started before one is older than what it wrote. */
  #writes = 0;
  /** Last access-token expiry, epoch ms. */
  expiresAt: number | undefined;
  /** When the row was last read from the store, epoch ms (`now`); `undefined` before the first read. */
  loadedAt: number | undefined;

  constructor(o: ProviderOptions) {
    this.#o = o;
  }

  /**
   * Set while another process's refresh may have made a sign-in unnecessary: the person's side is then
   * not asked ({@link redirectToAuthorization} throws {@link NoSignInNow}). See `AuthSession`.
   */
  refreshOnly = false;

  /**
   * Reads the stored row again: another process (a replica of the gateway, `parley call`) may have
   * refreshed the tokens or signed in since {@link load}.
   */
  async reload(): Promise<void> {
    this.#loaded = false;
    await this.load();
  }

  /**
   * Reads the stored row once (a row for another URL counts as absent). A row read while this process
   * wrote its own (a refresh that finished meanwhile) is older than that write and is not taken.
   */
  async load(): Promise<void> {
    if (this.#loaded) return;
    const writes = this.#writes;
    const readAt = (this.#o.now ?? Date.now)();
    const r = await this.#o.store.get(this.#o.key);
    this.loadedAt = readAt;
    this.#loaded = true;
    if (writes !== this.#writes) return;
    this.#record = r && r.url === this.#o.serverUrl ? r : undefined;
    this.expiresAt = this.#record?.expiresAt;
  }

  get #secrets(): CredentialSecrets {
    return this.#record?.secrets ?? { clients: {} };
  }

  /** Writes the row. `tokensObtainedAt` is set when `secrets.tokens` are new (their expiry counts from it). */
  async #persist(secrets: CredentialSecrets, tokensObtainedAt?: number): Promise<void> {
    const now = (this.#o.now ?? Date.now)();
    const rec = summarize(this.#o.key, this.#o.serverUrl, secrets, now, tokensObtainedAt);
    if (tokensObtainedAt === undefined && secrets.tokens) {
      // Same tokens as before: keep the expiry computed when they arrived.
      if (this.#record?.expiresAt !== undefined) rec.expiresAt = this.#record.expiresAt;
      else delete rec.expiresAt;
    }
    this.#record = rec;
    this.expiresAt = rec.expiresAt;
    this.#writes++;
    await this.#o.store.put(rec);
  }

  get redirectUrl(): string {
    return this.#o.redirectUrl();
  }

  get clientMetadataUrl(): string | undefined {
    return this.#o.oauth?.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.#o.clientName ?? 'parley',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(this.#o.oauth?.scope ? { scope: this.#o.oauth.scope } : {}),
    };
  }

  state(): string {
    this.#state = this.#o.mintState?.() ?? randomBytes(32).toString('base64url');
    return this.#state;
  }

  async clientInformation(ctx?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
    const pre = this.#o.oauth;
    if (pre?.clientId) return { client_id: pre.clientId, ...(pre.clientSecret ? { client_secret: pre.clientSecret } : {}) };
    await this.load();
    const clients = this.#secrets.clients;
    const info = ctx ? clients[ctx.issuer] : Object.values(clients).at(-1);
    if (!info) return undefined;
    // Registered for another callback: re-register. The loopback port may differ (RFC 8252 §7.3: the
    // authorization server allows any port), so it is not compared; keeping the client keeps its refresh tokens.
    const uris = (info as { redirect_uris?: unknown }).redirect_uris;
    if (Array.isArray(uris) && !uris.some((u) => typeof u === 'string' && withoutPort(u) === withoutPort(this.redirectUrl)))
      return undefined;
    return info;
  }

  async saveClientInformation(info: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext): Promise<void> {
    if (this.#o.oauth?.clientId) return; // pre-registered: config is the source, nothing to store
    await this.load();
    const issuer = ctx?.issuer ?? info.issuer ?? 'unknown';
    const s = this.#secrets;
    await this.#persist({ ...s, clients: { ...s.clients, [issuer]: info } });
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    await this.load();
    return this.#secrets.tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    await this.load();
    await this.#persist({ ...this.#secrets, tokens }, (this.#o.now ?? Date.now)());
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (this.refreshOnly) throw new NoSignInNow();
    const state = authorizationUrl.searchParams.get('state') ?? this.#state ?? '';
    this.#callback = await this.#o.signIn(authorizationUrl, state);
  }

  /** The callback parameters of the sign-in that just completed (once). */
  takeCallback(): URLSearchParams | undefined {
    const c = this.#callback;
    this.#callback = undefined;
    return c;
  }

  saveCodeVerifier(v: string): void {
    this.#verifier = v;
  }

  codeVerifier(): string {
    if (!this.#verifier) throw new Error('no PKCE code verifier: no sign-in is in progress');
    return this.#verifier;
  }

  saveDiscoveryState(s: OAuthDiscoveryState): void {
    this.#discovery = s;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  /** The issuer found by discovery (for the "sign in at *issuer*" message). */
  get issuer(): string | undefined {
    return this.#discovery?.authorizationServerMetadata?.issuer ?? this.#discovery?.authorizationServerUrl;
  }

  get resource(): string | undefined {
    return this.#discovery?.resourceMetadata?.resource;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'all') this.#verifier = undefined;
    if (scope === 'discovery' || scope === 'all') this.#discovery = undefined;
    if (scope === 'verifier' || scope === 'discovery') return;
    await this.load();
    if (scope === 'all') {
      this.#record = undefined;
      this.expiresAt = undefined;
      this.#writes++;
      await this.#o.store.delete(this.#o.key);
      return;
    }
    const s = this.#secrets;
    await this.#persist(scope === 'client' ? { ...s, clients: {} } : { clients: s.clients });
  }
}
