// A raw 2026-07-28 `tools/list` POST (per-request metadata in `_meta`, no session), for tests that check
// what an HTTP layer (authentication, forwarding proofs) answers before any SDK client is involved.

/** POSTs a 2026-07-28 `tools/list` to `url` with `headers` added (e.g. `authorization`). */
export function postModernToolsList(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
        },
      },
    }),
  });
}
