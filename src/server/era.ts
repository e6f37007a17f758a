/**
 * Reading the era, revision, client capabilities and user identity of one request.
 * Modern (2026-07-28) requests carry them in `_meta` (protocol.md §6.1); legacy ones in `initialize`.
 * @module
 */
import type { AuthInfo, McpServer, ServerContext, ClientCapabilities } from '@modelcontextprotocol/server';
import type { Revision } from '../schema/types.js';

const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';

/** Era facts of one request. */
export interface RequestEra {
  modern: boolean;
  revision: Revision;
  caps: ClientCapabilities;
  /** False for negotiated revisions older than 2025-06-18, which have no elicitation. */
  elicitation: boolean;
}

/** Derives era, revision and the client's capabilities (per request on 2026-07-28; per connection before). */
export function readEra(mcp: McpServer, ctx: ServerContext): RequestEra {
  const env = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
  const negotiated = mcp.server.getNegotiatedProtocolVersion?.();
  const modern = env[PV] === '2026-07-28' || negotiated === '2026-07-28';
  if (modern) return { modern, revision: '2026-07-28', caps: (env[CAPS] ?? {}) as ClientCapabilities, elicitation: true };
  const revision: Revision = negotiated === '2025-11-25' ? '2025-11-25' : '2025-06-18';
  // Versions compare as dates; an unknown (undefined) negotiated version is treated as 2025-06-18.
  const elicitation = negotiated === undefined || negotiated >= '2025-06-18';
  return { modern, revision, caps: mcp.server.getClientCapabilities() ?? {}, elicitation };
}

/**
 * Which elicitation modes the client declared. 2025-11-25+: `elicitation: {}` means form only,
 * `{url: {}}` alone means URL only. 2025-06-18: any `elicitation` object means form (there are no
 * sub-modes and no URL mode). Revisions before 2025-06-18 have no elicitation at all.
 */
export function elicitModes(era: RequestEra): { form: boolean; url: boolean } {
  const e = era.caps.elicitation as Record<string, unknown> | undefined;
  if (!e || !era.elicitation) return { form: false, url: false };
  if (era.revision === '2025-06-18') return { form: true, url: false };
  const hasForm = 'form' in e,
    hasUrl = 'url' in e;
  return { form: hasForm || !hasUrl, url: hasUrl };
}

/** The authenticated user: `authInfo.extra.sub`, else `authInfo.clientId`, else '' (unknown). */
export function userOf(ctx: ServerContext): string {
  return userOfAuth(ctx.http?.authInfo);
}

/** `userOf` for an `AuthInfo` the serving entry holds (the result of `HttpOptions.authenticate`). */
export function userOfAuth(a: AuthInfo | undefined): string {
  if (!a) return '';
  const sub = (a.extra as Record<string, unknown> | undefined)?.sub;
  return typeof sub === 'string' && sub ? sub : (a.clientId ?? '');
}
