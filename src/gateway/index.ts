/**
 * `mcp-parley/gateway`: parley in front of any MCP client. docs/gateway.md.
 * @module
 */
export {
  createGateway,
  DEFAULT_USER,
  DEFAULT_MAX_SESSIONS_PER_USER,
  DEFAULT_MAX_PENDING_PER_USER,
  DEFAULT_SESSION_IDLE_MS,
  type Gateway,
  type GatewayOptions,
  type UserSpace,
} from './gateway.js';
export { BridgePresenter, OpenCalls, PendingCapError, upstreamParams, toAnswer, type UpstreamCall } from './bridge.js';
export { ParkingLot, ParkedCall, type ParkOptions } from './park.js';
export { namespace, qualifiedUri, parseQualifiedUri, SEPARATOR, MAX_NAME } from './names.js';
export { hashToken, newToken, userForAuthorization, identityKey, parseIdentity, gatewayIdentities, DEFAULT_TENANT } from './users.js';
export { Catalog } from './catalog.js';
export {
  ResourceGuard,
  identityOf,
  ISSUER_FETCH_MS,
  INTROSPECTION_CACHE_MS,
  MAX_CLAIM_CHARS,
  type Identity,
  type ResourceGuardOptions,
} from './oauth.js';
