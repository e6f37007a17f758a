/**
 * The host as an OAuth client of protected MCP servers (docs/auth.md).
 * @module
 */
export {
  AuthDefaults,
  AuthSession,
  MAX_AUTH_BODY_BYTES,
  SignInError,
  type AuthContext,
  type SignInCallback,
  type SignInErrorCode,
} from './session.js';
export { CallbackServer, CallbackWaitError, CALLBACK_PATH, MAX_CALLBACK_URL_CHARS } from './callback-server.js';
export {
  MemoryCredentialStore,
  summarize,
  type CredentialKey,
  type CredentialRecord,
  type CredentialSecrets,
  type CredentialStore,
  type CredentialSummary,
} from './credential-store.js';
export { openSqliteCredentialStore, CREDENTIAL_MIGRATIONS, type SqliteCredentialStoreOptions } from './sqlite-credentials.js';
export { openPostgresCredentialStore, type PostgresCredentialStoreOptions } from './postgres-credentials.js';
export { CredentialDecryptError, CredentialKeyError, KEY_FILE, MIN_SECRET_CHARS, loadCredentialKey } from './secret.js';
export { ParleyOAuthProvider } from './provider.js';
export { SignInRetry, SignInWait } from './sign-in-wait.js';
