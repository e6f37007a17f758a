/**
 * Presets (the seed's "scene snapshots"): roots + answers + configuration saved under a name, per scope.
 * Reads match the scope exactly: a user-scoped preset (session `null`) is not listed under a session
 * scope, and the reverse; callers that want both list both scopes.
 * @module
 */
import type Database from 'better-sqlite3';
import type { Preset, Scope } from './types.js';
import { parseJson, requireText, scopeParams } from './scope.js';
import { presetEntrySchema, zodIssues } from './preset-shape.js';

export interface PresetRow {
  tenant: string;
  user: string;
  session: string | null;
  name: string;
  body: string;
  updated_at: number | string;
}

export function presetFromRow(r: PresetRow): Preset {
  const body = parseJson(r.body, `preset ${JSON.stringify(r.name)}`) as Pick<Preset, 'roots' | 'answers' | 'config'>;
  return {
    name: r.name,
    scope: { tenant: r.tenant, user: r.user, session: r.session },
    roots: body.roots ?? [],
    answers: body.answers ?? {},
    config: body.config ?? {},
    updatedAt: Number(r.updated_at),
  };
}

/** Checks `p` and returns its column values. @throws TypeError listing every shape problem as `pointer: message`. */
export function presetParams(p: Preset) {
  const where = 'savePreset';
  if (typeof p !== 'object' || p === null) throw new TypeError(`${where}: preset must be an object`);
  const scope = scopeParams(p.scope, where);
  const { scope: _scope, ...entry } = p;
  const checked = presetEntrySchema.safeParse(entry);
  if (!checked.success) {
    throw new TypeError(
      `${where}: invalid preset: ${zodIssues(checked.error)
        .map((i) => i.message)
        .join('; ')}`,
    );
  }
  return {
    ...scope,
    name: p.name,
    body: JSON.stringify({ roots: p.roots, answers: p.answers, config: p.config }),
    updatedAt: Math.trunc(p.updatedAt),
  };
}

/** Statements of the presets table, prepared once per store. */
export function presetsTable(db: Database.Database) {
  const SCOPE = 'tenant = @tenant AND user = @user AND session IS @session';
  const del = db.prepare(`DELETE FROM presets WHERE ${SCOPE} AND name = @name`);
  const ins = db.prepare(
    `INSERT INTO presets (tenant, user, session, name, body, updated_at) VALUES (@tenant, @user, @session, @name, @body, @updatedAt)`,
  );
  const one = db.prepare(`SELECT * FROM presets WHERE ${SCOPE} AND name = @name`);
  const all = db.prepare(`SELECT * FROM presets WHERE ${SCOPE} ORDER BY name`);
  const upsert = db.transaction((p: Record<string, unknown>) => {
    del.run(p);
    ins.run(p);
  });

  return {
    /**
     * Saves (replaces) the preset `p.name` in `p.scope`.
     * @throws TypeError listing every shape problem as `pointer: message`.
     */
    save(p: Preset): void {
      upsert.immediate(presetParams(p));
    },
    load(scope: Scope, name: string): Preset | undefined {
      const r = one.get({ ...scopeParams(scope, 'loadPreset'), name: requireText(name, 'name', 'loadPreset') }) as PresetRow | undefined;
      return r && presetFromRow(r);
    },
    list(scope: Scope): Preset[] {
      return (all.all(scopeParams(scope, 'listPresets')) as PresetRow[]).map(presetFromRow);
    },
    /** @returns whether a preset was removed. */
    delete(scope: Scope, name: string): boolean {
      return del.run({ ...scopeParams(scope, 'deletePreset'), name: requireText(name, 'name', 'deletePreset') }).changes > 0;
    },
  };
}
