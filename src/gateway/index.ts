/**
 * `mcp-parley/gateway`: parley in front of any MCP client. docs/gateway.md.
 * @module
 */
export { createGateway, DEFAULT_USER, type Gateway, type GatewayOptions, type UserSpace } from './gateway.js';
export { BridgePresenter, upstreamParams, toAnswer, type UpstreamCall } from './bridge.js';
export { ParkingLot, ParkedCall, type ParkOptions } from './park.js';
export { namespace, qualifiedUri, parseQualifiedUri, SEPARATOR, MAX_NAME } from './names.js';
export { hashToken, newToken, userForAuthorization, identityOf, parseIdentity, gatewayIdentities, DEFAULT_TENANT } from './users.js';
export { Catalog } from './catalog.js';
