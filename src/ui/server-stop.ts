/**
 * A crash of the asking server, said once. When a server's connection closes (it exited, or parley
 * stopped it) while requests of it wait for the person, the SDK aborts each request with a
 * `CONNECTION_CLOSED` error, and the broker then reports each as withdrawn by the server — which it was
 * not. The presenters (web console, terminal) use {@link ServerStops} instead: the prompts closed by
 * one stop become one notice, "*server* stopped while asking: "…", "…"", and the broker's per-request
 * "withdrew its request" notices of those prompts are dropped.
 * @module
 */
import type { PresenterNotice } from '../host/presenter.js';

/** True when `reason` (an abort reason) is the SDK's "connection closed" error (`SdkErrorCode.ConnectionClosed`). */
export function isConnectionClosed(reason: unknown): boolean {
  return typeof reason === 'object' && reason !== null && String((reason as { code?: unknown }).code) === 'CONNECTION_CLOSED';
}

/** Ids of prompts closed by a stop whose broker notice has not come yet; the oldest are dropped past this. */
const MAX_IDS = 256;

/** Groups the prompts one server stop closed into one notice. */
export class ServerStops {
  private readonly batch = new Map<string, string[]>();
  private readonly ids = new Set<string>();

  /** @param say receives the one notice per stop (kind `server-stopped`). */
  constructor(private readonly say: (notice: PresenterNotice) => void) {}

  /**
   * A prompt was closed because its server stopped. Prompts closed in the same turn of the event loop
   * (the SDK aborts every open request of a connection at once) are said together.
   */
  closed(server: string, id: string, message: string): void {
    this.ids.add(id);
    if (this.ids.size > MAX_IDS) this.ids.delete(this.ids.values().next().value as string);
    const list = this.batch.get(server);
    if (list) return void list.push(message);
    this.batch.set(server, [message]);
    setImmediate(() => {
      const messages = this.batch.get(server) ?? [];
      this.batch.delete(server);
      this.say({
        kind: 'server-stopped',
        server,
        message: `${server} stopped while asking: ${messages.map((m) => `"${m}"`).join(', ')} (${messages.length === 1 ? 'closed unanswered; the tool call that asked failed' : `${messages.length} requests closed unanswered; the tool calls that asked failed`}).`,
      });
    });
  }

  /** True for the broker's "withdrew its request" notice of a prompt closed by a stop (said already): drop it. */
  swallow(n: PresenterNotice): boolean {
    return n.kind === 'cancelled-by-server' && n.requestId !== undefined && this.ids.delete(n.requestId);
  }
}
