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

/** One stream's state. */
interface Stream {
  id: StreamId;
  /** The highest dropped seq: events up to it are gone. */
  dropped: number;
  /** When its last response was stored, else 0. */
  doneAt: number;
  /** When the HTTP response carrying it was written out in full, else 0. */
  deliveredAt: number;
  /** Ids of the requests answered on it. */
  answers?: unknown[];
  /** How many of its events this store holds. */
  held: number;
}

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
  private streams = new Map<StreamId, Stream>();
  /** The stream of each request answered on a stream this store still holds, for {@link delivered}. */
  private answered = new Map<unknown, Stream>();
  /** No stream's grace ends before this (`Date.now()` ms): until then `prune` need not look at the streams. */
  private nextExpiry = Infinity;
  /** Whether the client was given event ids (a priming event was stored: protocol 2025-11-25 or later). */
  resumable = false;
  /** When a stream of this session was last resumed (`Date.now()`), 0 before. */
  lastReplayAt = 0;
  /** Called with the id of each response stored (the request it answers is no longer in flight). */
  onAnswer?: (id: unknown) => void;

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
    let s = this.streams.get(streamId);
    if (!s) this.streams.set(streamId, (s = { id: streamId, dropped: 0, doneAt: 0, deliveredAt: 0, held: 0 }));
    if (isResponse(message)) {
      const id = (message as { id: unknown }).id;
      s.doneAt = Date.now();
      this.nextExpiry = Math.min(this.nextExpiry, s.doneAt + this.limits.graceMs);
      (s.answers ??= []).push(id);
      this.answered.set(id, s);
      this.onAnswer?.(id);
    }
    s.held++;
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
    for (const id of ids) {
      const s = this.answered.get(id);
      if (s) s.deliveredAt = now;
    }
    if (ids.length) this.nextExpiry = Math.min(this.nextExpiry, now + this.limits.deliveredGraceMs);
    this.prune(now);
  }

  /** Drops the streams complete (or delivered) for longer than their grace, then the oldest events over the caps. */
  prune(now = Date.now()): void {
    const { maxEvents, maxBytes, graceMs, deliveredGraceMs } = this.limits;
    let stale = false;
    if (now > this.nextExpiry) {
      this.nextExpiry = Infinity;
      for (const s of this.streams.values()) {
        const until = Math.min(s.doneAt ? s.doneAt + graceMs : Infinity, s.deliveredAt ? s.deliveredAt + deliveredGraceMs : Infinity);
        if (now > until) {
          this.forget(s);
          stale ||= s.held > 0;
        } else this.nextExpiry = Math.min(this.nextExpiry, until);
      }
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
      if (!s) continue;
      s.dropped = e.seq;
      // None of its events left: a Last-Event-ID on it can only be refused.
      if (--s.held === 0) this.forget(s);
    }
    if (cut) this.events.splice(0, cut);
  }

  private forget(s: Stream): void {
    this.streams.delete(s.id);
    for (const id of s.answers ?? []) if (this.answered.get(id) === s) this.answered.delete(id);
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
