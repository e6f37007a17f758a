/**
 * Session configuration negotiation: a named zod schema the toolkit completes by elicitation, asking
 * only for the fields still missing, at most once per scope while the cache entry is fresh.
 * @module
 */
import { LRUCache } from 'lru-cache';
import type * as z from 'zod/v4';

/** A configuration definition (see `defineConfig`). */
export interface ConfigDef<S extends z.ZodObject = z.ZodObject> {
  /** Unique name; part of the cache key. */
  name: string;
  /** Flat zod object of primitives (the elicitation schema subset). */
  schema: S;
  /**
   * `'user'`: shared by every connection of the authenticated user (falls back to the connection when
   * no user is known). `'session'`: one connection/session (and user). On 2026-07-28 HTTP without an
   * authenticated user there is neither, and the configuration lives for one tool call (docs/server.md).
   */
  scope: 'session' | 'user';
  /** How long a completed configuration stays fresh, in ms (> 0; `Infinity`: until evicted). @default 3_600_000 (1 h) */
  ttlMs: number;
  /** Values used without asking. */
  defaults: Partial<z.infer<S>>;
  /** Message shown when asking. @default `Configure ${name}` */
  message?: string;
}

/**
 * Declares a configuration. `ctx.config(def)` returns it complete (vector: session layer).
 * @throws TypeError for an empty `name`; RangeError for a `scope` other than 'session'/'user' or a
 *   `ttlMs` that is not a number above 0 (`Infinity` keeps it until evicted).
 * @example defineConfig({ name: 'db', schema: z.object({ host: z.string() }), scope: 'user', ttlMs: 600_000 })
 */
export function defineConfig<S extends z.ZodObject>(d: {
  name: string;
  schema: S;
  scope?: 'session' | 'user';
  ttlMs?: number;
  defaults?: Partial<z.infer<S>>;
  message?: string;
}): ConfigDef<S> {
  if (typeof d.name !== 'string' || d.name === '') throw new TypeError('defineConfig: name must be a non-empty string');
  if (d.scope !== undefined && d.scope !== 'session' && d.scope !== 'user')
    throw new RangeError(`defineConfig "${d.name}": scope must be 'session' or 'user'; got ${JSON.stringify(d.scope)}`);
  if (d.ttlMs !== undefined && !(typeof d.ttlMs === 'number' && d.ttlMs > 0 && !Number.isNaN(d.ttlMs)))
    throw new RangeError(
      `defineConfig "${d.name}": ttlMs must be a number of milliseconds above 0 (Infinity: until evicted); got ${typeof d.ttlMs === 'string' ? JSON.stringify(d.ttlMs) : String(d.ttlMs)}`,
    );
  return {
    name: d.name,
    schema: d.schema,
    scope: d.scope ?? 'session',
    ttlMs: d.ttlMs ?? 3_600_000,
    defaults: d.defaults ?? {},
    message: d.message,
  };
}

/** One cached (possibly partial) configuration. */
interface Entry {
  values: Record<string, unknown>;
  expiresAt: number;
}

/** Most configuration entries one server process keeps (per definition and user or session); beyond it the least recently used is dropped and asked again. */
export const CONFIG_CACHE_MAX = 10_000;

/**
 * In-memory configuration cache with an injectable clock (epoch ms): each entry expires `ttlMs` after
 * it was set; at most `max` entries, the least recently used dropped first (lru-cache). Keys never
 * include secrets.
 */
export class ConfigCache {
  private readonly map: LRUCache<string, Entry>;
  /** @param max entries kept @default CONFIG_CACHE_MAX */
  constructor(
    private readonly now: () => number,
    max: number = CONFIG_CACHE_MAX,
  ) {
    this.map = new LRUCache<string, Entry>({ max });
  }
  /** The values under `key`, unless absent or expired. */
  get(key: string): Record<string, unknown> | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.map.delete(key);
      return undefined;
    }
    return e.values;
  }
  /** Keeps `values` under `key` for `ttlMs` ms (`Infinity`: until evicted). */
  set(key: string, values: Record<string, unknown>, ttlMs: number): void {
    this.map.set(key, { values, expiresAt: this.now() + ttlMs });
  }
  delete(key: string): void {
    this.map.delete(key);
  }
  /** Entries held (expired ones count until read or evicted). */
  get size(): number {
    return this.map.size;
  }
}

/** Cache key of a definition for a user/session: the user where known, else the session. */
export function configKey(def: ConfigDef, user: string, session: string): string {
  if (def.scope === 'user' && user) return `${def.name}\0u:${user}`;
  return `${def.name}\0s:${session}\0u:${user}`;
}

/** Names of required schema fields absent from `values`. */
export function missingFields(def: ConfigDef, values: Record<string, unknown>): string[] {
  return Object.entries(def.schema.shape)
    .filter(([k, f]) => values[k] === undefined && !(f as z.ZodType).safeParse(undefined).success)
    .map(([k]) => k);
}
