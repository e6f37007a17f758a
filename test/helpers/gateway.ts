// A HostConfig for gateway tests: parley.json defaults with the given servers.
import { mergeLayers } from '../../src/host/config/load.js';
import { emptyLayer } from '../../src/host/config/document.js';
import type { HostConfig } from '../../src/host/index.js';

export function gatewayConfig(servers: HostConfig['servers']): HostConfig {
  const c = mergeLayers([emptyLayer('<test>', 'parley')]);
  c.servers = servers;
  return c;
}
