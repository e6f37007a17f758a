/**
 * The `ctx` a parley tool handler receives. One code path on every era:
 * - legacy (2025-06-18, 2025-11-25): asks are pushed as related requests with the tool call's abort
 *   signal and the long `elicitationTimeoutMs`; the handler simply awaits;
 * - 2026-07-28: the handler runs as a continuation. An ask whose answer is not yet recorded throws an
 *   internal suspend signal that the wrapper turns into `input_required`; on re-entry the handler
 *   re-runs and every ask returns its recorded answer in order (keys `e0`, `u1`, `r2`, …).
 * @module
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod/v4';
import { LRUCache } from 'lru-cache';
import { inputRequired, UrlElicitationRequiredError, SdkError, ProtocolError } from '@modelcontextprotocol/server';
import type { McpServer, ServerContext, InputRequest, CreateMessageRequestParams, CreateMessageResult } from '@modelcontextprotocol/server';
import type { Content, Issue, RequestedSchema } from '../schema/types.js';
import type { ElicitOutcome } from '../schema/result.js';
import {
  describeIssue,
  detectSensitiveFields,
  lintRequestedSchema,
  loadElicitResultReader,
  toRequestedSchema,
  UnsupportedSchemaError,
} from './schema-bridge.js';
import {
  ElicitationAnswerError,
  ElicitationRefusedError,
  ElicitationSchemaError,
  ElicitationTimeoutError,
  InputUnavailableError,
} from './errors.js';
import type { NeededField } from './errors.js';
import { elicitModes } from './era.js';
import { checkTimerMs } from './bounds.js';
import type { RequestEra } from './era.js';
import { configKey, missingFields } from './config.js';
import type { ConfigDef } from './config.js';
import { parseRootsList, resolveInRoots } from './roots.js';
import type { ParsedRoot } from './roots.js';

/** A client root: wire `uri`/`name` plus the decoded local `path`. */
export type ParleyRoot = ParsedRoot;
import type { Shared } from './shared.js';

/** Result of `ctx.elicit` (the schema core's type): `content` is validated and typed. */
export type { ElicitOutcome };

/** Result of `ctx.elicitUrl`: `accept` means consent to open the URL, not completion. */
export interface UrlOutcome {
  action: 'accept' | 'decline' | 'cancel';
  elicitationId: string;
}

/** Options of `ctx.elicit`. */
export interface ElicitOptions {
  /**
   * Per-ask timeout in ms (legacy push only; checked on every era: a whole number from 1 to
   * 2,147,483,647, else the ask throws RangeError). @default the server's `elicitationTimeoutMs`
   */
  timeoutMs?: number;
  /**
   * The `inputRequests` key of this ask on 2026-07-28 (ignored on 2025 eras, where nothing is keyed).
   * 1-64 characters `[A-Za-z0-9_.-]`, starting with a letter or `_`, not of the toolkit's own form
   * (a lower-case letter then digits, `e0`), unique within one call.
   * @default the toolkit's positional key (`e0`, `u1`, `r2`, `s3`, …)
   */
  key?: string;
}

/** What `ctx.supports` can ask about: form and URL elicitation, sampling, roots. */
export type InputKind = 'elicitation' | 'elicitation.url' | 'sampling' | 'roots';

/** The handler context (see module doc). `mcp` is the SDK's own context for anything else. */
export interface ParleyContext {
  /** The SDK context of this request. */
  readonly mcp: ServerContext;
  /** `true` when this request is served on 2026-07-28. Tool code should not need it. */
  readonly modern: boolean;
  /** Authenticated user (`sub`/client id) or '' when unknown. */
  readonly user: string;
  /**
   * Asks the user for the fields of `schema` (zod object or raw `requestedSchema`) in form mode.
   * Throws `ElicitationSchemaError` (lint error, sensitive field: use `elicitUrl`), `InputUnavailableError`
   * (client cannot elicit: nothing sent), `ElicitationAnswerError` (answer outside the wire schema on 2025
   * eras; after `maxReasks` re-asks on any era), `ElicitationTimeoutError`. An answer that fails a zod check
   * the wire cannot carry (`.refine()`, `z.email()`) is asked again with zod's reason on every era.
   */
  elicit<S extends z.ZodObject>(message: string, schema: S, opts?: ElicitOptions): Promise<ElicitOutcome<z.infer<S>>>;
  elicit(message: string, schema: RequestedSchema, opts?: ElicitOptions): Promise<ElicitOutcome<Content>>;
  /** Confirm-only prompt (empty `properties`, vector S1): `true` only on accept. */
  confirm(message: string, opts?: ElicitOptions): Promise<boolean>;
  /**
   * Asks the client's model: pushed `sampling/createMessage` on 2025 eras (timeout `opts.timeoutMs`,
   * default `elicitationTimeoutMs`), an `input_required` `sampling/createMessage` request on 2026-07-28.
   * Throws `InputUnavailableError` (nothing sent) when the client declared no `sampling` capability
   * (2026-07-28: JSON-RPC -32021 with `requiredCapabilities: {sampling: {}}`).
   */
  sample(params: CreateMessageRequestParams, opts?: ElicitOptions): Promise<CreateMessageResult>;
  /**
   * Runs several independent asks as ONE round: on 2026-07-28 every unanswered one is sent in the same
   * `input_required` result (keys from `opts.key` or positional); on 2025 eras they are pushed one after
   * the other. Resolves with their results in order. Each thunk must make exactly one ask and nothing that
   * depends on another's answer.
   * @example const [name, roots] = await ctx.all([() => ctx.elicit('Name?', s, { key: 'user_name' }), () => ctx.roots()]);
   */
  all<const T extends readonly (() => Promise<unknown>)[]>(asks: T): Promise<{ -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> }>;
  /** Whether the client declared what an ask of `kind` needs (this request's capabilities on 2026-07-28). */
  supports(kind: InputKind): boolean;
  /** URL-mode elicitation (2025-11-25 push with `elicitationId`; 2026-07-28 `input_required`), bound to the user. */
  elicitUrl(message: string, url: string, opts?: Pick<ElicitOptions, 'key'>): Promise<UrlOutcome>;
  /** 2025-11-25: throws `-32042 UrlElicitationRequiredError`; 2026-07-28: same as `elicitUrl`. */
  requireUrlElicitation(message: string, url: string): Promise<UrlOutcome>;
  /** Marks a URL flow complete (sends `notifications/elicitation/complete` on 2025-11-25). Only its own user may. */
  completeUrlElicitation(elicitationId: string): Promise<void>;
  /** Whether `completeUrlElicitation` ran for this id. */
  isUrlElicitationComplete(elicitationId: string): boolean;
  /** The client's roots (`file://` only; others dropped). Cached per connection on legacy; `opts.key` names the 2026-07-28 key. */
  roots(opts?: Pick<ElicitOptions, 'key'>): Promise<ParleyRoot[]>;
  /**
   * Resolves a path or `file://` URI against the client's roots (real paths, segment containment).
   * `opts.hardLinks: 'refuse'` also refuses hard-linked files (see `ResolveInRootsOptions`).
   * @throws RootsAccessError (`OUTSIDE_ROOTS`, `NO_ROOTS`, `INVALID_PATH`, `UNRESOLVABLE`, `HARD_LINK`)
   */
  resolveInRoots(pathOrUri: string, opts?: { hardLinks?: 'allow' | 'refuse' }): Promise<string>;
  /** The complete configuration for `def`, asking only for missing fields. */
  config<S extends z.ZodObject>(def: ConfigDef<S>): Promise<z.infer<S>>;
  /** Forgets the cached configuration for `def` in this scope. */
  resetConfig(def: ConfigDef): void;
}

/** Internal signal: the handler needs input on 2026-07-28. Never escapes the tool wrapper. */
export class Suspend {
  constructor(readonly requests: Record<string, InputRequest>) {}
}

/**
 * `true` for the toolkit's internal suspend signal. A handler that catches errors around `ctx` calls
 * should rethrow these. If it does not, the toolkit still answers the 2026-07-28 round with the asks
 * left pending and drops what the handler returned or threw after catching it (docs/server.md).
 * @example try { await ctx.elicit(...) } catch (e) { if (isSuspendSignal(e)) throw e; ... }
 */
export function isSuspendSignal(e: unknown): boolean {
  return e instanceof Suspend;
}

/** The suspend signal for `requests`, noted in `st` (see `CallState.suspended`). */
function suspend(st: CallState, requests: Record<string, InputRequest>): Suspend {
  st.suspended = { ...st.suspended, ...requests };
  return new Suspend(requests);
}

/** Per-call state shared by the ctx and the wrapper. */
export interface CallState {
  mcp: McpServer;
  sdk: ServerContext;
  era: RequestEra;
  user: string;
  session: string;
  shared: Shared;
  answers: Record<string, unknown>;
  /** Keys whose answer arrived in this round's `inputResponses` (2026-07-28); empty on legacy eras. */
  fresh: ReadonlySet<string>;
  reasks: Record<string, number>;
  ids: Record<string, string>;
  /**
   * 2026-07-28: what `ctx.config` (`c<n>`) and `ctx.resetConfig` (`x<n>`) saw in the round that first
   * reached them, carried in the sealed `requestState`, so a later round of the same call reads the
   * same values and asks under the same keys whatever other calls did to the shared cache meanwhile.
   */
  pins: Record<string, unknown>;
  /** Keys named by the tool (`opts.key`) in this run, to refuse a name used twice. */
  named?: Set<string>;
  /**
   * 2026-07-28: every input request this run suspended on, whether or not the signal reached the
   * wrapper (a handler may catch it), so the round is answered `input_required` either way.
   */
  suspended?: Record<string, InputRequest>;
  seq: number;
  elicitationTimeoutMs: number;
  rootsTimeoutMs: number;
  maxReasks: number;
  /** Interval of keep-alive progress notifications while a push waits, in ms (0 = off). */
  progressIntervalMs: number;
  howToSupply: string;
  rootsCache: { value?: ParleyRoot[] };
  /** Connection-wide: whether request id 0 has been used up by a ping (see `push`). */
  idZero: { burnt?: Promise<void> };
  onConfig: (def: ConfigDef, values: Record<string, unknown>) => void;
}

function fieldsOf(schema: RequestedSchema): NeededField[] {
  return Object.entries(schema.properties).map(([name, p]) => ({ name, description: p.description ?? p.title }));
}

/** Lenient result schema for `roots/list`: bad roots are dropped by our parser instead of failing the list. */
const LENIENT_ROOTS = z.looseObject({ roots: z.array(z.unknown()) });
/** Any object: `readElicitResult` (schema core) judges the action and content, with field-level issues. */
const LENIENT_ELICIT = z.looseObject({});

async function push<T>(
  st: CallState,
  method: string,
  params: Record<string, unknown> | undefined,
  timeoutMs: number,
  what: string,
  lenient?: z.ZodType,
): Promise<T> {
  const options = { signal: st.sdk.mcpReq.signal, timeout: timeoutMs };
  // A connection's first server→client request gets JSON-RPC id 0, and SDK v1 clients ignore
  // notifications/cancelled for id 0 (sdk.md §3 #1): the prompt would outlive a cancelled tool call.
  // Spend id 0 on a ping (exempt from SEP-2260 association) once per connection.
  st.idZero.burnt ??= st.sdk.mcpReq.send({ method: 'ping' } as never, { signal: st.sdk.mcpReq.signal, timeout: 5_000 }).then(
    () => undefined,
    () => undefined,
  );
  await st.idZero.burnt;
  // While a person answers, tell a client that sent a progressToken that the call is alive, so a host
  // using resetTimeoutOnProgress does not time the tool call out (vector Q1).
  const token = (st.sdk.mcpReq._meta as { progressToken?: string | number } | undefined)?.progressToken;
  let beat = 0;
  const timer =
    token !== undefined && st.progressIntervalMs > 0
      ? setInterval(
          () =>
            void st.sdk.mcpReq
              .notify({
                method: 'notifications/progress',
                params: { progressToken: token, progress: ++beat, message: `waiting for the user (${what})` },
              })
              .catch(() => undefined),
          st.progressIntervalMs,
        )
      : undefined;
  try {
    if (lenient) return (await st.sdk.mcpReq.send({ method, params } as never, lenient as never, options)) as T;
    return (await st.sdk.mcpReq.send({ method, params } as never, options)) as T;
  } catch (e) {
    if (st.sdk.mcpReq.signal.aborted) throw e; // the tool call itself was cancelled (vector Q3)
    if (e instanceof SdkError && String(e.code) === 'REQUEST_TIMEOUT') throw new ElicitationTimeoutError(timeoutMs, what);
    if (e instanceof ProtocolError)
      throw new ElicitationAnswerError(`the client answered the ${what} with JSON-RPC error ${e.code}: ${e.message}`, []);
    throw e;
  } finally {
    clearInterval(timer);
  }
}

/** Most checked schemas remembered by `prepare`; beyond it the least recently used is forgotten (lru-cache). */
const PREPARED_SCHEMA_MAX = 256;
/**
 * Wire schemas that passed `prepare`'s checks (lint, sensitive fields), keyed by revision and JSON text:
 * the text, not the object, so a raw schema object changed between two asks is checked again. zod schemas
 * are immutable, so their wire form is kept per schema object and revision (`wireForm`); asking again with
 * the same object then also reuses the answer validator compiled for it (`validateContent` caches by object).
 */
const checked = new LRUCache<string, true>({ max: PREPARED_SCHEMA_MAX });
const fromZod = new WeakMap<z.ZodObject, Map<string, RequestedSchema>>();

/** The zod schema's wire form for `revision`, converted once per schema object. */
function wireForm(schema: z.ZodObject, revision: RequestEra['revision']): RequestedSchema {
  let byRevision = fromZod.get(schema);
  let req = byRevision?.get(revision);
  if (req) return req;
  try {
    req = toRequestedSchema(schema, { revision });
  } catch (e) {
    // The issues as data, as for a raw schema: the lint's own, or the one conversion failure.
    const issues: Issue[] =
      e instanceof UnsupportedSchemaError
        ? e.issues.length
          ? e.issues
          : [{ code: e.code, path: e.path, severity: 'error', message: e.message }]
        : [];
    throw new ElicitationSchemaError(`requestedSchema cannot be sent: ${(e as Error).message}`, issues);
  }
  if (!byRevision) fromZod.set(schema, (byRevision = new Map()));
  byRevision.set(revision, req);
  return req;
}

/**
 * Lint findings the toolkit will not send: every error (sensitive fields get their own message below)
 * and the warnings a strict client refuses the whole request for, since the spec's schema.ts allows no
 * other value there: a string `format` other than email, uri, date, date-time (`StringSchema.format`)
 * and a multi-select without `items.type: "string"` (`UntitledMultiSelectEnumSchema`). The SDK v2
 * Client answers both with -32602; a lenient host ignores them, so the lint only warns a host.
 */
function refusedToSend(i: Issue): boolean {
  if (i.code === 'sensitive-field') return false;
  return i.severity === 'error' || i.code === 'unknown-format' || i.code === 'missing-items-type';
}

/**
 * The wire schema of an ask, checked for the client's revision: lint errors and sensitive fields throw
 * `ElicitationSchemaError`. The checks run once per schema (see `checked`), not on every ask.
 */
function prepare(schema: z.ZodObject | RequestedSchema, st: CallState, allowEmpty: boolean): RequestedSchema {
  const revision = st.era.revision;
  const req = schema instanceof z.ZodType ? wireForm(schema as z.ZodObject, revision) : (schema as RequestedSchema);
  let text: string | undefined;
  try {
    text = `${revision}\n${JSON.stringify(req)}`;
  } catch {
    // A cycle (or a BigInt): never cached; the lint below names the problem.
  }
  const known = text !== undefined && checked.has(text);
  // Sensitive fields get their own error below (pointing to URL mode).
  const errors = known ? [] : lintRequestedSchema(req, { revision }).filter(refusedToSend);
  if (errors.length)
    throw new ElicitationSchemaError(
      `requestedSchema is invalid for revision ${revision}: ${errors.map(describeIssue).join('; ')}`,
      errors,
    );
  if (!allowEmpty && Object.keys(req.properties ?? {}).length === 0)
    throw new ElicitationSchemaError('requestedSchema has no properties; use ctx.confirm(message) for a confirm-only prompt');
  if (known) return req;
  const sensitive = detectSensitiveFields(req);
  if (sensitive.length) {
    throw new ElicitationSchemaError(
      `form-mode elicitation must not ask for sensitive data: ${sensitive.map((s) => `field "${s.field}" (${s.path}: ${s.where} matched "${s.matched}")`).join(', ')}; fix: ${revision === '2025-06-18' ? 'take it outside elicitation (server configuration, environment): revision 2025-06-18 has no URL mode for ctx.elicitUrl(message, url)' : 'collect it out of band with ctx.elicitUrl(message, url)'} (or, if it is not a secret, rename the field)`,
    );
  }
  if (text !== undefined) checked.set(text, true);
  return req;
}

const KEY_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
/**
 * The `inputRequests` key of the next ask: the tool's own name, or the positional `<kind><n>`.
 * Every ask takes a position either way, so positional keys do not depend on which asks are named.
 */
function keyFor(st: CallState, kind: string, name: string | undefined): string {
  const pos = `${kind}${st.seq++}`;
  if (name === undefined) return pos;
  if (!KEY_NAME.test(name) || /^[a-z]\d+$/.test(name))
    throw new ElicitationSchemaError(
      `input key ${JSON.stringify(name)} is not allowed: use 1-64 characters [A-Za-z0-9_.-] starting with a letter or _, not a lower-case letter followed by digits (the toolkit's own keys)`,
    );
  st.named ??= new Set();
  if (st.named.has(name)) throw new ElicitationSchemaError(`input key "${name}" is used twice in one call; each ask needs its own key`);
  st.named.add(name);
  return name;
}

/**
 * A check the wire form cannot carry (a zod `.refine()`, `.email()`'s stricter pattern, a cross-field
 * rule): given the accepted content, a reason to ask again, or `undefined` when the content passes.
 */
type ContentCheck = (content: Content) => string | undefined;

/** `field "email": Invalid email address (invalid_format email)`: zod issues as one reason sentence. */
export function zodReason(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((i) => {
      const where = i.path.length ? `field "${i.path.map(String).join('.')}"` : 'the answer';
      const check =
        i.code === 'custom'
          ? 'refine'
          : i.code === 'invalid_format'
            ? `invalid_format ${(i as { format?: string }).format ?? ''}`.trim()
            : i.code;
      return `${where}: ${i.message} (${check})`;
    })
    .join('; ');
}

/**
 * Asks one form. An accepted answer that passes the wire schema but fails `check` is asked again with the
 * reason ("Please correct: …") on every era, at most `maxReasks` times (then `ElicitationAnswerError`).
 * On 2026-07-28 an answer the wire schema refuses is re-asked the same way; on 2025 eras the client should
 * have validated it, so it ends the call (`ElicitationAnswerError`).
 */
async function elicitForm(
  st: CallState,
  key: string,
  message: string,
  req: RequestedSchema,
  opts?: ElicitOptions,
  check?: ContentCheck,
): Promise<ElicitOutcome<Content>> {
  // Checked on every era, so a wrong value shows in any test, not only against a 2025-era client.
  if (opts?.timeoutMs !== undefined) checkTimerMs('ctx.elicit / ctx.confirm: opts.timeoutMs', opts.timeoutMs);
  if (!elicitModes(st.era).form)
    throw new InputUnavailableError(
      'the client declared no form-mode elicitation capability, so nothing was asked',
      fieldsOf(req),
      st.howToSupply,
      { elicitation: { form: {} } },
    );
  const judge = (read: Awaited<ReturnType<Awaited<ReturnType<typeof loadElicitResultReader>>>>): string | undefined => {
    if (!read.ok) return read.message;
    return read.result.action === 'accept' && check ? check(read.result.content as Content) : undefined;
  };
  if (st.era.modern) {
    const raw = st.answers[key];
    if (raw !== undefined) {
      const read = (await loadElicitResultReader())(raw, req);
      const reason = judge(read);
      if (reason === undefined && read.ok) return read.result as ElicitOutcome<Content>;
      const n = (st.reasks[key] = (st.reasks[key] ?? 0) + 1);
      delete st.answers[key];
      if (n > st.maxReasks)
        throw new ElicitationAnswerError(`invalid answer after ${st.maxReasks} re-asks: ${reason}`, read.ok ? [] : read.issues);
      throw suspend(st, {
        [key]: inputRequired.elicit({ message: `${message}\n\nPlease correct: ${reason}`, requestedSchema: req as never }),
      });
    }
    throw suspend(st, { [key]: inputRequired.elicit({ message, requestedSchema: req as never }) });
  }
  let asked = message;
  for (let n = 0; ; n++) {
    const params: Record<string, unknown> = { message: asked, requestedSchema: req };
    if (st.era.revision !== '2025-06-18') params.mode = 'form';
    const raw = await push<unknown>(
      st,
      'elicitation/create',
      params,
      opts?.timeoutMs ?? st.elicitationTimeoutMs,
      'elicitation',
      LENIENT_ELICIT,
    );
    const read = (await loadElicitResultReader())(raw, req);
    if (!read.ok) throw new ElicitationAnswerError(`invalid elicitation answer (-32602): ${read.message}`, read.issues);
    const reason = judge(read);
    if (reason === undefined) return read.result as ElicitOutcome<Content>;
    if (n >= st.maxReasks) throw new ElicitationAnswerError(`invalid answer after ${st.maxReasks} re-asks: ${reason}`, []);
    asked = `${message}\n\nPlease correct: ${reason}`;
  }
}

function flowFor(st: CallState, id: string) {
  const f = st.shared.urlFlows.get(id);
  // On 2026-07-28 there is no session: the flow travels in the sealed requestState, bound to the user.
  if (!f || f.user !== st.user || (!st.era.modern && !st.user && f.session !== st.session))
    throw new ElicitationSchemaError(`unknown URL elicitation "${id}" for this user`);
  return f;
}

/**
 * Refuses URLs a server must not send (2025-11-25 elicitation §URL Mode l.347: a valid URL;
 * §Safe URL Handling l.711-733: no credentials in the URL, HTTPS outside development).
 * Allowed: https, and http only for loopback hosts.
 */
export function checkElicitationUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ElicitationSchemaError(
      `elicitUrl: ${JSON.stringify(url)} is not a valid absolute URL; give the full https:// address to open`,
    );
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback))
    throw new ElicitationSchemaError(`elicitUrl: scheme "${u.protocol}" is not allowed; use https (http only for localhost)`);
  if (u.username || u.password)
    throw new ElicitationSchemaError(
      'elicitUrl: the URL carries credentials (user:password@); servers MUST NOT put credentials in elicitation URLs',
    );
}

async function elicitUrl(st: CallState, message: string, url: string, require: boolean, name?: string): Promise<UrlOutcome> {
  checkElicitationUrl(url);
  const key = keyFor(st, 'u', name);
  if (!elicitModes(st.era).url)
    throw new InputUnavailableError(
      st.era.revision === '2025-06-18' && st.era.elicitation
        ? 'revision 2025-06-18 has no URL-mode elicitation (added in 2025-11-25), so nothing was asked'
        : 'the client declared no URL-mode elicitation capability, so nothing was asked',
      [{ name: 'url', description: message }],
      st.howToSupply,
      { elicitation: { url: {} } },
    );
  const id = (st.ids[key] ??= randomUUID());
  if (!st.shared.urlFlows.has(id))
    st.shared.addUrlFlow(id, { user: st.user, session: st.session, complete: false, createdAt: st.shared.now() });
  if (st.era.modern) {
    const raw = st.answers[key];
    if (raw === undefined) throw suspend(st, { [key]: inputRequired.elicitUrl({ message, url }) });
    const read = (await loadElicitResultReader())(raw);
    if (!read.ok) throw new ElicitationAnswerError(read.message, read.issues);
    return { action: read.result.action, elicitationId: id };
  }
  const flow = st.shared.urlFlows.get(id)!;
  const server = st.mcp.server;
  flow.notify = () => server.createElicitationCompletionNotifier(id)();
  if (require) throw new UrlElicitationRequiredError([{ mode: 'url', message, url, elicitationId: id }], message);
  const raw = await push<unknown>(
    st,
    'elicitation/create',
    { mode: 'url', message, url, elicitationId: id },
    st.elicitationTimeoutMs,
    'URL elicitation',
    LENIENT_ELICIT,
  );
  const read = (await loadElicitResultReader())(raw);
  if (!read.ok) throw new ElicitationAnswerError(read.message, read.issues);
  return { action: read.result.action, elicitationId: id };
}

async function roots(st: CallState, name?: string): Promise<ParleyRoot[]> {
  const key = keyFor(st, 'r', name);
  if (!st.era.caps.roots)
    throw new InputUnavailableError(
      'the client declared no roots capability, so roots/list was not sent',
      [{ name: 'roots', description: 'directories to work in' }],
      'Pass paths as tool arguments or in the server configuration.',
      { roots: {} },
    );
  if (st.era.modern) {
    const raw = st.answers[key];
    if (raw === undefined) throw suspend(st, { [key]: inputRequired.listRoots() });
    return parseRootsList(raw).roots;
  }
  if (st.rootsCache.value) return st.rootsCache.value;
  const raw = await push<unknown>(st, 'roots/list', undefined, st.rootsTimeoutMs, 'roots/list request', LENIENT_ROOTS);
  return (st.rootsCache.value = parseRootsList(raw).roots);
}

/** Lenient result schema for a pushed `sampling/createMessage`: read below, so a bad reply is named. */
const LENIENT_SAMPLE = z.looseObject({});

/** A `CreateMessageResult` as far as the toolkit relies on it: a role and a content object or array. */
function readSample(raw: unknown, key: string): CreateMessageResult {
  const r = raw as { role?: unknown; content?: unknown } | null;
  if (!r || typeof r !== 'object' || (r.role !== 'assistant' && r.role !== 'user') || !r.content || typeof r.content !== 'object') {
    throw new ElicitationAnswerError(
      `the client answered the sampling request ${key} with ${JSON.stringify(raw)?.slice(0, 80)}; expected a CreateMessageResult {role, content, model}`,
      [],
    );
  }
  return raw as CreateMessageResult;
}

async function sample(st: CallState, params: CreateMessageRequestParams, opts?: ElicitOptions): Promise<CreateMessageResult> {
  if (opts?.timeoutMs !== undefined) checkTimerMs('ctx.sample: opts.timeoutMs', opts.timeoutMs);
  const key = keyFor(st, 's', opts?.key);
  if (!st.era.caps.sampling)
    throw new InputUnavailableError(
      'the client declared no sampling capability, so sampling/createMessage was not sent',
      [{ name: 'sampling', description: "a completion from the client's model" }],
      st.howToSupply,
      { sampling: {} },
    );
  if (st.era.modern) {
    const raw = st.answers[key];
    if (raw === undefined) throw suspend(st, { [key]: inputRequired.createMessage(params) });
    return readSample(raw, key);
  }
  return readSample(
    await push<unknown>(
      st,
      'sampling/createMessage',
      params as never,
      opts?.timeoutMs ?? st.elicitationTimeoutMs,
      'sampling request',
      LENIENT_SAMPLE,
    ),
    key,
  );
}

/** Builds the ctx for one call. */
export function makeContext(st: CallState): ParleyContext {
  /** `ctx.elicit` with an extra check; returns the outcome and the key it was asked under. */
  const ask = async (message: string, schema: z.ZodObject | RequestedSchema, opts?: ElicitOptions, extra?: ContentCheck) => {
    const req = prepare(schema, st, false);
    const zod = schema instanceof z.ZodType ? (schema as z.ZodObject) : undefined;
    // The zod schema's own checks (refine, stricter formats, transforms) run on every accepted answer;
    // one the wire form could not express is asked again with zod's reason, never dropped.
    const check: ContentCheck | undefined =
      zod || extra
        ? (content) => {
            if (zod) {
              const parsed = zod.safeParse(content);
              if (!parsed.success) return zodReason(parsed.error.issues);
            }
            return extra?.(content);
          }
        : undefined;
    const key = keyFor(st, 'e', opts?.key);
    const out = await elicitForm(st, key, message, req, opts, check);
    if (out.action !== 'accept' || !zod) return { out, key };
    return { out: { action: 'accept' as const, content: zod.parse(out.content) }, key };
  };
  const ctx: ParleyContext = {
    mcp: st.sdk,
    modern: st.era.modern,
    user: st.user,
    elicit: (async (message: string, schema: z.ZodObject | RequestedSchema, opts?: ElicitOptions) =>
      (await ask(message, schema, opts)).out) as ParleyContext['elicit'],
    confirm: async (message, opts) => {
      const req = prepare({ type: 'object', properties: {} }, st, true);
      return (await elicitForm(st, keyFor(st, 'e', opts?.key), message, req, opts)).action === 'accept';
    },
    sample: (params, opts) => sample(st, params, opts),
    all: (async (asks: ReadonlyArray<() => Promise<unknown>>) => {
      const results: unknown[] = [];
      let pending: Record<string, InputRequest> | undefined;
      for (const ask of asks) {
        try {
          results.push(await ask());
        } catch (e) {
          // 2026-07-28: collect this round's requests instead of stopping at the first.
          if (!(e instanceof Suspend)) throw e;
          pending = { ...pending, ...e.requests };
          results.push(undefined);
        }
      }
      if (pending) throw new Suspend(pending);
      return results;
    }) as ParleyContext['all'],
    supports: (kind) => {
      const modes = elicitModes(st.era);
      if (kind === 'elicitation') return modes.form;
      if (kind === 'elicitation.url') return modes.url;
      return !!st.era.caps[kind];
    },
    elicitUrl: (message, url, opts) => elicitUrl(st, message, url, false, opts?.key),
    requireUrlElicitation: (message, url) => elicitUrl(st, message, url, true),
    completeUrlElicitation: async (id) => {
      const f = flowFor(st, id);
      f.complete = true;
      if (!st.era.modern) await f.notify?.();
    },
    isUrlElicitationComplete: (id) => {
      try {
        return flowFor(st, id).complete;
      } catch {
        return false; // unknown, or another user's flow
      }
    },
    roots: (opts) => roots(st, opts?.key),
    resolveInRoots: async (p, o) => resolveInRoots(p, await roots(st), o),
    config: async (def) => {
      const key = configKey(def, st.user, st.session);
      // 2026-07-28: the handler re-runs each round, and another call of this session may write the
      // shared cache between two rounds. Pin what this call read in its first round (sealed in the
      // requestState), so it asks the same fields under the same keys and its own answer wins.
      const slot = st.era.modern ? `c${st.seq++}` : undefined;
      const cached = slot
        ? ((st.pins[slot] ??= { ...(st.shared.config.get(key) ?? {}) }) as Record<string, unknown>)
        : (st.shared.config.get(key) ?? {});
      const values: Record<string, unknown> = { ...def.defaults, ...cached };
      const missing = missingFields(def, values);
      let answered: string | undefined;
      if (missing.length) {
        // From the plain shape: zod refuses .pick() on an object with refinements; those run below.
        const pick = z.object(def.schema.shape).pick(Object.fromEntries(missing.map((k) => [k, true])) as never) as z.ZodObject;
        // Whole-configuration rules (def.schema's refinements) that fail on an asked field re-ask the form.
        const whole: ContentCheck = (content) => {
          const r = def.schema.safeParse({ ...values, ...content });
          const mine = r.success ? [] : r.error.issues.filter((i) => i.path.length === 0 || missing.includes(String(i.path[0])));
          return mine.length ? zodReason(mine) : undefined;
        };
        const { out, key: k } = await ask(def.message ?? `Configure ${def.name}`, pick, undefined, whole);
        if (out.action !== 'accept')
          throw new ElicitationRefusedError(out.action, `configuration "${def.name}" (fields: ${missing.join(', ')})`);
        Object.assign(values, out.content);
        answered = k;
      }
      const parsed = def.schema.safeParse(values);
      if (!parsed.success)
        throw new ElicitationAnswerError(`configuration "${def.name}" is invalid: ${zodReason(parsed.error.issues)}`, []);
      // Stored only when a person answered: values supplied by the call (tool arguments passed as
      // defaults) are a one-off override and never become the negotiated configuration on their own.
      // The TTL runs from the answer, not from the last use. On 2026-07-28 only in the round the answer
      // arrived, so a later round of this call does not overwrite a newer answer of another call.
      if (answered !== undefined && (!st.era.modern || st.fresh.has(answered))) {
        st.shared.config.set(key, values, def.ttlMs);
        st.onConfig(def, parsed.data as Record<string, unknown>);
      }
      return parsed.data as never;
    },
    resetConfig: (def) => {
      // 2026-07-28: once per call, in the round that first reaches it (not again in later rounds,
      // which would erase what this call, or another, has stored since).
      if (st.era.modern) {
        const slot = `x${st.seq++}`;
        if (st.pins[slot]) return;
        st.pins[slot] = 1;
      }
      st.shared.config.delete(configKey(def, st.user, st.session));
    },
  };
  return ctx;
}
