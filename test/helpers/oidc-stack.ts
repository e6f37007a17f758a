// A real OpenID Provider (`oidc-provider`) on 127.0.0.1 in front of a small protected MCP server (SDK v2
// `createMcpHandler` behind the SDK's `requireBearerAuth`, tokens checked as JWTs against the provider's
// JWKS with `jose`). The provider has dynamic registration, PKCE, RFC 8707 resource indicators (JWT access
// tokens whose `aud` is the MCP server URL), refresh tokens and revocation. Its login and consent
// interactions finish by themselves for account "alice", so a redirect-following user agent completes
// a sign-in. Everything listens on 127.0.0.1:0 and `close()` ends it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { errors } from 'oidc-provider';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as z from 'zod';
import { McpServer, createMcpHandler, requireBearerAuth, OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';

export interface OidcStack {
  issuer: string;
  /** The protected MCP endpoint (`…/mcp`), also the resource indicator. */
  mcpUrl: string;
  provider: Provider;
  /** Token-endpoint outcomes in order: grant types, or `error:<grant type> (<error>)`. */
  tokenGrants: string[];
  /** Authorization requests seen (query parameters). */
  authorizations: URLSearchParams[];
  /** Requests to /mcp answered 401. */
  unauthorized: number;
  /** While true, the token endpoint never answers (an authorization server that hangs). */
  hangTokenEndpoint: boolean;
  /** While true, the token endpoint sends its headers and the start of a body, then stalls. */
  stallTokenBody: boolean;
  /** While true, the token endpoint answers with an endless body (64 KiB chunks until the client stops). */
  floodTokenBody: boolean;
  /** Chunks the flooding token endpoint wrote. */
  floodChunks: number;
  close(): Promise<void>;
}

export interface OidcStackOptions {
  /** Access-token lifetime, s. @default 3600 */
  accessTokenTtl?: number;
  /** What the protected-resource metadata says `resource` is. @default the MCP URL */
  advertisedResource?: (mcpUrl: string) => string;
  /**
   * Every refresh returns a new refresh token and the used one is spent (a used one coming back
   * revokes the grant), as providers with refresh-token rotation do. @default the provider's own rule
   */
  rotateRefreshToken?: boolean;
  /** The token endpoint waits this long before it handles a request, ms (widens a refresh race). @default 0 */
  tokenDelayMs?: number;
}

const listen = (s: Server) => new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)));
const closeServer = (s: Server) =>
  new Promise<void>((r) => {
    s.closeAllConnections();
    s.close(() => r());
  });

export async function startOidcStack(opts: OidcStackOptions = {}): Promise<OidcStack> {
  const opServer = createServer();
  const mcpServer = createServer();
  const [opPort, mcpPort] = await Promise.all([listen(opServer), listen(mcpServer)]);
  const issuer = `http://127.0.0.1:${opPort}`;
  const mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
  const tokenGrants: string[] = [];
  const authorizations: URLSearchParams[] = [];

  const provider = new Provider(issuer, {
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => mcpUrl,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => {
          if (resourceIndicator !== mcpUrl) throw new errors.InvalidTarget();
          return {
            scope: 'mcp:read mcp:write',
            audience: mcpUrl,
            accessTokenTTL: opts.accessTokenTtl ?? 3600,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    scopes: ['openid', 'offline_access', 'mcp:read', 'mcp:write'],
    pkce: { required: () => true },
    ...(opts.rotateRefreshToken !== undefined ? { rotateRefreshToken: opts.rotateRefreshToken } : {}),
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    cookies: { keys: ['parley-test-cookie-key'] },
  });
  // Token-endpoint outcomes, e.g. 'authorization_code', 'refresh_token', 'error:refresh_token (invalid_grant)'.
  provider.on('grant.success', (ctx: { oidc: { params?: Record<string, unknown> } }) =>
    tokenGrants.push(String(ctx.oidc.params?.grant_type)),
  );
  provider.on('grant.error', (ctx: { oidc: { params?: Record<string, unknown> } }, err: Error) =>
    tokenGrants.push(
      `error:${String(ctx.oidc.params?.grant_type)} (${(err as { error?: string }).error ?? err.message}: ${(err as { error_detail?: string }).error_detail ?? ''})`,
    ),
  );
  const opHandler = provider.callback();
  opServer.on('request', async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const url = new URL(req.url ?? '/', issuer);
      if (url.pathname === '/auth' && req.method === 'GET') authorizations.push(url.searchParams);
      if (url.pathname === '/token' && stack.hangTokenEndpoint) return; // accepted, never answered
      if (url.pathname === '/token' && opts.tokenDelayMs) await new Promise((r) => setTimeout(r, opts.tokenDelayMs));
      if (url.pathname === '/token' && stack.floodTokenBody) {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const more = () => {
          while (!res.destroyed && stack.floodChunks < 20_000 && res.write(chunk)) stack.floodChunks++;
          if (!res.destroyed && stack.floodChunks < 20_000) res.once('drain', more);
        };
        return void more();
      }
      if (url.pathname === '/token' && stack.stallTokenBody) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.write('{"access_token":'); // headers and a first chunk, then nothing
      }
      if (url.pathname.startsWith('/interaction/')) {
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name === 'login') {
          return await provider.interactionFinished(req, res, { login: { accountId: 'alice' } }, { mergeWithLastSubmission: false });
        }
        const grant = details.grantId
          ? (await provider.Grant.find(details.grantId))!
          : new provider.Grant({ accountId: 'alice', clientId: String(details.params.client_id) });
        // Grant exactly what the consent prompt says is missing (the provider's usual consent pattern).
        const missing = details.prompt.details as {
          missingOIDCScope?: string[];
          missingOIDCClaims?: string[];
          missingResourceScopes?: Record<string, string[]>;
        };
        if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
        if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
        for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
          grant.addResourceScope(indicator, scopes.join(' '));
        const grantId = await grant.save();
        return await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      }
      return opHandler(req, res);
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  });

  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const prmUrl = `http://127.0.0.1:${mcpPort}/.well-known/oauth-protected-resource/mcp`;
  const gate = requireBearerAuth({
    expectedResource: new URL(mcpUrl),
    resourceMetadataUrl: prmUrl,
    verifier: {
      verifyAccessToken: async (token: string) => {
        try {
          const { payload } = await jwtVerify(token, jwks, { issuer, audience: mcpUrl });
          return {
            token,
            clientId: String(payload.client_id ?? ''),
            scopes: String(payload.scope ?? '')
              .split(' ')
              .filter(Boolean),
            expiresAt: payload.exp,
            resource: new URL(mcpUrl),
          };
        } catch (err) {
          throw new OAuthError(OAuthErrorCode.InvalidToken, `token refused: ${(err as Error).message}`);
        }
      },
    },
  });
  const mcp = createMcpHandler(() => {
    const s = new McpServer({ name: 'protected', version: '1.0.0' });
    s.registerTool('whoami', { inputSchema: z.object({}) }, async (_a, ctx) => ({
      content: [{ type: 'text', text: `hello ${ctx.http?.authInfo?.clientId ? 'client' : 'nobody'}` }],
    }));
    return s;
  });
  const stack: OidcStack = {
    issuer,
    mcpUrl,
    provider,
    tokenGrants,
    authorizations,
    unauthorized: 0,
    hangTokenEndpoint: false,
    stallTokenBody: false,
    floodTokenBody: false,
    floodChunks: 0,
    close: async () => {},
  };
  const mcpNode = toNodeHandler({
    fetch: async (request: Request) => {
      const url = new URL(request.url);
      if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
        const resource = opts.advertisedResource ? opts.advertisedResource(mcpUrl) : mcpUrl;
        return Response.json({
          resource,
          authorization_servers: [issuer],
          scopes_supported: ['mcp:read'],
          bearer_methods_supported: ['header'],
        });
      }
      if (url.pathname !== '/mcp') return new Response('not found', { status: 404 });
      const auth = await gate(request);
      if (auth instanceof Response) {
        if (auth.status === 401) stack.unauthorized++;
        return auth;
      }
      return mcp.fetch(request, { authInfo: auth });
    },
  } as never);
  mcpServer.on('request', (req, res) => void mcpNode(req, res));
  stack.close = async () => {
    await Promise.all([closeServer(opServer), closeServer(mcpServer)]);
  };
  return stack;
}
