/**
 * Query-result roots (configuration essay §5.2 "查询结果根", §7.2): a query's result set becomes a
 * temporary root that later analysis tools mount, without querying again and without a copy of the
 * querying server. The host hands the result over:
 *
 * 1. A server that **produces** results declares the URI templates of its result resources in
 *    `capabilities.experimental['parley/queryResultRoots'] = { produces: ['sales://results/{id}'] }`.
 *    A server that **consumes** them declares `{ consumes: true }` in the same capability.
 * 2. When a producer's tool result links (`resource_link`) to a URI matching one of its declared
 *    templates, the host reads that resource from the producer (`resources/read`, bounded by
 *    {@link QUERY_RESULT_READ_TIMEOUT_MS} and {@link MAX_QUERY_RESULT_BYTES}), writes its content to
 *    `<dir>/<n>/result.json` (`.csv` for `text/csv`, `.txt` otherwise; folder 0700, file 0600) and
 *    registers the folder as a `file://` root named with the result's URI (`name: 'sales://results/…'`).
 *    Roots on the wire stay `file://` (roots.mdx §Data Types) on every revision, and on 2026-07-28 they
 *    travel as `roots/list` input requests.
 * 3. Only consumers receive these roots (least privilege, roots.mdx §Security): the root's audience is
 *    "servers whose capabilities declare `consumes`". The producer and every other server never see them.
 * 4. A call to a consumer whose top-level string argument is a producer's result URI not captured yet
 *    (e.g. a result from before a restart, which the producer kept) is captured first, then called.
 *    A producer declares its templates only once it runs, so when no running server's templates match
 *    (e.g. `parley call charts …` in a new process), the host first starts the configured servers that
 *    have not run yet — the one named like the URI's scheme first, at most
 *    {@link MAX_PRODUCER_STARTS} (default 8), in parallel, waiting at most {@link PRODUCER_START_TIMEOUT_MS}
 *    (default 10000 ms) for them — and then looks again.
 *
 * Lifetime: the host session. At most {@link MAX_QUERY_RESULT_ROOTS} (default 20) are kept; the oldest
 * root and its files go first. `close()` removes the folder. Never persisted, never part of presets.
 * @module
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/client';
import type { RootRegistry } from './registry.js';
import { uriTemplateToRegExp, type TemplateMatcher } from './routing.js';

/** The experimental capability both roles declare. */
export const QUERY_RESULT_ROOTS_CAPABILITY = 'parley/queryResultRoots';
/** Largest result content written to a query-result root, bytes (UTF-8 text or decoded blob). */
export const MAX_QUERY_RESULT_BYTES = 10_000_000;
/** Bound on reading one result from its producer, ms. */
export const QUERY_RESULT_READ_TIMEOUT_MS = 10_000;
/** Query-result roots kept per host; the oldest is removed first. */
export const MAX_QUERY_RESULT_ROOTS = 20;
/** Servers that have not run yet started to find the producer of an uncaptured result URI. */
export const MAX_PRODUCER_STARTS = 8;
/** Bound on waiting for those servers to start, ms (each start is also bounded by its startup timeout). */
export const PRODUCER_START_TIMEOUT_MS = 10_000;

/** What a server declared in {@link QUERY_RESULT_ROOTS_CAPABILITY}; unknown shapes are ignored. */
export function queryResultRole(capabilities: unknown): { produces: string[]; consumes: boolean } {
  const exp = (capabilities as { experimental?: Record<string, unknown> } | undefined)?.experimental;
  const v = exp?.[QUERY_RESULT_ROOTS_CAPABILITY] as { produces?: unknown; consumes?: unknown } | undefined;
  const produces = Array.isArray(v?.produces) ? v.produces.filter((t): t is string => typeof t === 'string') : [];
  return { produces, consumes: v?.consumes === true };
}

/** The parts of the host the capture needs. */
export interface QueryResultDeps {
  roots: RootRegistry;
  /** Capabilities of a connected server, `undefined` before it first connects. */
  capabilities(server: string): unknown;
  /** Starts a lazy server (so its capabilities are known). */
  ensureRunning(server: string): Promise<void>;
  /** Resolves when the `notifications/roots/list_changed` sent so far have gone out (2025 eras). */
  announced?(): Promise<void>;
  /** Names of every configured server. */
  names(): string[];
  readResource(server: string, uri: string, signal: AbortSignal): Promise<ReadResourceResult>;
  log?: (level: 'warn', message: string) => void;
}

export interface QueryResultRootsOptions {
  /** Folder for the result files. @default a new `parley-query-results-*` folder in the OS temp dir */
  dir?: string;
  /** @default MAX_QUERY_RESULT_ROOTS */
  maxRoots?: number;
  /** @default MAX_QUERY_RESULT_BYTES */
  maxBytes?: number;
  /** @default QUERY_RESULT_READ_TIMEOUT_MS */
  readTimeoutMs?: number;
  /** @default MAX_PRODUCER_STARTS */
  maxProducerStarts?: number;
  /** @default PRODUCER_START_TIMEOUT_MS */
  producerStartTimeoutMs?: number;
}

/** One captured result: its resource URI and the `file://` root that holds it. */
export interface QueryResultRoot {
  resource: string;
  root: string;
  file: string;
}

export class QueryResultRoots {
  readonly #deps: QueryResultDeps;
  readonly #opts: Required<Omit<QueryResultRootsOptions, 'dir'>>;
  #dir: string | undefined;
  readonly #byResource = new Map<string, QueryResultRoot>();
  readonly #matchers = new Map<string, TemplateMatcher | undefined>();
  #n = 0;

  constructor(
    deps: QueryResultDeps,
    private readonly options: QueryResultRootsOptions = {},
  ) {
    this.#deps = deps;
    this.#opts = {
      maxRoots: options.maxRoots ?? MAX_QUERY_RESULT_ROOTS,
      maxBytes: options.maxBytes ?? MAX_QUERY_RESULT_BYTES,
      readTimeoutMs: options.readTimeoutMs ?? QUERY_RESULT_READ_TIMEOUT_MS,
      maxProducerStarts: options.maxProducerStarts ?? MAX_PRODUCER_STARTS,
      producerStartTimeoutMs: options.producerStartTimeoutMs ?? PRODUCER_START_TIMEOUT_MS,
    };
  }

  /** Captured results, oldest first. */
  list(): QueryResultRoot[] {
    return [...this.#byResource.values()];
  }

  /** Whether `server` receives query-result roots (it declared `consumes`). */
  isConsumer(server: string): boolean {
    return queryResultRole(this.#deps.capabilities(server)).consumes;
  }

  /** The connected server whose declared `produces` templates match `uri`, if any (a lazy producer that never ran is not known). */
  producerOf(uri: string): string | undefined {
    for (const name of this.#deps.names()) {
      const { produces } = queryResultRole(this.#deps.capabilities(name));
      if (produces.some((t) => this.#matcher(t)?.test(uri))) return name;
    }
    return undefined;
  }

  /** After a tool call of `server`: captures every linked result that `server` declared it produces. */
  async afterCall(server: string, result: CallToolResult): Promise<void> {
    const { produces } = queryResultRole(this.#deps.capabilities(server));
    if (produces.length === 0 || result.isError || !Array.isArray(result.content)) return;
    for (const c of result.content) {
      if (c.type !== 'resource_link' || typeof c.uri !== 'string') continue;
      if (produces.some((t) => this.#matcher(t)?.test(c.uri))) await this.capture(server, c.uri);
    }
    // A consumer that cached its roots (2025 eras) is told before anyone can ask it to chart the result.
    await this.#deps.announced?.();
  }

  /** Before a call to a consumer: captures any top-level string argument that is an uncaptured result URI. */
  async beforeCall(server: string, args: Record<string, unknown>): Promise<void> {
    const wanted = Object.values(args).filter(
      (v): v is string =>
        typeof v === 'string' && v.length <= 2048 && !this.#live(v) && /^[a-z][a-z0-9+.-]*:\/\//i.test(v) && !/^file:/i.test(v),
    );
    if (wanted.length === 0) return;
    // A lazy consumer that has not run yet: start it (the call would) so its capabilities are known.
    if (this.#deps.capabilities(server) === undefined) await this.#deps.ensureRunning(server).catch(() => undefined);
    if (!this.isConsumer(server)) return;
    if (wanted.some((v) => !this.producerOf(v))) await this.#startPossibleProducers(server, wanted);
    for (const v of wanted) {
      const producer = this.producerOf(v);
      if (producer && producer !== server) await this.capture(producer, v);
    }
    await this.#deps.announced?.();
  }

  /**
   * Reads `uri` from `producer` and registers it as a query-result root (replacing an earlier capture of
   * the same URI). Failures are logged, never thrown: the consumer then says the result is missing.
   */
  async capture(producer: string, uri: string): Promise<QueryResultRoot | undefined> {
    let read: ReadResourceResult;
    try {
      read = await this.#deps.readResource(producer, uri, AbortSignal.timeout(this.#opts.readTimeoutMs));
    } catch (e) {
      this.#deps.log?.('warn', `query-result root ${uri}: reading it from ${producer} failed: ${(e as Error).message}`);
      return undefined;
    }
    const content = read.contents?.[0] as { text?: unknown; blob?: unknown; mimeType?: unknown } | undefined;
    const bytes =
      typeof content?.text === 'string'
        ? Buffer.from(content.text, 'utf8')
        : typeof content?.blob === 'string'
          ? Buffer.from(content.blob, 'base64')
          : undefined;
    if (!bytes) {
      this.#deps.log?.('warn', `query-result root ${uri}: ${producer} returned no text or blob content`);
      return undefined;
    }
    if (bytes.length > this.#opts.maxBytes) {
      this.#deps.log?.(
        'warn',
        `query-result root ${uri}: ${bytes.length} bytes is over the ${this.#opts.maxBytes}-byte limit; not handed over`,
      );
      return undefined;
    }
    const mime = typeof content?.mimeType === 'string' ? content.mimeType : '';
    const ext = /json/i.test(mime) ? 'json' : /csv/i.test(mime) ? 'csv' : 'txt';
    const folder = join(this.#folder(), String(++this.#n));
    mkdirSync(folder, { mode: 0o700 });
    const file = join(folder, `result.${ext}`);
    writeFileSync(file, bytes, { mode: 0o600 });
    const root = pathToFileURL(folder).href;
    const prev = this.#byResource.get(uri);
    if (prev) this.#drop(prev);
    const entry = { resource: uri, root, file };
    this.#byResource.set(uri, entry);
    this.#deps.roots.add(root, { name: uri, lifetime: 'session', source: 'tool', audience: (s) => this.isConsumer(s) });
    while (this.#byResource.size > this.#opts.maxRoots) this.#drop(this.#byResource.values().next().value as QueryResultRoot);
    return entry;
  }

  /**
   * Starts servers that have not run yet (so their `produces` templates become known), those named like
   * a wanted URI's scheme first; at most `maxProducerStarts`, bounded by `producerStartTimeoutMs`.
   * Start failures are ignored: the consumer then says the result is missing.
   */
  async #startPossibleProducers(consumer: string, wanted: string[]): Promise<void> {
    const schemes = new Set(wanted.map((v) => v.slice(0, v.indexOf(':')).toLowerCase()));
    const idle = this.#deps.names().filter((n) => n !== consumer && this.#deps.capabilities(n) === undefined);
    const candidates = [...idle.filter((n) => schemes.has(n.toLowerCase())), ...idle.filter((n) => !schemes.has(n.toLowerCase()))].slice(
      0,
      this.#opts.maxProducerStarts,
    );
    if (candidates.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.#opts.producerStartTimeoutMs);
      timer.unref?.();
    });
    const starts = Promise.allSettled(candidates.map((n) => this.#deps.ensureRunning(n)));
    await Promise.race([starts, bound]).finally(() => clearTimeout(timer));
  }

  /** Removes every query-result root and the folder. */
  close(): void {
    for (const e of [...this.#byResource.values()]) this.#drop(e);
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
  }

  /** Captured and its root still registered (a person may remove it in the console's Roots panel). */
  #live(resource: string): boolean {
    const e = this.#byResource.get(resource);
    return e !== undefined && this.#deps.roots.get(e.root) !== undefined;
  }

  #drop(e: QueryResultRoot): void {
    this.#byResource.delete(e.resource);
    this.#deps.roots.remove(e.root);
    rmSync(join(e.file, '..'), { recursive: true, force: true });
  }

  #folder(): string {
    if (!this.#dir) {
      if (this.options.dir) {
        mkdirSync(this.options.dir, { recursive: true, mode: 0o700 });
        this.#dir = mkdtempSync(join(this.options.dir, 'session-'));
      } else this.#dir = mkdtempSync(join(tmpdir(), 'parley-query-results-'));
    }
    return this.#dir;
  }

  #matcher(template: string): TemplateMatcher | undefined {
    if (!this.#matchers.has(template)) this.#matchers.set(template, uriTemplateToRegExp(template));
    return this.#matchers.get(template);
  }
}
