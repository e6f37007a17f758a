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
import { inputRequired, UrlElicitationRequiredError, SdkError, ProtocolError } from '@modelcontextprotocol/server';
import type { McpServer, ServerContext, InputRequest } from '@modelcontextprotocol/server';
import type { Content, RequestedSchema } from '../schema/types.js';
import { detectSensitiveFields, lintRequestedSchema, loadElicitResultReader, toRequestedSchema } from './schema-bridge.js';
import { ElicitationAnswerError, ElicitationRefusedError, ElicitationSchemaError, ElicitationTimeoutError, InputUnavailableError } from './errors.js';
import type { NeededField } from './errors.js';
import { elicitModes } from './era.js';
import type { RequestEra } from './era.js';
import { configKey, missingFields } from './config.js';
import type { ConfigDef } from './config.js';
import { parseRootsList, resolveInRoots } from './roots.js';
import type { ParsedRoot } from './roots.js';

/** A client root: wire `uri`/`name` plus the decoded local `path`. */
export type ParleyRoot = ParsedRoot;
import type { Shared } from './shared.js';

/** Result of `ctx.elicit`: `content` is validated and typed. */
export type ElicitOutcome<T> = { action: 'accept'; content: T } | { action: 'decline' } | { action: 'cancel' };

/** Result of `ctx.elicitUrl`: `accept` means consent to open the URL, not completion. */
export interface UrlOutcome {
  action: 'accept' | 'decline' | 'cancel';
  elicitationId: string;
}

/** Options of `ctx.elicit`. */
export interface ElicitOptions {
  /** Per-ask timeout in ms (legacy push only). @default the server's `elicitationTimeoutMs` */
  timeoutMs?: number;
}

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
   * (client cannot elicit: nothing sent), `ElicitationAnswerError` (invalid answer, legacy; on 2026-07-28 the
   * user is asked again), `ElicitationTimeoutError`.
   */
  elicit<S extends z.ZodObject>(message: string, schema: S, opts?: ElicitOptions): Promise<ElicitOutcome<z.infer<S>>>;
  elicit(message: string, schema: RequestedSchema, opts?: ElicitOptions): Promise<ElicitOutcome<Content>>;
  /** Confirm-only prompt (empty `properties`, vector S1): `true` only on accept. */
  confirm(message: string, opts?: ElicitOptions): Promise<boolean>;
  /** URL-mode elicitation (2025-11-25 push with `elicitationId`; 2026-07-28 `input_required`), bound to the user. */
  elicitUrl(message: string, url: string): Promise<UrlOutcome>;
  /** 2025-11-25: throws `-32042 UrlElicitationRequiredError`; 2026-07-28: same as `elicitUrl`. */
  requireUrlElicitation(message: string, url: string): Promise<UrlOutcome>;
  /** Marks a URL flow complete (sends `notifications/elicitation/complete` on 2025-11-25). Only its own user may. */
  completeUrlElicitation(elicitationId: string): Promise<void>;
  /** Whether `completeUrlElicitation` ran for this id. */
  isUrlElicitationComplete(elicitationId: string): boolean;
  /** The client's roots (`file://` only; others dropped). Cached per connection on legacy. */
  roots(): Promise<ParleyRoot[]>;
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
 * must rethrow these, or the 2026-07-28 round never reaches the client.
 * @example try { await ctx.elicit(...) } catch (e) { if (isSuspendSignal(e)) throw e; ... }
 */
export function isSuspendSignal(e: unknown): boolean {
  return e instanceof Suspend;
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
  reasks: Record<string, number>;
  ids: Record<string, string>;
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

async function push<T>(st: CallState, method: string, params: Record<string, unknown> | undefined, timeoutMs: number, what: string, lenient?: z.ZodType): Promise<T> {
  const options = { signal: st.sdk.mcpReq.signal, timeout: timeoutMs };
  // A connection's first server→client request gets JSON-RPC id 0, and SDK v1 clients ignore
  // notifications/cancelled for id 0 (sdk.md §3 #1): the prompt would outlive a cancelled tool call.
  // Spend id 0 on a ping (exempt from SEP-2260 association) once per connection.
  st.idZero.burnt ??= st.sdk.mcpReq.send({ method: 'ping' } as never, { signal: st.sdk.mcpReq.signal, timeout: 5_000 }).then(() => undefined, () => undefined);
  await st.idZero.burnt;
  // While a person answers, tell a client that sent a progressToken that the call is alive, so a host
  // using resetTimeoutOnProgress does not time the tool call out (vector Q1).
  const token = (st.sdk.mcpReq._meta as { progressToken?: string | number } | undefined)?.progressToken;
  let beat = 0;
  const timer = token !== undefined && st.progressIntervalMs > 0
    ? setInterval(() => void st.sdk.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: ++beat, message: `waiting for the user (${what})` } }).catch(() => undefined), st.progressIntervalMs)
    : undefined;
  try {
    if (lenient) return (await st.sdk.mcpReq.send({ method, params } as never, lenient as never, options)) as T;
    return (await st.sdk.mcpReq.send({ method, params } as never, options)) as T;
  } catch (e) {
    if (st.sdk.mcpReq.signal.aborted) throw e; // the tool call itself was cancelled (vector Q3)
    if (e instanceof SdkError && String(e.code) === 'REQUEST_TIMEOUT') throw new ElicitationTimeoutError(timeoutMs, what);
    if (e instanceof ProtocolError) throw new ElicitationAnswerError(`the client answered the ${what} with JSON-RPC error ${e.code}: ${e.message}`, []);
    throw e;
  } finally {
    clearInterval(timer);
  }
}

function prepare(schema: z.ZodObject | RequestedSchema, st: CallState, allowEmpty: boolean): RequestedSchema {
  let req: RequestedSchema;
  try {
    req = schema instanceof z.ZodType ? toRequestedSchema(schema as z.ZodObject, { revision: st.era.revision }) : (schema as RequestedSchema);
  } catch (e) {
    throw new ElicitationSchemaError(`requestedSchema cannot be sent: ${(e as Error).message}`);
  }
  // Sensitive fields get their own error below (pointing to URL mode).
  const errors = lintRequestedSchema(req, { revision: st.era.revision }).filter((i) => i.severity === 'error' && i.code !== 'sensitive-field');
  if (errors.length) throw new ElicitationSchemaError(`requestedSchema is invalid for revision ${st.era.revision}: ${errors.map((i) => `${i.path}: ${i.message}`).join('; ')}`, errors);
  if (!allowEmpty && Object.keys(req.properties ?? {}).length === 0) throw new ElicitationSchemaError('requestedSchema has no properties; use ctx.confirm(message) for a confirm-only prompt');
  const sensitive = detectSensitiveFields(req);
  if (sensitive.length) {
    throw new ElicitationSchemaError(`form-mode elicitation must not ask for sensitive data: ${sensitive.map((s) => `field "${s.field}" (${s.where} matched "${s.matched}")`).join(', ')}; collect it out of band with ctx.elicitUrl(message, url)`);
  }
  return req;
}

async function elicitForm(st: CallState, message: string, req: RequestedSchema, opts?: ElicitOptions): Promise<ElicitOutcome<Content>> {
  const key = `e${st.seq++}`;
  if (!elicitModes(st.era).form) throw new InputUnavailableError('the client declared no form-mode elicitation capability, so nothing was asked', fieldsOf(req), st.howToSupply, { elicitation: { form: {} } });
  if (st.era.modern) {
    const raw = st.answers[key];
    if (raw !== undefined) {
      const read = (await loadElicitResultReader())(raw, req);
      if (read.ok) return read.result as ElicitOutcome<Content>;
      const n = (st.reasks[key] = (st.reasks[key] ?? 0) + 1);
      delete st.answers[key];
      if (n > st.maxReasks) throw new ElicitationAnswerError(`invalid answer after ${st.maxReasks} re-asks: ${read.message}`, read.issues);
      throw new Suspend({ [key]: inputRequired.elicit({ message: `${message}\n\nPlease correct: ${read.message}`, requestedSchema: req as never }) });
    }
    throw new Suspend({ [key]: inputRequired.elicit({ message, requestedSchema: req as never }) });
  }
  const params: Record<string, unknown> = { message, requestedSchema: req };
  if (st.era.revision !== '2025-06-18') params.mode = 'form';
  const raw = await push<unknown>(st, 'elicitation/create', params, opts?.timeoutMs ?? st.elicitationTimeoutMs, 'elicitation', LENIENT_ELICIT);
  const read = (await loadElicitResultReader())(raw, req);
  if (!read.ok) throw new ElicitationAnswerError(`invalid elicitation answer (-32602): ${read.message}`, read.issues);
  return read.result as ElicitOutcome<Content>;
}

function flowFor(st: CallState, id: string) {
  const f = st.shared.urlFlows.get(id);
  // On 2026-07-28 there is no session: the flow travels in the sealed requestState, bound to the user.
  if (!f || f.user !== st.user || (!st.era.modern && !st.user && f.session !== st.session)) throw new ElicitationSchemaError(`unknown URL elicitation "${id}" for this user`);
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
    throw new ElicitationSchemaError(`elicitUrl: ${JSON.stringify(url)} is not a valid absolute URL; give the full https:// address to open`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback)) throw new ElicitationSchemaError(`elicitUrl: scheme "${u.protocol}" is not allowed; use https (http only for localhost)`);
  if (u.username || u.password) throw new ElicitationSchemaError('elicitUrl: the URL carries credentials (user:password@); servers MUST NOT put credentials in elicitation URLs');
}

async function elicitUrl(st: CallState, message: string, url: string, require: boolean): Promise<UrlOutcome> {
  checkElicitationUrl(url);
  const key = `u${st.seq++}`;
  if (!elicitModes(st.era).url) throw new InputUnavailableError('the client declared no URL-mode elicitation capability, so nothing was asked', [{ name: 'url', description: message }], st.howToSupply, { elicitation: { url: {} } });
  const id = (st.ids[key] ??= randomUUID());
  if (!st.shared.urlFlows.has(id)) st.shared.addUrlFlow(id, { user: st.user, session: st.session, complete: false, createdAt: st.shared.now() });
  if (st.era.modern) {
    const raw = st.answers[key];
    if (raw === undefined) throw new Suspend({ [key]: inputRequired.elicitUrl({ message, url }) });
    const read = (await loadElicitResultReader())(raw);
    if (!read.ok) throw new ElicitationAnswerError(read.message, read.issues);
    return { action: read.result.action, elicitationId: id };
  }
  const flow = st.shared.urlFlows.get(id)!;
  const server = st.mcp.server;
  flow.notify = () => server.createElicitationCompletionNotifier(id)();
  if (require) throw new UrlElicitationRequiredError([{ mode: 'url', message, url, elicitationId: id }], message);
  const raw = await push<unknown>(st, 'elicitation/create', { mode: 'url', message, url, elicitationId: id }, st.elicitationTimeoutMs, 'URL elicitation', LENIENT_ELICIT);
  const read = (await loadElicitResultReader())(raw);
  if (!read.ok) throw new ElicitationAnswerError(read.message, read.issues);
  return { action: read.result.action, elicitationId: id };
}

async function roots(st: CallState): Promise<ParleyRoot[]> {
  const key = `r${st.seq++}`;
  if (!st.era.caps.roots) throw new InputUnavailableError('the client declared no roots capability, so roots/list was not sent', [{ name: 'roots', description: 'directories to work in' }], 'Pass paths as tool arguments or in the server configuration.', { roots: {} });
  if (st.era.modern) {
    const raw = st.answers[key];
    if (raw === undefined) throw new Suspend({ [key]: inputRequired.listRoots() });
    return parseRootsList(raw).roots;
  }
  if (st.rootsCache.value) return st.rootsCache.value;
  const raw = await push<unknown>(st, 'roots/list', undefined, st.rootsTimeoutMs, 'roots/list request', LENIENT_ROOTS);
  return (st.rootsCache.value = parseRootsList(raw).roots);
}

/** Builds the ctx for one call. */
export function makeContext(st: CallState): ParleyContext {
  const ctx: ParleyContext = {
    mcp: st.sdk,
    modern: st.era.modern,
    user: st.user,
    elicit: (async (message: string, schema: z.ZodObject | RequestedSchema, opts?: ElicitOptions) => {
      const req = prepare(schema, st, false);
      const out = await elicitForm(st, message, req, opts);
      if (out.action !== 'accept' || !(schema instanceof z.ZodType)) return out;
      const parsed = (schema as z.ZodObject).safeParse(out.content);
      if (!parsed.success) throw new ElicitationAnswerError(`answer does not match the tool's schema: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`, []);
      return { action: 'accept', content: parsed.data };
    }) as ParleyContext['elicit'],
    confirm: async (message, opts) => (await elicitForm(st, message, prepare({ type: 'object', properties: {} }, st, true), opts)).action === 'accept',
    elicitUrl: (message, url) => elicitUrl(st, message, url, false),
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
    roots: () => roots(st),
    resolveInRoots: async (p, o) => resolveInRoots(p, await roots(st), o),
    config: async (def) => {
      const key = configKey(def, st.user, st.session);
      const values: Record<string, unknown> = { ...def.defaults, ...(st.shared.config.get(key) ?? {}) };
      const missing = missingFields(def, values);
      if (missing.length) {
        const pick = def.schema.pick(Object.fromEntries(missing.map((k) => [k, true])) as never) as z.ZodObject;
        const out = await ctx.elicit(def.message ?? `Configure ${def.name}`, pick);
        if (out.action !== 'accept') throw new ElicitationRefusedError(out.action, `configuration "${def.name}" (fields: ${missing.join(', ')})`);
        Object.assign(values, out.content);
      }
      const parsed = def.schema.safeParse(values);
      if (!parsed.success) throw new ElicitationAnswerError(`configuration "${def.name}" is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`, []);
      // Stored only when a person answered: values supplied by the call (tool arguments passed as
      // defaults) are a one-off override and never become the negotiated configuration on their own.
      // The TTL runs from the answer, not from the last use.
      if (missing.length) {
        st.shared.config.set(key, values, def.ttlMs);
        st.onConfig(def, parsed.data as Record<string, unknown>);
      }
      return parsed.data as never;
    },
    resetConfig: (def) => st.shared.config.delete(configKey(def, st.user, st.session)),
  };
  return ctx;
}
