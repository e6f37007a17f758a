/**
 * The host's store: the {@link Store} contract, its SQLite implementation and preset import/export.
 * @module
 */
export type { Scope, AuditRecord, AuditQuery, RememberScope, RememberedAnswer, RememberedAnswerEntry, RememberedAnswerList, StoredRoot, Preset, Store, EraVerdict, EraVerdictStore } from './types.js';
export { REDACTED } from './types.js';
export { StoreError, type StoreErrorCode } from './errors.js';
export { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from './sqlite.js';
export { MIGRATIONS, SCHEMA_VERSION, migrate, type Migration } from './migrations.js';
export { exportPresets, importPresets, PRESETS_FORMAT, type ImportPresetsOptions } from './presets-io.js';
export { redact, AUDIT_DEFAULT_LIMIT } from './audit.js';
export { memoryEraVerdicts } from './era-verdicts.js';
export { ANSWER_LABEL_MAX } from './answer-list.js';
export { mergeAnswers, rememberedAnswers } from './presets-scene.js';
