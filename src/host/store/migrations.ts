/**
 * Versioned schema migrations, ONE list for both engines (SQLite and PostgreSQL).
 *
 * Each step's `sql` is written in SQLite's dialect; {@link sqlFor} turns it into PostgreSQL text by
 * the few fixed rewrites of {@link POSTGRES_REWRITES} (types, identity column, the reserved word
 * `user`). A step whose PostgreSQL text differs in more than that (triggers) carries it explicitly in
 * `postgres`. To add a table: append one entry to {@link MIGRATIONS} (docs/store.md "Migrations").
 *
 * SQLite keeps the version in `PRAGMA user_version` (0 = empty file); PostgreSQL in the one-row table
 * `parley_schema` (src/host/store/postgres.ts). Each step runs in its own transaction together with
 * the version bump, so a step is applied entirely or not at all, and two processes opening the same new
 * database cannot both apply it. Steps are append-only: never edit a released step; add a new one.
 * @module
 */
import type Database from 'better-sqlite3';
import { StoreError, toStoreError } from './errors.js';
import { ANSWERS_AUTO_MIGRATION } from './answer-list.js';
import { RATE_LIMITS_MIGRATION } from './rate-limits.js';
import { SIGN_INS_MIGRATION } from './sign-ins.js';
import { AUDIT_IDS_MIGRATION, AUDIT_LEAN_MIGRATION } from './audit.js';

/** One schema step. `sql` may hold several statements; it is static text (no values). */
export interface Migration {
  /** 1, 2, 3, … in order, without gaps. */
  version: number;
  description: string;
  /** The step in SQLite's dialect; also PostgreSQL's after {@link POSTGRES_REWRITES}, unless `postgres` is set. */
  sql: string;
  /** The step's full PostgreSQL text, when it differs from `sql` in more than the fixed rewrites. */
  postgres?: string;
}

/** The database engines the migrations target. */
export type Dialect = 'sqlite' | 'postgres';

/**
 * SQLite → PostgreSQL rewrites applied to a step's `sql` (not to an explicit `postgres` text), in
 * order. Epoch-ms columns need 64 bits (`INTEGER` is 32-bit in PostgreSQL); `user` is reserved there.
 */
export const POSTGRES_REWRITES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bINTEGER PRIMARY KEY AUTOINCREMENT\b/g, 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY'],
  [/\bINTEGER\b/g, 'BIGINT'],
  [/\bREAL\b/g, 'DOUBLE PRECISION'],
  [/\s*WITHOUT ROWID/g, ''],
  [/(?<!['"\w])user(?!['"\w])/g, '"user"'],
];

/** SQLite-dialect DDL rewritten for PostgreSQL by {@link POSTGRES_REWRITES}. */
export function toPostgres(sql: string): string {
  return POSTGRES_REWRITES.reduce((text, [re, to]) => text.replace(re, to), sql);
}

/** The text of `step` for `dialect`. */
export function sqlFor(step: Migration, dialect: Dialect): string {
  if (dialect === 'sqlite') return step.sql;
  return step.postgres ?? toPostgres(step.sql);
}

const V2_INDEXES = `
      CREATE INDEX audit_request ON audit (request_id) WHERE request_id IS NOT NULL;
      CREATE UNIQUE INDEX answers_key ON answers (tenant, user, session, server, schema_hash) WHERE session IS NOT NULL;
      CREATE UNIQUE INDEX answers_key_user ON answers (tenant, user, server, schema_hash) WHERE session IS NULL;
      CREATE UNIQUE INDEX presets_key ON presets (tenant, user, session, name) WHERE session IS NOT NULL;
      CREATE UNIQUE INDEX presets_key_user ON presets (tenant, user, name) WHERE session IS NULL;
      CREATE UNIQUE INDEX roots_key ON roots (tenant, user, session, uri) WHERE session IS NOT NULL;
      CREATE UNIQUE INDEX roots_key_user ON roots (tenant, user, uri) WHERE session IS NULL;
`;

/** Every step, oldest first. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'tables: audit, answers, presets, roots; every row keyed by tenant, user, session',
    sql: `
      CREATE TABLE audit (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        ts          INTEGER NOT NULL,
        tenant      TEXT NOT NULL,
        user        TEXT NOT NULL,
        session     TEXT,
        server      TEXT NOT NULL,
        kind        TEXT NOT NULL,
        request_id  TEXT,
        action      TEXT,
        duration_ms REAL,
        detail      TEXT,
        redact_keys TEXT
      );
      CREATE INDEX audit_scope ON audit (tenant, user, session, id);
      CREATE TABLE answers (
        tenant      TEXT NOT NULL,
        user        TEXT NOT NULL,
        session     TEXT,
        server      TEXT NOT NULL,
        schema_hash TEXT NOT NULL,
        remember    TEXT NOT NULL CHECK (remember IN ('session', 'always')),
        content     TEXT NOT NULL,
        updated_at  INTEGER NOT NULL
      );
      CREATE INDEX answers_lookup ON answers (tenant, user, server, schema_hash);
      CREATE TABLE presets (
        tenant     TEXT NOT NULL,
        user       TEXT NOT NULL,
        session    TEXT,
        name       TEXT NOT NULL,
        body       TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX presets_scope ON presets (tenant, user, session, name);
      CREATE TABLE roots (
        tenant   TEXT NOT NULL,
        user     TEXT NOT NULL,
        session  TEXT,
        uri      TEXT NOT NULL,
        name     TEXT,
        lifetime TEXT NOT NULL CHECK (lifetime IN ('app', 'session', 'request')),
        source   TEXT NOT NULL CHECK (source IN ('user', 'config', 'upstream', 'tool'))
      );
      CREATE INDEX roots_scope ON roots (tenant, user, session, uri);
    `,
  },
  {
    version: 2,
    description: 'audit is append-only in the database; unique keys (NULL session counts as one key); requestId index',
    sql:
      `
      CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
        BEGIN SELECT RAISE(ABORT, 'parley audit log is append-only: UPDATE is not allowed'); END;
      CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
        BEGIN SELECT RAISE(ABORT, 'parley audit log is append-only: DELETE is not allowed'); END;
    ` + V2_INDEXES,
    postgres:
      `
      CREATE FUNCTION parley_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'parley audit log is append-only: % is not allowed', TG_OP; END $$;
      CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit FOR EACH ROW EXECUTE FUNCTION parley_audit_append_only();
      CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit FOR EACH ROW EXECUTE FUNCTION parley_audit_append_only();
      CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit FOR EACH STATEMENT EXECUTE FUNCTION parley_audit_append_only();
    ` + toPostgres(V2_INDEXES),
  },
  {
    version: 3,
    description: 'era_verdicts: the protocol era a server definition negotiated, keyed globally by a hash of the definition',
    sql: `
      CREATE TABLE era_verdicts (
        def_hash    TEXT PRIMARY KEY,
        era         TEXT NOT NULL CHECK (era IN ('legacy', 'modern')),
        revision    TEXT,
        verified_at INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 4,
    description:
      'audit retention and purgeUser: DELETE allowed only while the deleting transaction holds a row in audit_purge_gate; ts index',
    sql: `
      CREATE TABLE audit_purge_gate (open INTEGER NOT NULL);
      CREATE INDEX audit_ts ON audit (ts);
      DROP TRIGGER audit_no_delete;
      CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit WHEN NOT EXISTS (SELECT 1 FROM audit_purge_gate)
        BEGIN SELECT RAISE(ABORT, 'parley audit log is append-only: DELETE is not allowed'); END;
    `,
    postgres: `
      CREATE TABLE audit_purge_gate (open INTEGER NOT NULL);
      CREATE INDEX audit_ts ON audit (ts);
      CREATE FUNCTION parley_audit_no_delete() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF EXISTS (SELECT 1 FROM audit_purge_gate) THEN RETURN OLD; END IF;
          RAISE EXCEPTION 'parley audit log is append-only: DELETE is not allowed';
        END $$;
      DROP TRIGGER audit_no_delete ON audit;
      CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit FOR EACH ROW EXECUTE FUNCTION parley_audit_no_delete();
    `,
  },
  ANSWERS_AUTO_MIGRATION,
  RATE_LIMITS_MIGRATION,
  SIGN_INS_MIGRATION,
  AUDIT_LEAN_MIGRATION,
  AUDIT_IDS_MIGRATION,
];

/** The schema version this code writes. */
export const SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1].version;

function readVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings `db` to `target` (default {@link SCHEMA_VERSION}).
 * @returns the version found and the version reached.
 * @throws StoreError `'STORE_VERSION'` when the file is newer than this code knows; `'STORE_CORRUPT'`
 *   when a step fails on an unexpected schema (that step is rolled back, earlier steps stay applied).
 */
export function migrate(db: Database.Database, file: string, target: number = SCHEMA_VERSION): { from: number; to: number } {
  const from = readVersion(db);
  if (from > SCHEMA_VERSION) {
    throw new StoreError(
      'STORE_VERSION',
      file,
      `${file} has store schema version ${from}, but this parley only knows versions up to ${SCHEMA_VERSION}. ` +
        'It was written by a newer parley: upgrade parley (npm install mcp-parley@latest), ' +
        'or point the store at another file. Do not downgrade the file by hand.',
    );
  }
  for (const step of MIGRATIONS) {
    if (step.version > target) break;
    const apply = db.transaction(() => {
      if (readVersion(db) >= step.version) return; // another process got here first
      db.exec(step.sql);
      // PRAGMA takes no bound parameters; step.version is an integer constant from this file.
      db.pragma(`user_version = ${Math.trunc(step.version)}`);
    });
    try {
      apply.immediate();
    } catch (err) {
      const mapped = toStoreError(err, file, `apply store migration ${step.version}`);
      if (StoreError.is(mapped)) throw mapped;
      throw new StoreError(
        'STORE_CORRUPT',
        file,
        `Store migration ${step.version} (${step.description}) failed on ${file}: ${(err as Error).message}. ` +
          `The file was left at schema version ${readVersion(db)}. Its schema is not the one parley wrote; ` +
          'move the file aside to start with a fresh store, or restore a backup.',
        { cause: err },
      );
    }
  }
  return { from, to: readVersion(db) };
}
