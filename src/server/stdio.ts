/**
 * stdio serving for `serve({stdio: true})`. The SDK's `serveStdio` reads a connection's opening message,
 * pins one instance for the era it selects, and then relays every later message through a channel that
 * checks it against the JSON-RPC schemas: four failing zod parses per elicitation round trip, about a
 * third of a toolkit server's CPU per elicitation (docs/benchmarks-method.md, toolkit group).
 *
 * A connection that opens with a plain 2025-era `initialize` request (no 2026-07-28 protocol-version
 * claim in `_meta`) is the case `serveStdio` documents as served "exactly as a hand-wired stdio server":
 * here the factory's legacy instance is connected straight to the SDK's `StdioServerTransport`. Every
 * other opening (`server/discover`, any 2026-07-28 request, a claim of any kind, claim-less traffic before
 * `initialize`) is handed to `serveStdio`, opening message included, and it decides as it always does.
 * @module
 */
import { isInitializeRequest, isJSONRPCRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import type { JSONRPCMessage, McpServer, Transport } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { guardStdin } from './stdio-guard.js';

/**
 * The wire after its opening message was read: whoever connects gets that message first, then the rest
 * in order. The wire is already reading, so `start` only delivers what arrived before the connect.
 * Exported for its unit test only.
 */
export class OpenedWire implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private held: JSONRPCMessage[] | undefined;

  constructor(
    private readonly wire: StdioServerTransport,
    first: JSONRPCMessage,
  ) {
    this.held = [first];
    wire.onmessage = (m) => (this.held ? this.held.push(m) : this.onmessage?.(m));
    wire.onclose = () => this.onclose?.();
    wire.onerror = (e) => this.onerror?.(e);
  }

  async start(): Promise<void> {
    const held = this.held ?? [];
    this.held = undefined;
    for (const m of held) this.onmessage?.(m);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.wire.send(message);
  }

  close(): Promise<void> {
    return this.wire.close();
  }
}

/** A plain 2025-era opening: an `initialize` request whose `_meta` makes no protocol-version claim. */
function legacyOpening(m: JSONRPCMessage): boolean {
  if (!isJSONRPCRequest(m) || !isInitializeRequest(m)) return false;
  const meta = (m.params as { _meta?: unknown } | undefined)?._meta;
  return !(meta && typeof meta === 'object' && PROTOCOL_VERSION_META_KEY in meta);
}

/**
 * Serves this process's stdin/stdout. `factory` builds the one instance of the connection for the era
 * its opening selects. `onerror` gets out-of-band errors (reporting only). Resolves `close` once the
 * instance (or, before one exists, the wire) is closed.
 */
export function serveStdioConnection(
  factory: (ctx: { era: 'legacy' | 'modern' }) => McpServer,
  onerror: (error: Error) => void,
): { close(): Promise<void> } {
  // Refused lines (not JSON, batches, not JSON-RPC, over the size or depth caps) are answered here
  // (./stdio-guard.ts); the SDK transport would drop them silently or close the connection.
  const wire: StdioServerTransport = new StdioServerTransport(
    guardStdin(process.stdin, (r) => void wire.send(r as never).catch(onerror)),
    process.stdout,
  );
  let close = () => wire.close();
  wire.onmessage = (first) => {
    const opened = new OpenedWire(wire, first);
    if (!legacyOpening(first)) {
      const h = serveStdio(factory, { transport: opened, onerror });
      close = () => h.close();
      return;
    }
    let mcp: McpServer;
    try {
      mcp = factory({ era: 'legacy' });
    } catch (e) {
      // As serveStdio answers a request its factory failed on.
      onerror(e as Error);
      const id = (first as { id: string | number }).id;
      void wire.send({ jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal server error' } }).catch(onerror);
      return;
    }
    close = () => mcp.close();
    mcp.connect(opened).catch(onerror);
  };
  wire.start().catch(onerror);
  return { close: () => close() };
}
