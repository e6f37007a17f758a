/**
 * Cached protocol-era verdicts (table `era_verdicts`, schema version 3), and the in-memory
 * {@link EraVerdictStore} used when there is no SQLite store.
 *
 * Rows are global, not keyed by tenant/user/session: a verdict says which era a server *program*
 * speaks (same command, args, cwd, env, url, headers ⇒ same hash), not anything about a person.
 * The key is a hash, so env values and header values never reach the file.
 * @module
 */
import type Database from 'better-sqlite3';
import type { EraVerdict, EraVerdictStore } from './types.js';
import { requireText } from './scope.js';

export interface VerdictRow {
  def_hash: string;
  era: 'legacy' | 'modern';
  revision: string | null;
  verified_at: number | string;
}

const ERAS = new Set(['legacy', 'modern']);

/** Checks a verdict; returns its SQL parameters. @throws TypeError naming the field. */
export function verdictParams(v: EraVerdict, where: string) {
  if (typeof v !== 'object' || v === null) throw new TypeError(`${where}: verdict must be an object {defHash, era, verifiedAt}`);
  requireText(v.defHash, 'defHash', where);
  if (!ERAS.has(v.era)) throw new TypeError(`${where}: era must be 'legacy' or 'modern'`);
  if (v.revision !== undefined && typeof v.revision !== 'string') throw new TypeError(`${where}: revision must be a string when present`);
  if (!Number.isFinite(v.verifiedAt)) throw new TypeError(`${where}: verifiedAt must be epoch ms`);
  return { defHash: v.defHash, era: v.era, revision: v.revision ?? null, verifiedAt: Math.trunc(v.verifiedAt) };
}

export const verdictFromRow = (r: VerdictRow): EraVerdict => ({
  defHash: r.def_hash,
  era: r.era,
  ...(r.revision !== null ? { revision: r.revision } : {}),
  verifiedAt: Number(r.verified_at),
});

/** Statements of the era_verdicts table, prepared once per store. */
export function eraVerdictsTable(db: Database.Database) {
  const get = db.prepare('SELECT * FROM era_verdicts WHERE def_hash = ?');
  const put = db.prepare(
    `INSERT INTO era_verdicts (def_hash, era, revision, verified_at) VALUES (@defHash, @era, @revision, @verifiedAt)
     ON CONFLICT (def_hash) DO UPDATE SET era = excluded.era, revision = excluded.revision, verified_at = excluded.verified_at`,
  );
  const del = db.prepare('DELETE FROM era_verdicts WHERE def_hash = ?');
  return {
    getEraVerdict(defHash: string): EraVerdict | undefined {
      const row = get.get(requireText(defHash, 'defHash', 'getEraVerdict')) as VerdictRow | undefined;
      return row ? verdictFromRow(row) : undefined;
    },
    putEraVerdict(v: EraVerdict): void {
      put.run(verdictParams(v, 'putEraVerdict'));
    },
    deleteEraVerdict(defHash: string): boolean {
      return del.run(requireText(defHash, 'defHash', 'deleteEraVerdict')).changes > 0;
    },
  };
}

/**
 * In-memory {@link EraVerdictStore}, bounded: past `max` entries the least recently written is dropped.
 * @param max @default 1000
 */
export function memoryEraVerdicts(max = 1000): EraVerdictStore {
  const m = new Map<string, EraVerdict>();
  return {
    getEraVerdict: async (defHash) => {
      const v = m.get(defHash);
      return v ? { ...v } : undefined;
    },
    async putEraVerdict(v) {
      const p = verdictParams(v, 'putEraVerdict');
      m.delete(p.defHash);
      m.set(p.defHash, {
        defHash: p.defHash,
        era: p.era,
        ...(p.revision !== null ? { revision: p.revision } : {}),
        verifiedAt: p.verifiedAt,
      });
      while (m.size > max) m.delete(m.keys().next().value as string);
    },
    deleteEraVerdict: async (defHash) => m.delete(defHash),
  };
}
