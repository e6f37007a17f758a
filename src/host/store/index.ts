/**
 * mcp-parley/store: the {@link Store} contract and its two implementations, SQLite (`openSqliteStore`)
 * and PostgreSQL (`openPostgresStore`), on one migration list; `openStore` picks by target; the
 * credential stores of the same two engines; preset import/export (docs/store.md). Each driver
 * (`better-sqlite3`, `pg`) is loaded when a store of its engine is first opened.
 * @module
 */
export type {
  Scope,
  AuditRecord,
  AuditQuery,
  AppendOptions,
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
export {
  exportPresets,
  importPresets,
  MAX_PRESETS_DOCUMENT_BYTES,
  PRESETS_FORMAT,
  type ImportPresetsOptions,
} from './presets-io.js';
export { PRESET_ISSUE_CODES, type PresetIssue, type PresetIssueCode } from './preset-shape.js';
export { redact, AUDIT_DEFAULT_LIMIT, AUDIT_TEXT_MAX, AUDIT_DETAIL_MAX } from './audit.js';
export { memoryEraVerdicts } from './era-verdicts.js';
export { ANSWER_LABEL_MAX } from './answer-list.js';
export { mergeAnswers, rememberedAnswers } from './presets-scene.js';
export {
  openSqliteCredentialStore,
  openPostgresCredentialStore,
  type SqliteCredentialStoreOptions,
  type PostgresCredentialStoreOptions,
} from '../auth/index.js';
