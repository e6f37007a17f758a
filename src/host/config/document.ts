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
 * parley.json (JSONC, every key optional) has `$schema` (ignored), `mcpServers`, `servers` (entries:
 * servers.ts), `inputs`, `routes`, `roots`, `presets`, `profile`, `rootPolicy` (sections.ts), `policy`
 * (policy.ts) and `gateway` (gateway.ts); each module holds its section's zod schema, and the types are
 * in types.ts. Unknown keys are warnings; an error leaves out the item that holds it (a bad server is
 * listed in `invalid`). See docs/config.md.
 * @module
 */
import { basename } from 'node:path';
import type { HostConfig, InputVariableDef, PolicyDef, RootPolicyDef, RouteDef, ServerDef } from './types.js';
import { z } from 'zod';
import type { Reader } from './reader.js';
import { isObject, report } from './reader.js';
import type { Segments } from './source.js';
import { named, obj, parseSection } from './zod.js';
import { readServer, type ServerRead } from './servers.js';
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

/** A document or block whose top-level keys are `keys`, each read by its own section; other keys are warned about. */
const top = (what: string, keys: readonly string[]) => obj(what, Object.fromEntries(keys.map((k) => [k, z.unknown().optional()])));
const PARLEY = top('a JSON object', PARLEY_KEYS);
const VSCODE = top('a JSON object', ['$schema', 'servers', 'inputs']);
const MCP = top('an object with "servers"', ['servers', 'inputs']);
const SERVERS = named(z.unknown(), 'an object of servers', 'a server name');

export function readDocument(r: Reader): ConfigLayer {
  const raw = r.source.value;
  const format = isObject(raw) ? detectFormat(r.source.file, raw) : 'parley';
  const layer = emptyLayer(r.source.file, format);
  if (format === 'vscode-settings') {
    // Only "mcp" is parley's; a settings file without it is simply not an MCP configuration.
    const mcp = isObject(raw) && raw.mcp !== undefined ? parseSection(r, MCP, raw.mcp, ['mcp']) : undefined;
    if (!mcp) return layer;
    readServers(r, layer, mcp, ['mcp'], ['servers']);
    if (mcp.inputs !== undefined) layer.inputs = readInputs(r, mcp.inputs, ['mcp', 'inputs']);
    return layer;
  }
  // mcpServers files belong to other apps too: their other keys are ignored silently, except "servers".
  const v = format === 'mcpServers' ? (raw as Record<string, unknown>) : parseSection(r, format === 'vscode' ? VSCODE : PARLEY, raw, []);
  if (!v) return layer;
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
 * Reads the server blocks `keys` of `obj` (found at `at`) into `layer`; a name in two blocks: the later
 * wins, with a warning. Warns `no-servers` when the file defines no server at all (no block, or only
 * empty ones), unless it is a parley file with other settings.
 */
function readServers(r: Reader, layer: ConfigLayer, obj: Record<string, unknown>, at: Segments, keys: string[]): void {
  let count = 0;
  const read = new Map<string, ServerRead>();
  for (const key of keys) {
    const block = obj[key];
    if (block === undefined) continue;
    count += isObject(block) ? Object.keys(block).length : 1; // a wrong type is reported: "no servers" would repeat it
    for (const [name, raw] of Object.entries(parseSection(r, SERVERS, block, [...at, key], ['*']) ?? {})) {
      if (read.delete(name))
        report(r, 'duplicate', [...at, key, name], `server "${name}" is defined twice in this file; this definition wins`, {
          severity: 'warning',
          key: true,
          server: name,
        });
      read.set(name, readServer(r, name, raw, [...at, key, name]));
    }
  }
  for (const [name, res] of read) {
    if (res.kind === 'ok') layer.servers[name] = res.def;
    else (res.kind === 'invalid' ? layer.invalid : layer.disabled).push(name);
  }
  const otherSettings = layer.format === 'parley' && PARLEY_ONLY.some((k) => k in obj);
  if (count === 0 && !otherSettings) {
    report(r, 'no-servers', at, 'no servers defined in this file', {
      severity: 'warning',
      fix: `add servers under ${keys.map((k) => `"${[...at, k].join('.')}"`).join(' or ')}`,
    });
  }
}
