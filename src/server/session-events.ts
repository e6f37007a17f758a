/**
 * The SSE events of one 2025-era HTTP session, kept in memory on the process that holds the session so a
 * client whose stream broke (a forwarding replica died, a proxy dropped the connection) can resume it: a
 * GET with `Last-Event-ID` replays what it missed (basic/transports §Resumability and Redelivery,
 * 2025-06-18 and 2025-11-25). The SDK's transport assigns the events to streams and calls this store; the
 * SDK sends event ids (and the priming event) only to clients of 2025-11-25 or later.
 *
 * Bounded per session: at most {@link SessionEventLimits.maxEvents} events and
 * {@link SessionEventLimits.maxBytes} bytes (JSON, UTF-8), the oldest dropped first; a stream's events are
 * dropped {@link SessionEventLimits.deliveredGraceMs} ms after the HTTP response carrying them was written
 * out in full, else {@link SessionEventLimits.graceMs} ms after its last response was stored. Dropping is
 * lazy: on the session's next event, and on `serve()`'s idle sweep. A `Last-Event-ID` this store no longer holds (dropped, or never issued) is refused
 * (HTTP 400 from the SDK), never answered with a stream that silently misses events.
 * @module
 */
import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

/** Bounds of one session's event store. */
export interface SessionEventLimits {
  /** Most events kept per session. @default 256 */
  maxEvents?: number;
  /** Most bytes (JSON, UTF-8) kept per session. @default 1048576 (1 MiB) */
  maxBytes?: number;
  /**
   * How long a stream's events stay after its last response was stored, ms, while that response was not
   * seen written out in full (its connection dropped: the client may resume). @default 30000
   */
  graceMs?: number;
  /**
   * How long they stay once the HTTP response that carried the stream was written out in full
   * ({@link SessionEvents.delivered}), ms: the hop after it (a forwarding replica) may still die. @default 2000
   */
  deliveredGraceMs?: number;
  /**
   * How long the session's server waits for a resume (a GET with `Last-Event-ID` on any stream of the
   * session) after a resumable client's POST stream dropped, before it cancels that POST's requests as
   * abandoned, ms. The SDK clients reconnect 1 s after a break, then 1.5 s later. @default 5000
   */
  resumeWaitMs?: number;
}

export const DEFAULT_SESSION_EVENT_LIMITS: Required<SessionEventLimits> = {
  maxEvents: 256,
  maxBytes: 1_048_576,
  graceMs: 30_000,
  deliveredGraceMs: 2_000,
  resumeWaitMs: 5_000,
};

/** One event; the message is kept as its JSON text (a flat string is far smaller than the object graph). */
interface Ev {
  seq: number;
  stream: StreamId;
  /** JSON of the message; undefined for the SDK's priming event. */
  json: string | undefined;
  bytes: number;
}

const isResponse = (m: JSONRPCMessage) => 'id' in m && ('result' in m || 'error' in m);

/** One session's events (see the module comment). Event ids are `<seq>.<streamId>`. */
export class SessionEvents implements EventStore {
  private events: Ev[] = [];
  private bytes = 0;
  private seq = 0;
  /** Per stream: the highest dropped seq (events up to it are gone) and when its last response was stored. */
  private streams = new Map<StreamId, { dropped: number; doneAt: number; deliveredAt: number; answers?: unknown[] }>();
  /** Whether the client was given event ids (a priming event was stored: protocol 2025-11-25 or later). */
  resumable = false;
  /** When a stream of this session was last resumed (`Date.now()`), 0 before. */
  lastReplayAt = 0;

  private readonly limits: Required<SessionEventLimits>;

  /** @param limits merged over {@link DEFAULT_SESSION_EVENT_LIMITS} */
  constructor(limits?: SessionEventLimits) {
    this.limits = limits ? { ...DEFAULT_SESSION_EVENT_LIMITS, ...limits } : DEFAULT_SESSION_EVENT_LIMITS;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const seq = ++this.seq;
    const empty = !('jsonrpc' in message);
    if (empty) this.resumable = true; // the SDK's priming event is `{}`
    const json = empty ? undefined : JSON.stringify(message);
    const bytes = json === undefined ? 0 : Buffer.byteLength(json, 'utf8');
    const s = this.streams.get(streamId) ?? { dropped: 0, doneAt: 0, deliveredAt: 0 };
    this.streams.set(streamId, s);
    if (isResponse(message)) {
      s.doneAt = Date.now();
      (s.answers ??= []).push((message as { id: unknown }).id);
    }
    this.events.push({ seq, stream: streamId, json, bytes });
    this.bytes += bytes;
    this.prune();
    return `${seq}.${streamId}`;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.find(eventId)?.stream;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const at = this.find(lastEventId);
    if (!at) throw new Error(`unknown or expired Last-Event-ID "${lastEventId.slice(0, 100)}"`);
    this.lastReplayAt = Date.now();
    for (const e of this.events.slice())
      if (e.stream === at.stream && e.seq > at.seq && e.json !== undefined)
        await send(`${e.seq}.${e.stream}`, JSON.parse(e.json) as JSONRPCMessage);
    return at.stream;
  }

  /**
   * Says that the HTTP response answering the requests `ids` was written out in full: their streams' events
   * go after `deliveredGraceMs`.
   */
  delivered(ids: readonly unknown[], now = Date.now()): void {
    for (const s of this.streams.values()) if (s.answers?.some((a) => ids.includes(a))) s.deliveredAt = now;
    this.prune(now);
  }

  /** Drops the streams complete (or delivered) for longer than their grace, then the oldest events over the caps. */
  prune(now = Date.now()): void {
    const { maxEvents, maxBytes, graceMs, deliveredGraceMs } = this.limits;
    let stale = false;
    for (const [id, s] of this.streams)
      if ((s.doneAt && now - s.doneAt > graceMs) || (s.deliveredAt && now - s.deliveredAt > deliveredGraceMs)) {
        this.streams.delete(id);
        stale = true;
      }
    if (stale) {
      this.events = this.events.filter((e) => this.streams.has(e.stream));
      this.bytes = this.events.reduce((n, e) => n + e.bytes, 0);
    }
    let cut = 0;
    while (cut < this.events.length && (this.events.length - cut > maxEvents || this.bytes > maxBytes)) {
      const e = this.events[cut++];
      this.bytes -= e.bytes;
      const s = this.streams.get(e.stream);
      if (s) s.dropped = e.seq;
    }
    if (cut) this.events.splice(0, cut);
    for (const [id, s] of this.streams) if (s.dropped && !this.events.some((e) => e.stream === id)) this.streams.delete(id);
  }

  /** The position `eventId` names, when this store still holds everything after it on its stream. */
  private find(eventId: EventId): { seq: number; stream: StreamId } | undefined {
    const m = /^(\d{1,15})\.(.{1,200})$/.exec(eventId);
    if (!m) return undefined;
    const seq = Number(m[1]);
    const s = this.streams.get(m[2]);
    if (!s || seq > this.seq || seq < s.dropped) return undefined;
    return { seq, stream: m[2] };
  }
}
