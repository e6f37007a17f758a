// A real OpenID provider in process (`oidc-provider`) on 127.0.0.1: client_credentials grants with RFC 8707
// resource indicators, JWT (RS256) access tokens with the client's extra claims, or opaque tokens for
// introspection. Also hands out its signing key so tests can forge tokens the provider never issued
// (wrong issuer) without a second provider.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { JWK } from 'jose';
import Provider from 'oidc-provider';

export interface IssuerClient {
  id: string;
  secret: string;
  /** Claims added to every access token of this client. */
  claims?: Record<string, unknown>;
  /** Access token lifetime, s. @default 300 */
  ttl?: number;
  /** @default 'jwt' */
  format?: 'jwt' | 'opaque';
}

export interface Issuer {
  issuer: string;
  /** A client_credentials token for `client`, for `resource`. */
  token(client: IssuerClient, resource: string, scope?: string): Promise<string>;
  /** Signs `payload` with the provider's own key (kid and alg as the provider's tokens). */
  forge(payload: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/**
 * A browser client (authorization code + PKCE, public) whose sign-ins finish by themselves: the account
 * signed in is the one the browser's `test_account` cookie names, else `defaultAccount`; its claims are
 * `accounts[account]` (in the ID token when `idTokenClaims`, else only through userinfo).
 */
export interface IssuerBrowserClient {
  id: string;
  redirectUri: string;
  accounts: Record<string, Record<string, unknown>>;
  defaultAccount: string;
  /** @default false (the provider's default: scope claims from userinfo only when an access token is issued) */
  idTokenClaims?: boolean;
}

export async function startIssuer(
  clients: IssuerClient[],
  extra: Array<{ id: string; secret: string }> = [],
  browser?: IssuerBrowserClient,
): Promise<Issuer> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'k1', use: 'sig', alg: 'RS256' };
  const http = createServer();
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const byId = new Map(clients.map((c) => [c.id, c]));
  const provider = new Provider(issuer, {
    clients: [
      ...[...clients, ...extra].map((c) => ({
        client_id: c.id,
        client_secret: c.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      })),
      ...(browser
        ? [
            {
              client_id: browser.id,
              grant_types: ['authorization_code'],
              redirect_uris: [browser.redirectUri],
              response_types: ['code'],
              token_endpoint_auth_method: 'none',
            },
          ]
        : []),
    ],
    ...(browser
      ? {
          claims: { openid: ['sub', ...new Set(Object.values(browser.accounts).flatMap((a) => Object.keys(a)))] },
          conformIdTokenClaims: !browser.idTokenClaims,
          findAccount: async (_ctx: unknown, sub: string) => ({
            accountId: sub,
            claims: async () => ({ ...browser.accounts[sub], sub }),
          }),
          interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
          cookies: { keys: ['parley-test-issuer-cookie-key'] },
        }
      : {}),
    jwks: { keys: [jwk] },
    scopes: ['openid', 'mcp', 'admin'],
    features: {
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as never,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string, client: { clientId: string }) => {
          const c = byId.get(client.clientId);
          return {
            scope: 'mcp admin',
            audience: resource,
            accessTokenTTL: c?.ttl ?? 300,
            accessTokenFormat: c?.format ?? 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    extraTokenClaims: (_ctx: unknown, token: { clientId?: string }) => byId.get(token.clientId ?? '')?.claims,
  } as never);
  const handler = provider.callback();
  http.on('request', async (req, res) => {
    if (!browser || !req.url?.startsWith('/interaction/')) return handler(req, res);
    try {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === 'login') {
        const m = /(?:^|;\s*)test_account=([^;]+)/.exec(req.headers.cookie ?? '');
        const account = m ? decodeURIComponent(m[1]!) : browser.defaultAccount;
        return await provider.interactionFinished(req, res, { login: { accountId: account } }, { mergeWithLastSubmission: false });
      }
      const grant = details.grantId
        ? (await provider.Grant.find(details.grantId))!
        : new provider.Grant({ accountId: String(details.session?.accountId), clientId: String(details.params.client_id) });
      const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      const grantId = await grant.save();
      return await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  });
  return {
    issuer,
    async token(client, resource, scope = 'mcp') {
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
      });
      const body = (await res.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    forge: (payload) => new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'at+jwt' }).sign(privateKey),
    close: () =>
      new Promise<void>((r) => {
        http.closeAllConnections();
        http.close(() => r());
      }),
  };
}
