/**
 * The host's persistence seam. SQLite (`openSqliteStore`) is the embedded default; PostgreSQL
 * (`openPostgresStore`) serves several processes from one database. Every method returns a Promise.
 *
 * Every row is keyed by a {@link Scope}: tenant, user and session. Reads never cross scopes.
 * @module
 */
import type { Content } from '../../schema/types.js';

/** Who a row belongs to. `'default'` is used where there is no multi-user gateway. */
export interface Scope {
  tenant: string;
  user: string;
  /** Session id; `null` for rows that outlive sessions (user scope). */
  session: string | null;
}

/** One audit record. Append-only: never updated or deleted through this interface. */
export interface AuditRecord {
  /** Assigned by the store; strictly increasing. */
  id?: number;
  /** Epoch ms. */
  ts: number;
  scope: Scope;
  /** Server name as configured. */
  server: string;
  /**
   * What happened, e.g. `'request'`, `'repair'`, `'policy'`, `'answer'`, `'cancelled'`,
   * `'error'`, `'roots'`, `'tool-call'`, `'prompt-get'`, `'resource-read'`.
   */
  kind: string;
  /** Correlates records of one input request (broker-assigned id). */
  requestId?: string;
  /** `'accept' | 'decline' | 'cancel'` for answers; policy verdict for policy records. */
  action?: string;
  /** Milliseconds the step took (e.g. time the person spent answering). */
  durationMs?: number;
  /**
   * Structured detail. Values of sensitive and password fields MUST already be redacted by the
   * caller with {@link REDACTED}; the store redacts again any key listed in `redactKeys`.
   */
  detail?: Record<string, unknown>;
  /** Keys of `detail.content` (or `detail`) whose values the store must replace by {@link REDACTED}. */
  redactKeys?: string[];
}

/** Placeholder written instead of a secret value. */
export const REDACTED = '[redacted]';

/** Options of {@link Store.appendAudit}. */
export interface AppendOptions {
  /**
   * A row nobody waits on (the broker's `request` row; the host's rows of tool calls, `prompts/get` and
   * `resources/read`, start and end): the SQLite
   * store commits it together with the next ordinary commit, and at the latest `deferMs` (SQLite
   * store option, default 50 ms) after it was queued, alone if nothing else came. Rows keep their
   * append order (ids ascending), so a committed later row implies every earlier deferred row is
   * committed too. What a SIGKILL can lose: deferred rows queued less than `deferMs` before it and
   * with no ordinary commit after them, never a row an awaited append or a confirmed answer
   * followed. The promise still resolves once the row is committed. PostgreSQL commits it at once.
   * @default false
   */
  defer?: boolean;
}

export interface AuditQuery {
  scope?: Partial<Scope>;
  server?: string;
  kind?: string;
  requestId?: string;
  /** Epoch ms, inclusive. */
  since?: number;
  /** Maximum rows, newest first. @default 200 */
  limit?: number;
}

/** How long a remembered answer lives: this one request, this session, or until forgotten. */
export type RememberScope = 'once' | 'session' | 'always';

export interface RememberedAnswer {
  scope: Scope;
  server: string;
  /** `schemaHash(requestedSchema)` from the schema core. */
  schemaHash: string;
  content: Content;
  remember: RememberScope;
  /** Epoch ms. */
  updatedAt: number;
}

/**
 * A remembered answer as the list of remembered answers shows it ({@link RememberedAnswerList}).
 * `auto`: submitted without asking next time (the person chose "answer automatically next time");
 * otherwise it only prefills the form. `label`: the form's message when it was remembered.
 */
export interface RememberedAnswerEntry extends RememberedAnswer {
  auto: boolean;
  label?: string;
}

/**
 * Optional store part for managing remembered answers (console and `parley answers`). Every method
 * sees exactly what `recall` sees for `scope`: the user's `'always'` rows and the rows of `scope.session`.
 * @throws TypeError on a bad argument; StoreError on a storage failure.
 */
export interface RememberedAnswerList {
  /** Every visible remembered answer, by server, newest first. */
  listAnswers(scope: Scope): Promise<RememberedAnswerEntry[]>;
  /** `recall` plus the `auto` flag and label. */
  recallEntry(scope: Scope, server: string, schemaHash: string): Promise<RememberedAnswerEntry | undefined>;
  /**
   * Sets "answer automatically next time" (`auto: true`) or "prefill only" (`false`) on the visible rows
   * of (server, schemaHash); `label` (cut to 200 characters) replaces the stored label when given.
   * @returns whether a row changed.
   */
  setAnswerMode(scope: Scope, server: string, schemaHash: string, auto: boolean, label?: string): Promise<boolean>;
  /** Forgets the visible rows of (server, schemaHash). @returns whether a row was removed. */
  forgetAnswer(scope: Scope, server: string, schemaHash: string): Promise<boolean>;
}

export interface StoredRoot {
  scope: Scope;
  /** `file://` URI, or any other scheme for a host-side virtual root. */
  uri: string;
  name?: string;
  /** `'app' | 'session' | 'request'` */
  lifetime: 'app' | 'session' | 'request';
  /** `'user' | 'config' | 'upstream' | 'tool'` */
  source: 'user' | 'config' | 'upstream' | 'tool';
}

/** The seed's "scene snapshot": roots + answers + configuration, saved under a name. */
export interface Preset {
  name: string;
  scope: Scope;
  roots: Array<{ uri: string; name?: string }>;
  /** Answers per server: `{ [server]: Content }`; applied as prefill. */
  answers: Record<string, Content>;
  /** Free-form configuration values per server. */
  config: Record<string, Record<string, unknown>>;
  /** Epoch ms. */
  updatedAt: number;
}

/**
 * The protocol era one server definition negotiated (2026-07-28 `versioning.mdx` §Backward Compatibility:
 * a client MAY cache the verdict per server). Global, not per scope: a verdict describes the server
 * program, not a person, and holds no personal data.
 */
export interface EraVerdict {
  /**
   * Hash of the server's effective definition (`eraVerdictKey` in `src/host/servers/era-verdict.ts`:
   * `'v1:'` + sha256 hex of command, args, cwd, env, url, headers; values never stored in clear).
   */
  defHash: string;
  /** `'modern'` = answered `server/discover` (2026-07-28+); `'legacy'` = 2025-era `initialize` only. */
  era: 'legacy' | 'modern';
  /** Revision negotiated when the verdict was reached, e.g. `'2026-07-28'`. */
  revision?: string;
  /** Epoch ms of the negotiation that produced or last confirmed the verdict. */
  verifiedAt: number;
}

/** Where the server runtime keeps {@link EraVerdict}s: the SQLite store, or the in-memory default. */
export interface EraVerdictStore {
  getEraVerdict(defHash: string): Promise<EraVerdict | undefined>;
  /** Adds or replaces the verdict for `v.defHash`. Rejects with TypeError on a bad field. */
  putEraVerdict(v: EraVerdict): Promise<void>;
  /** @returns whether a verdict was removed. */
  deleteEraVerdict(defHash: string): Promise<boolean>;
}

/**
 * Audit retention (docs/store.md "Retention"). Enforced when the store opens and then every
 * `intervalMs`; rows past either bound are deleted oldest first.
 */
export interface AuditRetention {
  /** Rows older than this (by `ts`) are deleted; `0` keeps rows of any age. @default 90 days (7_776_000_000 ms) */
  maxAgeMs?: number;
  /** At most this many rows are kept (newest by id); `0` means no row limit. @default 1_000_000 */
  maxRows?: number;
  /** How often the policy is enforced while the store is open, in ms; `0` only at open. @default 3_600_000 (1 h) */
  intervalMs?: number;
}

/** Rows removed by {@link Store.purgeUser} or by retention. */
export interface PurgeResult {
  audit: number;
  answers: number;
}

/**
 * A broker token bucket counted in the store (docs/scaling.md): capacity `burst` (at least 1), refilled
 * at `ratePerMinute` tokens per 60 000 ms, one per (tenant, user, server).
 */
export interface RateBucket {
  tenant: string;
  user: string;
  server: string;
  burst: number;
  ratePerMinute: number;
}

/** One use of an OAuth access token by a gateway user ({@link Store.recordSignIn}); never the token. */
export interface SignInUse {
  tenant: string;
  /** The token's issuer (`gateway.oauth.issuer`). */
  issuer: string;
  /** The token's `sub` claim, else the user claim. */
  subject: string;
  /** The user the gateway maps the token to (`gateway.oauth.userClaim`). */
  user: string;
  /** When the gateway saw it, epoch ms. */
  at: number;
  /** The token's `exp`, epoch ms. */
  expiresAt?: number;
  /** The token's `iat`, epoch ms, when it has one. */
  issuedAt?: number;
}

/** An OAuth sign-in as a tenant administrator sees it (src/gateway/admin.ts). No token, ever. */
export interface OAuthSignIn {
  tenant: string;
  issuer: string;
  subject: string;
  user: string;
  /** First use of a token of this subject, epoch ms. */
  firstSignInAt: number;
  /** First use of its newest token (the largest `exp`), epoch ms. */
  lastSignInAt: number;
  /** That token's expiry, epoch ms. */
  tokenExpiresAt?: number;
  /** Set once revoked: tokens issued before this instant are refused (later ones sign in again). */
  revokedAt?: number;
}

/**
 * Persistence used by the host. Every method returns a Promise; argument errors reject with a
 * `TypeError` naming the field, storage failures with `StoreError` (code `'STORE_CLOSED' |
 * 'STORE_CORRUPT' | 'STORE_IO' | 'STORE_VERSION' | 'STORE_UNAVAILABLE'`).
 *
 * `appendAudit` resolves only once the record is committed (durable against SIGKILL); callers that
 * confirm an answer to a server await it first. Implementations may group several appends into one
 * commit (the SQLite store commits every append of one event-loop turn together).
 */
export interface Store {
  /** Engine behind the store: `'sqlite'` or `'postgres'`. */
  readonly engine: 'sqlite' | 'postgres';
  /** Where it is: an absolute file path, `':memory:'`, or a PostgreSQL URL without its password. */
  readonly location: string;
  /** Schema version of the open database (the latest this code knows once open). */
  readonly schemaVersion: number;

  /**
   * @param opts `{ defer: true }` for a row nobody waits on ({@link AppendOptions}).
   * @returns the new record's id (strictly increasing, never reused; shared by every process on the database),
   *   once the record is committed.
   */
  appendAudit(rec: AuditRecord, opts?: AppendOptions): Promise<number>;
  queryAudit(q?: AuditQuery): Promise<AuditRecord[]>;

  remember(a: RememberedAnswer): Promise<void>;
  /** The newest remembered answer for (user or session scope, server, schemaHash), if any. */
  recall(scope: Scope, server: string, schemaHash: string): Promise<RememberedAnswer | undefined>;
  forget(scope: Scope, server?: string): Promise<number>;

  savePreset(p: Preset): Promise<void>;
  loadPreset(scope: Scope, name: string): Promise<Preset | undefined>;
  listPresets(scope: Scope): Promise<Preset[]>;
  deletePreset(scope: Scope, name: string): Promise<boolean>;

  putRoot(r: StoredRoot): Promise<void>;
  deleteRoot(scope: Scope, uri: string): Promise<boolean>;
  listRoots(scope: Scope): Promise<StoredRoot[]>;

  /** Cached protocol-era verdicts per server definition ({@link EraVerdictStore}). */
  getEraVerdict(defHash: string): Promise<EraVerdict | undefined>;
  putEraVerdict(v: EraVerdict): Promise<void>;
  deleteEraVerdict(defHash: string): Promise<boolean>;

  /**
   * Removes every remembered answer and every audit row of one user of one tenant (all sessions), in
   * one transaction: the one way audit rows are deleted besides retention. Presets and roots stay.
   */
  purgeUser(tenant: string, user: string): Promise<PurgeResult>;
  /** Applies the retention policy now. @returns audit rows removed. */
  enforceRetention(): Promise<number>;

  /** Optional ({@link RememberedAnswerList}): list, auto/prefill mode and forget-one of remembered answers. */
  listAnswers?(scope: Scope): Promise<RememberedAnswerEntry[]>;
  recallEntry?(scope: Scope, server: string, schemaHash: string): Promise<RememberedAnswerEntry | undefined>;
  setAnswerMode?(scope: Scope, server: string, schemaHash: string, auto: boolean, label?: string): Promise<boolean>;
  forgetAnswer?(scope: Scope, server: string, schemaHash: string): Promise<boolean>;

  /**
   * Optional (the PostgreSQL store has it, the SQLite store does not; src/host/store/rate-limits.ts):
   * takes one token of the shared bucket `b` at `now` (epoch ms) in one statement, so replicas on one
   * database cannot both take the last token. @returns false when the bucket is empty.
   */
  takeRateToken?(b: RateBucket, now: number): Promise<boolean>;
  /**
   * Optional: records one use of an OAuth access token. @returns false when an administrator revoked
   * the sign-in and the token was issued before that (the token must be refused); nothing is changed then.
   */
  recordSignIn?(u: SignInUse): Promise<boolean>;
  /** Optional: the OAuth sign-ins of one tenant, newest first. */
  listSignIns?(tenant: string): Promise<OAuthSignIn[]>;
  /** Optional: revokes the sign-in of `subject` in `tenant` at `at` (epoch ms). @returns whether one existed. */
  revokeSignIn?(tenant: string, subject: string, at: number): Promise<boolean>;

  /**
   * Runs `fn` atomically (all of its writes or none): the writes made through `tx` commit together.
   * `importPresets` uses it.
   */
  transaction<T>(fn: (tx: Pick<Store, 'savePreset' | 'loadPreset'>) => Promise<T>): Promise<T>;

  /** Closes the database; later calls reject with `StoreError('STORE_CLOSED')`. Idempotent. */
  close(): Promise<void>;
}
