/**
 * The host's static configuration: reading `mcpServers`, VS Code `mcp.json` and `parley.json`,
 * search order and merging, `${…}` interpolation, `${input:id}` resolution and the child environment.
 * See docs/config.md.
 * @module
 */
export type {
  HostConfig,
  ServerDef,
  StdioServerDef,
  HttpServerDef,
  ServerTimeouts,
  ConfigOrigin,
  RouteDef,
  PolicyDef,
  InputVariableDef,
  GatewayDef,
  GatewayOAuthDef,
  TenantDef,
} from './types.js';
export type { ConfigIssue, ConfigIssueCode } from './issues.js';
export { ConfigError, formatConfigIssues, hasErrors, CONFIG_ISSUE_CODES } from './issues.js';
export type { LoadContext, LoadHostConfigOptions, LoadedConfigFile } from './load.js';
export { loadHostConfig, loadConfigFile, loadConfigValue, mergeLayers, searchPaths } from './load.js';
export type { ConfigFormat, ConfigLayer } from './document.js';
export { detectFormat } from './document.js';
export type { InterpolationContext, Expansion } from './interpolate.js';
export { expand } from './interpolate.js';
export { buildChildEnv, parseDotenv } from './env.js';
export type { DotenvResult } from './env.js';
export type { AskInputVariable } from './inputs.js';
export { resolveInputVariables } from './inputs.js';
export { DEFAULT_POLICY, DEFAULT_TIMEOUTS } from './policy.js';
