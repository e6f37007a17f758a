/**
 * The host's store: the {@link Store} contract, its SQLite implementation and preset import/export.
 * @module
 */
export type {
  Scope,
  AuditRecord,
  AuditQuery,
  RememberScope,
  RememberedAnswer,
  RememberedAnswerEntry,
  RememberedAnswerList,
  StoredRoot,
  Preset,
  Store,
  EraVerdict,
  EraVerdictStore,
  AuditRetention,
  PurgeResult,
} from './types.js';
export { REDACTED } from './types.js';
export { StoreError, type StoreErrorCode } from './errors.js';
export { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from './sqlite.js';
export { MIGRATIONS, SCHEMA_VERSION, migrate, sqlFor, toPostgres, POSTGRES_REWRITES, type Migration, type Dialect } from './migrations.js';
export { openPostgresStore, postgresSchemaVersion, redactUrl, type PostgresStore, type PostgresStoreOptions } from './postgres.js';
export { openStore, isPostgresUrl, storeSchemaVersion, DEFAULT_STORE, type OpenStoreOptions } from './open.js';
export { AUDIT_MAX_AGE_MS, AUDIT_MAX_ROWS, AUDIT_RETENTION_INTERVAL_MS } from './retention.js';
export { exportPresets, importPresets, PRESETS_FORMAT, type ImportPresetsOptions } from './presets-io.js';
export { redact, excerpt, AUDIT_DEFAULT_LIMIT, AUDIT_TEXT_MAX, AUDIT_DETAIL_MAX } from './audit.js';
export { memoryEraVerdicts } from './era-verdicts.js';
export { ANSWER_LABEL_MAX } from './answer-list.js';
export { mergeAnswers, rememberedAnswers } from './presets-scene.js';
