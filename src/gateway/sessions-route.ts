/**
 * 2025-era sessions across replicas without balancer affinity (issue 13 items 4-5). Each replica mints
 * session ids that name it (`./sessions-id.ts`). A request whose `Mcp-Session-Id` names another replica
 * (POST of requests, notifications or the client's answers to pushed elicitation and roots requests; the
 * GET stream; DELETE) is sent on to that replica's loopback URL as the same HTTP request, and its answer
 * (JSON, or an SSE stream) is streamed back unchanged. The owner authenticates it as the original caller
 * from the shared-secret proof of `./forward.ts` (`x-parley-forward`); `x-parley-hop` stops a second hop.
 *
 * When the owner dies or hangs (`./sessions-watch.ts`: a refused connection, or `misses` unanswered
 * liveness probes, 12 s with the defaults), every request of a forwarded POST whose SSE stream had started
 * and has no answer yet gets a JSON-RPC error (-32603) naming the replica on that stream; a forwarded GET
 * stream ends; a request not answered at all yet (and any later one for that session) gets HTTP 404 with
 * a JSON-RPC error naming the replica, which SDK clients read as "the session is gone, initialize again"
 * (basic/transports §Session Management).
 * @module
 */
import { request } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createParser } from 'eventsource-parser';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { FORWARD_HEADER, forwardedIdentity, forwardProof, isLoopbackUrl } from './forward.js';
import { openSessionId, sealSessionId } from './sessions-id.js';
import { HOP_HEADER, OwnerWatch } from './sessions-watch.js';
import type { WatchOptions } from './sessions-watch.js';

export interface SessionRouterOptions {
  /** The replicas' shared secret (`PARLEY_SECRET`). */
  secret: string | Uint8Array;
  /** This replica's id. */
  replicaId: string;
  /** This replica's MCP URL, once it listens. */
  selfUrl: () => string | undefined;
  /** Liveness probing of owners. */
  watch?: WatchOptions;
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
}

/**
 * Request headers carried to the owner; everything else stays here. Not `authorization`: the owner
 * takes the caller (static or OAuth user, with tenant) from the proof, so the bearer token stays here.
 */
const REQUEST_HEADERS = ['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'];
/** Response headers carried back. */
const RESPONSE_HEADERS = ['content-type', 'cache-control', 'mcp-session-id', 'mcp-protocol-version', 'allow'];

type Id = string | number;

/** Ids of the JSON-RPC requests in a POST body (responses and notifications have none to answer). */
function requestIds(body: unknown): Id[] {
  return (Array.isArray(body) ? body : [body])
    .filter((m): m is { id: Id; method: string } => !!m && typeof m === 'object' && 'method' in m && 'id' in m)
    .map((m) => m.id);
}

/** Routes other replicas' sessions to their owners (see the module comment). */
export class SessionRouter {
  readonly watch: OwnerWatch;

  constructor(private readonly o: SessionRouterOptions) {
    this.watch = new OwnerWatch(o.watch);
  }

  /** A new session id owned by this replica (a plain UUID until it listens). */
  newId(): string {
    const url = this.o.selfUrl();
    return url ? sealSessionId(this.o.secret, { replica: this.o.replicaId, url }) : crypto.randomUUID();
  }

  /**
   * Handles a request for a session this replica does not hold, when the id names another replica.
   * `identity` is who the request authenticated as here ('' without users).
   * @returns false when the id is not another replica's (the caller answers its usual 404)
   */
  async route(sid: string, req: IncomingMessage, res: ServerResponse, body: unknown, identity: string): Promise<boolean> {
    const owner = openSessionId(this.o.secret, sid);
    if (!owner || owner.replica === this.o.replicaId || req.headers[HOP_HEADER] !== undefined) return false;
    if (owner.url === this.o.selfUrl()) {
      gone(
        res,
        `MCP session "${sid}" belonged to replica ${owner.replica}, which has since restarted at this address as ${this.o.replicaId}; sessions do not survive a restart: initialize again`,
      );
      return true;
    }
    if (!isLoopbackUrl(owner.url)) return false;
    await this.forward(owner, sid, req, res, body, identity);
    return true;
  }

  close(): void {
    this.watch.close();
  }

  private forward(
    owner: { replica: string; url: string },
    sid: string,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    identity: string,
  ): Promise<void> {
    const ids = requestIds(body);
    const answered = new Set<Id>();
    const headers: Record<string, string> = { [HOP_HEADER]: '1' };
    for (const h of REQUEST_HEADERS) if (typeof req.headers[h] === 'string') headers[h] = req.headers[h] as string;
    // The caller as authenticated here (user and tenant too, for an OAuth user), vouched for to the owner.
    const auth = (req as IncomingMessage & { auth?: AuthInfo }).auth;
    if (identity) headers[FORWARD_HEADER] = forwardProof(this.o.secret, forwardedIdentity(auth, identity), owner.url);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
    if (payload) headers['content-length'] = String(payload.length);
    const u = new URL(owner.url);
    const lost = (why: string) =>
      `parley: replica ${owner.replica} (${owner.url}), which holds MCP session "${sid}", ${why}; the session's open calls are lost: initialize a new session and call again`;

    return new Promise<void>((resolve) => {
      let done = false;
      let sse = false;
      const end = (why?: string) => {
        if (done) return;
        done = true;
        unwatch();
        if (why) fail(lost(why));
        else if (!res.writableEnded) res.end();
        resolve();
      };
      const fail = (message: string) => {
        const open = ids.filter((id) => !answered.has(id));
        const errors = open.map((id) => ({ jsonrpc: '2.0', id, error: { code: -32603, message } }));
        this.o.log?.('warn', message);
        // Nothing answered yet: the session is gone (HTTP 404, basic/transports §Session Management).
        if (!res.headersSent) return gone(res, message);
        if (sse && !res.writableEnded) for (const e of errors) res.write(`event: message\ndata: ${JSON.stringify(e)}\n\n`);
        res.end();
      };
      const up = request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: req.method, headers });
      // SSE messages are small and interactive: no Nagle delay on either leg.
      up.setNoDelay(true);
      res.socket?.setNoDelay(true);
      const unwatch = this.watch.watch(owner.url, (why) => {
        up.destroy();
        end(why);
      });
      const parser = createParser({
        onEvent: (e) => {
          try {
            const msgs = JSON.parse(e.data) as unknown;
            for (const m of Array.isArray(msgs) ? msgs : [msgs])
              if (m && typeof m === 'object' && 'id' in m && ('result' in m || 'error' in m)) answered.add((m as { id: Id }).id);
          } catch {
            // not JSON-RPC: passed on as it is
          }
        },
      });
      up.on('response', (ur) => {
        const out: Record<string, string> = {};
        for (const h of RESPONSE_HEADERS) if (typeof ur.headers[h] === 'string') out[h] = ur.headers[h] as string;
        sse = /^text\/event-stream/i.test(ur.headers['content-type'] ?? '');
        res.writeHead(ur.statusCode ?? 502, out);
        res.flushHeaders();
        ur.on('data', (c: Buffer) => {
          if (sse && ids.length) parser.feed(c.toString('utf8'));
          res.write(c);
        });
        ur.on('close', () => {
          if (ur.complete && (!sse || ids.every((id) => answered.has(id)))) return end();
          end(ur.complete ? 'closed the stream without answering' : 'broke the connection mid-answer (the process died)');
        });
      });
      up.on('error', (e) => end(`cannot be reached (${(e as NodeJS.ErrnoException).code ?? e.message})`));
      res.on('close', () => {
        // The client went away: the owner sees its request end too (and cancels what it had started).
        if (done) return;
        done = true;
        unwatch();
        up.destroy();
        resolve();
      });
      up.end(payload);
    });
  }
}

/** HTTP 404 with a JSON-RPC error body: the session is gone (SDK clients initialize again). */
function gone(res: ServerResponse, message: string): void {
  if (res.headersSent) return void res.end();
  res
    .writeHead(404, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message } }));
}
