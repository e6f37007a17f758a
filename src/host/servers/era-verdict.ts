/**
 * Era verdicts per server definition (issue 4: "dual-era negotiation with the verdict cached per
 * server"; 2026-07-28 `versioning.mdx` §Backward Compatibility allows caching the verdict).
 *
 * On stdio the era is found on the session's own child (`stdio-transport.ts`; no sibling process):
 * `server/discover` in place, then `initialize` on the same pipe when the answer is not modern. What a
 * verdict saves there: a legacy verdict → `connect({prior: {kind: 'legacy'}})`, plain `initialize`
 * without the probe round trip, and a server that exits on the probe is not started twice; a modern
 * verdict changes nothing on the wire (the probe is the modern handshake) but is still re-checked.
 * Over Streamable HTTP a legacy verdict saves the `server/discover` round trip. If the direct connect
 * with a legacy verdict fails (e.g. the server now rejects `initialize`), the era is probed once and
 * the verdict is replaced.
 *
 * Freshness: a modern verdict is re-checked at each start and needs no expiry. A legacy verdict is
 * never re-checked (an upgraded server still answers `initialize`), so it is used for
 * {@link LEGACY_VERDICT_TTL_MS} after the probe that produced it, then probed again. A legacy outcome
 * reached only because the probe timed out (a slow start, e.g. `npx` installing, looks legacy) is not
 * cached, and drops any cached verdict.
 * `ServerManager.stop(name)` forgets the verdict (the next start re-detects the era); `stopAll()` keeps it.
 * @module
 */
import { createHash } from 'node:crypto';
import type { ServerDef } from '../config/types.js';
import { memoryEraVerdicts } from '../store/era-verdicts.js';
import type { EraVerdict, EraVerdictStore } from '../store/types.js';
import type { Era } from './connection.js';

/** How long a legacy verdict is trusted without a new probe, ms. @default 7 days */
export const LEGACY_VERDICT_TTL_MS = 7 * 24 * 3600 * 1000;

/**
 * Process-wide in-memory verdicts, used by every `ServerManager` created without a store that keeps
 * them (several hosts in one process share them; at most 1000 entries).
 */
export const processEraVerdicts: EraVerdictStore = memoryEraVerdicts();

const sorted = (o: Record<string, string> | undefined) => Object.entries(o ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * The cache key of a server's *effective* definition (after `${input:…}` values are resolved):
 * `'v1:'` + sha256 hex over type, command, args, cwd (the host's working directory when absent, since
 * relative paths resolve against it), the definition's own env (`envFileVars` then `env`; the inherited
 * environment is left out), url and headers. Env and header values enter only the hash.
 * The name and timeouts are not part of it: two names for the same program share a verdict.
 */
export function eraVerdictKey(def: ServerDef, cwd: string = process.cwd()): string {
  const canonical =
    def.type === 'stdio'
      ? { type: 'stdio', command: def.command, args: def.args, cwd: def.cwd ?? cwd, env: sorted({ ...def.envFileVars, ...def.env }) }
      : { type: def.type, url: def.url, headers: sorted(def.headers) };
  return `v1:${createHash('sha256').update(JSON.stringify(canonical)).digest('hex')}`;
}

/** The era to connect with, or `undefined` to probe (no verdict, or a legacy verdict past `legacyTtlMs`). */
export function usableVerdict(v: EraVerdict | undefined, now: number, legacyTtlMs: number = LEGACY_VERDICT_TTL_MS): Era | undefined {
  if (!v) return undefined;
  if (v.era === 'legacy' && now - v.verifiedAt > legacyTtlMs) return undefined;
  return v.era;
}

/** How a connection's era was reached. */
export type Negotiation =
  /** No usable verdict: the era was probed (on stdio, in place on the session's child). */
  | 'probed'
  /** The verdict was used and held. */
  | 'verdict'
  /** The verdict was stale: the in-place probe found the other era, or the direct connect failed and the probe ran. */
  | 'corrected';

/** `ServerManager` event `era`: emitted once per successful start. */
export interface EraEvent {
  server: string;
  era: Era;
  revision: string;
  negotiation: Negotiation;
  /** The verdict's key ({@link eraVerdictKey}). */
  defHash: string;
}

type Log = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;

/**
 * The server runtime's view of the verdict store: lookups by definition, writes after probes, and
 * store failures logged (`warn`) and treated as "no verdict" so a start never fails because of them.
 */
export class VerdictCache {
  readonly #store: EraVerdictStore;
  constructor(
    store: Partial<EraVerdictStore> | undefined,
    private readonly log: Log,
    private readonly now: () => number,
    private readonly legacyTtlMs: number = LEGACY_VERDICT_TTL_MS,
  ) {
    this.#store = store?.getEraVerdict && store.putEraVerdict && store.deleteEraVerdict ? (store as EraVerdictStore) : processEraVerdicts;
  }

  /** The key of `def` and the era to connect with (`undefined` = probe). */
  async lookup(def: ServerDef): Promise<{ defHash: string; verdict: Era | undefined }> {
    const defHash = eraVerdictKey(def);
    return {
      defHash,
      verdict: usableVerdict(await this.#try('read', () => this.#store.getEraVerdict(defHash)), this.now(), this.legacyTtlMs),
    };
  }

  /**
   * Saves the outcome of a start, unless it just confirmed the cached verdict (a legacy TTL counts from
   * its probe) or is a legacy verdict reached by probe timeout (`eraUncertain`: a slow start looks legacy).
   * Never rejects (a store failure is logged).
   */
  async record(defHash: string, c: { era: Era; revision: string; negotiation: Negotiation; eraUncertain?: boolean }): Promise<void> {
    if (c.negotiation === 'verdict') return;
    if (c.eraUncertain) {
      this.log('info', 'era verdict not cached (and any cached one dropped): legacy only because the server/discover probe timed out');
      return this.forget(defHash);
    }
    await this.#try('save', () => this.#store.putEraVerdict({ defHash, era: c.era, revision: c.revision, verifiedAt: this.now() }));
  }

  /** Drops the verdict of `defHash`. Never rejects (a store failure is logged). */
  async forget(defHash: string): Promise<void> {
    await this.#try('forget', () => this.#store.deleteEraVerdict(defHash));
  }

  async #try<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (err) {
      this.log('warn', `era verdict ${what} failed: ${String(err)}`);
      return undefined;
    }
  }
}
