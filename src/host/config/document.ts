/**
 * Reads one configuration document into a {@link ConfigLayer}. The format is detected by content:
 *
 * - `parley`: the file is named `parley.json`, or has any of `routes`, `policy`, `presets`, `profile`,
 *   `roots`, `rootPolicy`, `gateway`. Both `mcpServers` and `servers` are read (a name in both: `servers` wins, with a warning).
 * - `mcpServers`: Claude Desktop, Cursor, Claude Code. Other top-level keys belong to those apps and
 *   are ignored silently, except `servers`, which is warned about (it would otherwise vanish).
 * - `vscode`: VS Code `mcp.json` with `servers` and `inputs`; other top-level keys are warned about.
 * - `vscode-settings`: VS Code's `settings.json` form, `{"mcp": {"servers", "inputs"}}`; every other key
 *   belongs to VS Code and is ignored silently.
 *
 * The parley.json schema (every key optional; JSONC):
 * ```
 * {
 *   "$schema"?:    string,                                   // ignored
 *   "mcpServers"?: { [name]: ServerEntry },                  // see servers.ts
 *   "servers"?:    { [name]: ServerEntry },
 *   "inputs"?:     [{ id, type: "promptString"|"pickString", description?, password?, default?, options? }],
 *   "routes"?:     [{ match: string, regex?: boolean, servers: string[] }],   // glob, or JS regex source
 *   "policy"?:     { sensitiveFields?: "decline"|"ask"|"allow",  // default "decline"
 *                    ratePerMinute?: int (30), burst?: int (10), maxPendingPerServer?: int (5),
 *                    urlSchemes?: string[] (["https"]), allowLoopbackUrls?: boolean (false), sampling?: "ask"|"decline" ("ask") },
 *   "gateway"?:    { users?: { [name]: { tokenSha256 } }, oauth?: { issuer, … }, maxSessionsPerUser?, maxPendingPerUser?, sessionIdleMs? },
 *   "presets"?:    { [name]: { roots?: Root[], answers?: { [formKey]: { [field]: value } } } },
 *   "profile"?:    { [fieldName]: value },                   // prefill for fields of that name
 *   "roots"?:      Root[],                                   // Root = {uri, name?} | string (path or URI;
 *                                                            //  other schemes are virtual: routing only)
 *   "rootPolicy"?: { unrouted?: "all"|"none",               // default "none" with routes, else "all"
 *                    healthIntervalMs?: int (30000), watch?: boolean (true) }
 * }
 * ```
 * Unknown keys are warnings; wrong types are errors that leave the bad item out (a bad server is
 * listed in `invalid`). See docs/config.md.
 * @module
 */
import { basename } from 'node:path';
import type { HostConfig, InputVariableDef, PolicyDef, RootPolicyDef, RouteDef, ServerDef } from './types.js';
import type { Reader } from './reader.js';
import { isObject, report, reservedKey, unknownKeys, wrongType } from './reader.js';
import { readServer } from './servers.js';
import { readPolicy } from './policy.js';
import { readInputs, readPresets, readProfile, readRootPolicy, readRoots, readRoutes } from './sections.js';
import { readGateway } from './gateway.js';

export type ConfigFormat = 'mcpServers' | 'vscode' | 'vscode-settings' | 'parley';

/** What one file contributes before merging. */
export interface ConfigLayer {
  file: string;
  format: ConfigFormat;
  /** Valid server definitions. */
  servers: Record<string, ServerDef>;
  /** Servers defined here with errors; they shadow lower layers and are not started. */
  invalid: string[];
  /** Servers defined here with `disabled: true`; they shadow lower layers and are not started. */
  disabled: string[];
  routes: RouteDef[];
  policy: Partial<PolicyDef>;
  presets: HostConfig['presets'];
  profile: Record<string, unknown>;
  inputs: Record<string, InputVariableDef>;
  roots: HostConfig['roots'];
  rootPolicy: RootPolicyDef;
  gateway: NonNullable<HostConfig['gateway']>;
}

const PARLEY_ONLY = ['routes', 'policy', 'presets', 'profile', 'roots', 'rootPolicy', 'gateway'];
const PARLEY_KEYS = ['$schema', 'mcpServers', 'servers', 'inputs', ...PARLEY_ONLY];

export function detectFormat(file: string, value: Record<string, unknown>): ConfigFormat {
  if (basename(file) === 'parley.json' || PARLEY_ONLY.some((k) => k in value)) return 'parley';
  if (basename(file) === 'settings.json' || (isObject(value.mcp) && !('mcpServers' in value) && !('servers' in value)))
    return 'vscode-settings';
  if ('mcpServers' in value) return 'mcpServers';
  if ('servers' in value || 'inputs' in value) return 'vscode';
  return 'parley';
}

export function emptyLayer(file: string, format: ConfigFormat): ConfigLayer {
  return {
    file,
    format,
    servers: {},
    invalid: [],
    disabled: [],
    routes: [],
    policy: {},
    presets: {},
    profile: {},
    inputs: {},
    roots: [],
    rootPolicy: {},
    gateway: { users: {} },
  };
}

export function readDocument(r: Reader): ConfigLayer {
  const v = r.source.value;
  if (!isObject(v)) {
    wrongType(r, [], 'a JSON object', v);
    return emptyLayer(r.source.file, 'parley');
  }
  const format = detectFormat(r.source.file, v);
  const layer = emptyLayer(r.source.file, format);
  if (format === 'vscode-settings') {
    // Only "mcp" is parley's; a settings file without it is simply not an MCP configuration.
    if (v.mcp === undefined) return layer;
    if (!isObject(v.mcp)) {
      wrongType(r, ['mcp'], 'an object with "servers"', v.mcp);
      return layer;
    }
    unknownKeys(r, v.mcp, ['mcp'], ['servers', 'inputs']);
    readServers(r, layer, v.mcp, ['mcp'], ['servers']);
    if (v.mcp.inputs !== undefined) layer.inputs = readInputs(r, v.mcp.inputs, ['mcp', 'inputs']);
    return layer;
  }
  if (format === 'parley') unknownKeys(r, v, [], PARLEY_KEYS);
  if (format === 'vscode') unknownKeys(r, v, [], ['$schema', 'servers', 'inputs']);
  if (format === 'mcpServers' && v.servers !== undefined) {
    report(r, 'unknown-key', ['servers'], '"servers" is ignored in an mcpServers file', {
      severity: 'warning',
      key: true,
      fix: 'move these entries into "mcpServers"',
    });
  }
  readServers(r, layer, v, [], format === 'mcpServers' ? ['mcpServers'] : format === 'vscode' ? ['servers'] : ['mcpServers', 'servers']);
  if (v.inputs !== undefined) layer.inputs = readInputs(r, v.inputs, ['inputs']);
  if (format !== 'parley') return layer;
  layer.routes = readRoutes(r, v.routes, ['routes']);
  layer.policy = readPolicy(r, v.policy, ['policy']);
  layer.roots = readRoots(r, v.roots, ['roots']);
  layer.rootPolicy = readRootPolicy(r, v.rootPolicy, ['rootPolicy']);
  layer.profile = readProfile(r, v.profile, ['profile']);
  layer.presets = readPresets(r, v.presets, ['presets']);
  layer.gateway = readGateway(r, v.gateway, ['gateway']);
  return layer;
}

/**
 * Reads the server blocks `keys` of `obj` (found at `at`) into `layer`. Warns `no-servers` when the file
 * defines no server at all (no block, or only empty ones), unless it is a parley file with other settings.
 */
function readServers(r: Reader, layer: ConfigLayer, obj: Record<string, unknown>, at: Array<string | number>, keys: string[]): void {
  let count = 0;
  for (const key of keys) {
    const block = obj[key];
    if (block === undefined) continue;
    if (!isObject(block)) {
      wrongType(r, [...at, key], 'an object of servers', block);
      count++; // reported already; "no servers" would be a second message about the same mistake
      continue;
    }
    for (const [name, raw] of Object.entries(block)) {
      count++;
      if (reservedKey(r, name, [...at, key, name], 'a server name')) continue;
      if (Object.hasOwn(layer.servers, name) || layer.invalid.includes(name) || layer.disabled.includes(name)) {
        report(r, 'duplicate', [...at, key, name], `server "${name}" is defined twice in this file; this definition wins`, {
          severity: 'warning',
          key: true,
          server: name,
        });
        delete layer.servers[name];
        layer.invalid = layer.invalid.filter((n) => n !== name);
        layer.disabled = layer.disabled.filter((n) => n !== name);
      }
      const res = readServer(r, name, raw, [...at, key, name]);
      if (res.kind === 'ok') layer.servers[name] = res.def;
      else if (res.kind === 'invalid') layer.invalid.push(name);
      else layer.disabled.push(name);
    }
  }
  const otherSettings = layer.format === 'parley' && PARLEY_ONLY.some((k) => k in obj);
  if (count === 0 && !otherSettings) {
    report(r, 'no-servers', at, 'no servers defined in this file', {
      severity: 'warning',
      fix: `add servers under ${keys.map((k) => `"${[...at, k].join('.')}"`).join(' or ')}`,
    });
  }
}
