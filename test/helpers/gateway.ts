// A HostConfig for gateway tests: parley.json defaults with the given servers.
import { mergeLayers } from '../../src/host/config/load.js';
import { emptyLayer } from '../../src/host/config/document.js';
import type { HostConfig } from '../../src/host/index.js';
import type { Gateway } from '../../src/gateway/index.js';

export function gatewayConfig(servers: HostConfig['servers']): HostConfig {
  const c = mergeLayers([emptyLayer('<test>', 'parley')]);
  c.servers = servers;
  return c;
}

/** The HTTP options `gateway.serve` takes. */
type GatewayHttp = Extract<Parameters<Gateway['serve']>[0], { http: unknown }>['http'];

/**
 * Serves `gw` over HTTP on 127.0.0.1 (port 0). `stop()` closes the server, then the gateway, then runs
 * `cleanup` (temp folders, stores).
 */
export async function serveGateway(
  gw: Gateway,
  http: GatewayHttp = {},
  cleanup?: () => void,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const h = await gw.serve({ http });
  return {
    url: h.url,
    stop: async () => {
      await h.close();
      await gw.close();
      cleanup?.();
    },
  };
}
