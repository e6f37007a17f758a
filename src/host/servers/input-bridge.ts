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
import { attributeCall } from './calls.js';
import type { List, ListNode } from '../list.js';
import { whenSettled } from '../settle.js';
import type { Screen } from './screen.js';
import type { StartupRoots } from './startup-roots.js';

/**
 * One broker call in flight. It owns the signal the broker and presenter see: the SDK's own request
 * signal cannot serve, because the SDK sends no response at all once that signal is aborted, and the
 * broker's answer timeout must still answer `cancel`. Whoever aborts it (the Connection on
 * `notifications/cancelled` or close, the broker's timeout, the modern-era forward below) goes through
 * {@link Pending.abort}, which then calls the one callback the broker registered with `onAbort`: no
 * EventTarget listener per request (on Node 20 each add/remove pair costs microseconds).
 */
export class Pending {
  readonly ctl = new AbortController();
  #onAbort: (() => void) | undefined;
  /** Its place in the connection's list of broker calls in flight (set by the bridge). */
  place: ListNode<Pending> | undefined;

  /** @param id JSON-RPC id of the server's request on legacy eras (what `notifications/cancelled` names). */
  constructor(readonly id?: string | number) {}

  /** Aborts the signal with `reason` (first call wins), then runs the registered callback once. */
  abort(reason?: unknown): void {
    if (this.ctl.signal.aborted) return;
    this.ctl.abort(reason);
    const fn = this.#onAbort;
    this.#onAbort = undefined;
    fn?.();
  }

  /** Sets (or, with `undefined`, clears) the callback run right after the signal aborts. */
  onAbort(fn: (() => void) | undefined): void {
    this.#onAbort = fn;
  }
}

/**
 * Registers the handlers on `client`. Every broker call in flight is in `pending` (the Connection
 * aborts them on `notifications/cancelled` by `Pending.id`, and all of them on close).
 */
export function wireHandlers(
  client: Client,
  o: ConnectOptions,
  pending: List<Pending>,
  holder: { era: Era; revision: string; screen?: Screen; startup?: StartupRoots },
): void {
  const run = <T>(id: string | number, sdkSignal: AbortSignal, fn: (ctx: InputContext) => Promise<T>): Promise<T> => {
    const legacy = holder.era === 'legacy';
    const p = new Pending(legacy ? id : undefined);
    p.place = pending.add(p);
    // On legacy eras the SDK aborts its request signal only for `notifications/cancelled` and for
    // close, and the Connection aborts `p` itself for both (a cancel read in the same chunk as its
    // request, before this handler ran, is retried by the Connection once the handler has run). The
    // modern era's signal also aborts with its MRTR round, so it is forwarded there.
    // Whatever the era, a signal the SDK aborted before this handler ran (e.g. the connection closed
    // in between) is passed on at once: one property read.
    let forward: (() => void) | undefined;
    if (sdkSignal.aborted) p.abort(sdkSignal.reason);
    else if (!legacy) sdkSignal.addEventListener('abort', (forward = () => p.abort(sdkSignal.reason)));
    const done = () => {
      if (forward) sdkSignal.removeEventListener('abort', forward);
      pending.remove(p.place!);
    };
    const call = attributeCall(client);
    const ctx: InputContext = {
      server: o.name,
      era: holder.era,
      revision: holder.revision,
      signal: p.ctl.signal,
      abort: (reason) => p.abort(reason),
      onAbort: (cb) => p.onAbort(cb),
      fromWire: true,
    };
    if (legacy) ctx.requestId = id;
    if (call) ctx.call = call;
    return whenSettled(() => fn(ctx), done);
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
