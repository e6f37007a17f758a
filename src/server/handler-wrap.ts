/**
 * Wraps request handlers the SDK's `McpServer` installs (its `tools/list`, `tools/call`, `resources/read`),
 * with the SDK's public API only: see `createWrappedMcpServer`.
 * @module
 */
import { McpServer } from '@modelcontextprotocol/server';
import type { Implementation, McpServerOptions, ServerContext } from '@modelcontextprotocol/server';

/** A request handler as `Server.setRequestHandler(method, handler)` takes it: the parsed request in, the result out. */
export type Handler = (request: unknown, ctx: ServerContext) => Promise<unknown>;

/**
 * `new McpServer(info, options)` whose first `tools/list`, `tools/call` and `resources/read` handlers (any
 * method named in `wrappers`) are stored wrapped: `wrappers[method](sdkHandler)`. A later installation of the
 * same method (an application replacing the handler) and every other method pass through unchanged.
 *
 * Uses the SDK's public API only. `McpServer` installs its handlers through the low-level `Server`'s public
 * `setRequestHandler`: in its constructor for the `tools`/`resources` capabilities given there, otherwise
 * when the first tool or resource is registered. So the McpServer is built without those two capabilities,
 * `mcp.server.setRequestHandler` is routed through the wrapping function, the capabilities are registered
 * with `Server.registerCapabilities`, and the handlers the constructor would have installed are installed
 * the public way (registering one tool or resource and removing it again before anything is connected, so
 * nothing is announced and nothing stays listed). Wrapping functions are called once, at installation.
 * @throws Error from `assertWrapped(method)` when `method` was not installed through `setRequestHandler`
 *   (an SDK change that would otherwise lose the wrapper silently).
 */
export function createWrappedMcpServer(
  info: Implementation,
  options: McpServerOptions,
  wrappers: Record<string, (inner: Handler) => Handler>,
): { mcp: McpServer; assertWrapped(method: string): void } {
  const { tools, resources, ...rest } = options.capabilities ?? {};
  const mcp = new McpServer(info, { ...options, capabilities: rest });
  const server = mcp.server;
  const install = server.setRequestHandler.bind(server) as (method: string, ...args: unknown[]) => void;
  const done = new Set<string>();
  server.setRequestHandler = ((method: string, ...args: unknown[]) => {
    const wrap = wrappers[method];
    if (wrap && !done.has(method) && args.length === 1 && typeof args[0] === 'function') {
      done.add(method);
      return install(method, wrap(args[0] as Handler));
    }
    return install(method, ...args);
  }) as typeof server.setRequestHandler;
  server.registerCapabilities({ ...(tools ? { tools } : {}), ...(resources ? { resources } : {}) });
  if (tools) mcp.registerTool('parley_install_handlers', { description: '' }, () => ({ content: [] })).remove();
  if (resources) mcp.registerResource('parley_install_handlers', 'parley://install-handlers', {}, () => ({ contents: [] })).remove();
  return {
    mcp,
    assertWrapped(method) {
      if (!done.has(method))
        throw new Error(
          `SDK changed: McpServer did not install its ${method} handler through Server.setRequestHandler; parley cannot wrap it`,
        );
    },
  };
}
