/**
 * Registers the client-side request handlers that hand server→client input requests to the broker
 * ({@link InputHandlers}): `elicitation/create` (clocks paused while it runs), `roots/list` (file://
 * only), and `notifications/elicitation/complete`. Each broker call is tracked so it can be aborted.
 * @module
 */
import { ProtocolError } from '@modelcontextprotocol/client';
import type { Client, CreateMessageResult, ElicitRequestParams, ElicitResult } from '@modelcontextprotocol/client';
import type { ConnectOptions, Era } from './connect-options.js';
import type { InputContext } from './handlers.js';
import { attributeCall, type StreamCalls } from './calls.js';
import type { Screen } from './screen.js';
import type { StartupRoots } from './startup-roots.js';

/**
 * One broker call in flight, as the Connection sees it: aborted on `notifications/cancelled` for its
 * JSON-RPC `id` (legacy eras), on close, and when the tool call that caused it ends.
 */
export class Pending {
  readonly ctl = new AbortController();
  /** @param id JSON-RPC id of the server's request on legacy eras (what `notifications/cancelled` names). */
  constructor(readonly id?: string | number) {}
  abort(reason?: unknown): void {
    this.ctl.abort(reason);
  }
}

/**
 * Registers the handlers on `client`. Every broker call in flight is in `pending` until it settles.
 * The broker's `signal` is the call's own {@link Pending} signal, aborted by the Connection
 * (`notifications/cancelled` for its id and the connection closing: everything that ends a request on
 * the 2025 eras) and, on 2026-07-28, by the SDK's request signal (the MRTR round ending), with the
 * reason of whichever came first. A request whose SDK signal is already aborted arrives aborted.
 */
export function wireHandlers(
  client: Client,
  o: ConnectOptions,
  pending: Set<Pending>,
  holder: { era: Era; revision: string; screen?: Screen; startup?: StartupRoots; streams?: StreamCalls },
): void {
  if (holder.streams) holder.streams.connection = client;
  const run = async <T>(id: string | number, sdkSignal: AbortSignal, fn: (ctx: InputContext) => Promise<T>): Promise<T> => {
    const legacy = holder.era === 'legacy';
    const p = new Pending(legacy ? id : undefined);
    pending.add(p);
    // One signal per request, not AbortSignal.any (~17 µs and a weak reference per request on Node 20).
    const onSdkAbort = () => p.abort(sdkSignal.reason);
    if (sdkSignal.aborted) onSdkAbort();
    else if (!legacy) sdkSignal.addEventListener('abort', onSdkAbort, { once: true });
    const ctx: InputContext = { server: o.name, era: holder.era, revision: holder.revision, signal: p.ctl.signal };
    if (legacy) ctx.requestId = id;
    const call = attributeCall(client, holder.streams, id);
    if (call) ctx.call = call;
    try {
      return await fn(ctx);
    } finally {
      sdkSignal.removeEventListener('abort', onSdkAbort);
      pending.delete(p);
    }
  };
  client.setRequestHandler('elicitation/create', (req, ctx) => {
    // The server's own params when the screen kept them (2025 eras: the Client validated a placeholder).
    const kept = holder.screen?.take(ctx.mcpReq.id);
    const params = (kept?.found ? kept.params : req.params) as ElicitRequestParams;
    return run(ctx.mcpReq.id, ctx.mcpReq.signal, (ictx) => o.pause.during(() => o.handlers.elicit(params, ictx) as Promise<ElicitResult>));
    // (the SDK checks the result shape: content values must be string | number | boolean | string[])
  });
  // Sampling: only when the broker answers it (the capability is declared then, connection.ts). A
  // declined or cancelled request is a JSON-RPC error, code -1 as in the spec's "User rejected sampling
  // request" example: sampling has no decline result.
  const sample = o.handlers.sample?.bind(o.handlers);
  if (sample) {
    client.setRequestHandler('sampling/createMessage', (req, ctx) =>
      run(ctx.mcpReq.id, ctx.mcpReq.signal, async (ictx) => {
        const a = await o.pause.during(() => sample(req.params, ictx));
        if (a.action === 'accept') return a.result as unknown as CreateMessageResult;
        throw new ProtocolError(
          -1,
          a.action === 'decline' ? `User rejected sampling request: ${a.reason}` : `Sampling request cancelled: ${a.reason}`,
        );
      }),
    );
  }
  client.setRequestHandler('roots/list', (_req, ctx) => {
    const answer = run(ctx.mcpReq.id, ctx.mcpReq.signal, async (ictx) => fileRootsOnly(await o.handlers.listRoots(ictx), o.name, o.log));
    holder.startup?.track(answer); // a roots/list while the server starts is waited for (startup-roots.ts)
    return answer;
  });
  client.setNotificationHandler('notifications/elicitation/complete', (n) => {
    o.handlers.elicitationComplete?.(o.name, n.params.elicitationId);
  });
}

/**
 * Only `file://` roots go on the wire (`protocol.md` §3.1); one bad entry makes SDK v1 servers reject
 * the whole list (`sdk.md` §3 #12), so any other entry is dropped here and logged, whatever the broker sent.
 */
export function fileRootsOnly(
  res: { roots: Array<{ uri: string; name?: string }> },
  server: string,
  log: ConnectOptions['log'],
): { roots: Array<{ uri: string; name?: string }> } {
  const given: Array<{ uri: string; name?: string }> = Array.isArray(res?.roots) ? res.roots : [];
  const roots = given.filter((r) => typeof r?.uri === 'string' && r.uri.startsWith('file://'));
  if (roots.length !== given.length)
    log?.('warn', `roots/list for "${server}": dropped ${given.length - roots.length} non-file:// root(s); only file:// roots may be sent`);
  return { roots: roots.map((r) => (r.name !== undefined ? { uri: r.uri, name: r.name } : { uri: r.uri })) };
}
