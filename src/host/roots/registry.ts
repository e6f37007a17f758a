/**
 * The host's root registry: which roots exist, for how long, where they came from, whether they are
 * healthy, and which servers may see each of them.
 *
 * Spec: `client/roots.mdx` (2025-06-18, 2025-11-25). Roots on the wire MUST be `file://` (§Data Types);
 * clients MUST only expose roots with appropriate permissions and monitor accessibility (§Security);
 * clients that declared `listChanged` MUST send `notifications/roots/list_changed` when roots change
 * (§Root List Changes). The registry emits `'change'` with the servers whose list changed since they
 * last asked; the host sends the notification to those (legacy eras only: 2026-07-28 removed it).
 *
 * Least privilege ({@link RootRegistry.rootsForServer}): a root goes to the servers that
 * {@link UriRouter.serversFor} routes it to. A root that no route or discovery matches goes to every
 * server when `defaultRootsToAll` is true (the default — a plain single-project setup just works) and
 * to no server when it is false. A route must match the root URI itself; a route for a sub-directory
 * does not grant the parent root.
 * @module
 */
import type { RouteDef } from '../config/types.js';
import type { Scope, Store, StoredRoot } from '../store/types.js';
import { fileUriToPath, isFileUri, normalizeRootUri } from '../../schema/uri.js';
import { checkRootHealth, DEFAULT_HEALTH_TIMEOUT_MS, type RootHealth } from './health.js';
import { UriRouter } from './routing.js';
import { RootWatcher } from './watch.js';

export type RootLifetime = StoredRoot['lifetime'];
export type RootSource = StoredRoot['source'];

/** One registered root. `uri` is in {@link normalizeRootUri} form. */
export interface RegisteredRoot {
  uri: string;
  name?: string;
  lifetime: RootLifetime;
  source: RootSource;
  /** True for non-`file:` schemes: used for routing only, never sent in `roots/list`. */
  virtual: boolean;
  /** Set for `lifetime: 'request'`; {@link RootRegistry.endRequest} removes these. */
  requestId?: string;
  /** Last health check; `undefined` until checked (an unchecked root is exposed). */
  health?: RootHealth;
  /**
   * When set, only servers for which it returns true receive this root (routes and `defaultRootsToAll`
   * are not consulted). Query-result roots use it to reach the servers that consume them
   * (`query-results.ts`). Never persisted.
   */
  audience?: (server: string) => boolean;
}

/** Payload of the `'change'` event. */
export interface RootsChange {
  reason: 'add' | 'update' | 'remove' | 'health' | 'invalidate' | 'routes';
  /** Roots concerned (normalised); empty for routing changes. */
  uris: string[];
  /** Servers whose `rootsForServer` list now differs from the one they last received. */
  servers: string[];
}

/** The three `Store` methods the registry uses (a full `Store` fits). */
export type RootStore = Pick<Store, 'putRoot' | 'deleteRoot' | 'listRoots'>;

export interface RootRegistryOptions {
  /** Persists `app` and `session` roots (not `request` ones, not `source: 'config'` ones). */
  store?: RootStore;
  /** Store scope. @default {tenant:'default', user:'default', session:null} (app roots only). */
  scope?: Scope;
  routes?: RouteDef[];
  /** Unrouted roots go to every server. @default true (the host passes parley.json `rootPolicy.unrouted`) */
  defaultRootsToAll?: boolean;
  /** Health-check period in ms for {@link RootRegistry.startHealthChecks}. @default 30000 */
  healthIntervalMs?: number;
  /** Debounce of file-system events before their check, ms. @default 200 ({@link WATCH_DEBOUNCE_MS}) */
  watchDebounceMs?: number;
  /** Bound on one root's check in ms. @default 2000 */
  healthTimeoutMs?: number;
  /** Clock, epoch ms. @default Date.now */
  now?: () => number;
  /** Told about a store read or write that failed (the registry keeps working in memory). */
  onStoreError?: (err: unknown) => void;
}

/** Options for {@link RootRegistry.add}. */
export interface AddRootOptions {
  name?: string;
  /** @default 'session' */
  lifetime?: RootLifetime;
  /** @default 'user' */
  source?: RootSource;
  requestId?: string;
  /** Only these servers receive the root (see {@link RegisteredRoot.audience}). */
  audience?: (server: string) => boolean;
}

type Listener = (change: RootsChange) => void;

const FAILED = new Set(['missing', 'unreadable', 'timeout']);

/**
 * What one server was last sent (`rootsForServer`) and how its list stands now, kept per root so a
 * mutation costs the roots it touches, not every root: `sent` and `now` map a root URI to its entry
 * (`<insertion stamp> NUL <name>`) in that list. `named` counts roots whose entry is absent from one of
 * the two or differs by name; `restamped` counts roots in both with the same name but re-added since
 * (a new stamp: the list's order may differ). The list differs from the sent one when `named > 0`, or
 * when `restamped > 0` and the two JSON texts differ (checked in full only then).
 */
interface Tracked {
  sent: Map<string, string>;
  json: string;
  now: Map<string, string>;
  named: number;
  restamped: number;
}

/**
 * In-memory root registry with optional persistence. Synchronous mutations; `check()` is async and
 * bounded. Events are delivered synchronously, after the change is applied.
 *
 * @example
 * const reg = new RootRegistry({ routes: config.routes, store });
 * reg.add('file:///home/me/project', { name: 'project', source: 'user' });
 * bindRootsToClient(reg, 'fs', client);           // answers roots/list, sends list_changed
 * reg.startHealthChecks();                        // every 30 s, 2 s bound per root
 */
export class RootRegistry {
  readonly router: UriRouter;
  private readonly roots = new Map<string, RegisteredRoot>();
  /** Servers that asked for their list (`rootsForServer`), with what they were sent; see {@link Tracked}. */
  private readonly tracked = new Map<string, Tracked>();
  /** Insertion stamp per root: lists follow insertion order, so equal stamps mean equal order. */
  private readonly stamps = new Map<string, number>();
  private stamp = 0;
  /** Roots with an `audience`: its answer may change between mutations, so each one re-reads it. */
  private readonly withAudience = new Set<string>();
  private readonly listeners = new Set<Listener>();
  private readonly scope: Scope;
  private readonly defaultRootsToAll: boolean;
  private timer: NodeJS.Timeout | undefined;
  private storeTimer: NodeJS.Timeout | undefined;
  private watcher: RootWatcher | undefined;
  /** Per-root sequence of started checks: an older check's result never overwrites a newer one. */
  private readonly checkSeq = new Map<string, number>();
  private seq = 0;

  /**
   * Resolves once the roots persisted in `opts.store` (app scope, then session scope) are loaded; never
   * rejects. A root added before then wins over a persisted row with the same URI.
   */
  readonly ready: Promise<void>;
  /** Store writes, in order: each waits for the one before (so a delete never overtakes its put). */
  #writes: Promise<void> = Promise.resolve();
  /** Store writes queued so far ({@link syncFromStore} skips a round that saw one start). */
  #writeCount = 0;
  /** Set by {@link close}: a store read still in flight then changes nothing. */
  #closed = false;

  /** Starts loading persisted roots from `opts.store` (see {@link ready}). @throws {RouteError} for bad routes. */
  constructor(private readonly opts: RootRegistryOptions = {}) {
    this.router = new UriRouter(opts.routes ?? []);
    this.scope = opts.scope ?? { tenant: 'default', user: 'default', session: null };
    this.defaultRootsToAll = opts.defaultRootsToAll ?? true;
    this.ready = this.load();
  }

  private async load(): Promise<void> {
    const store = this.opts.store;
    if (!store) return;
    const scopes = [{ ...this.scope, session: null }, ...(this.scope.session === null ? [] : [this.scope])];
    for (const s of scopes) {
      let rows: StoredRoot[];
      try {
        rows = await store.listRoots(s);
      } catch (err) {
        this.opts.onStoreError?.(err);
        continue;
      }
      const loaded: RegisteredRoot[] = [];
      for (const r of rows) {
        try {
          const uri = normalizeRootUri(r.uri);
          if (!this.roots.has(uri)) loaded.push({ uri, name: r.name, lifetime: r.lifetime, source: r.source, virtual: !isFileUri(r.uri) });
        } catch {
          // A corrupt persisted row is skipped rather than blocking start-up.
        }
      }
      for (const r of loaded) if (r.name === undefined) delete r.name;
      if (loaded.length)
        this.mutate(
          'add',
          loaded.map((r) => r.uri),
          () => loaded.forEach((r) => this.put(r)),
        );
    }
  }

  /** Resolves when every store write queued so far has finished (failures go to `onStoreError`). */
  flush(): Promise<void> {
    return this.#writes;
  }

  private write(fn: (store: RootStore) => Promise<unknown>): void {
    const store = this.opts.store;
    if (!store) return;
    this.#writeCount++;
    this.#writes = this.#writes
      .then(() => fn(store))
      .then(
        () => undefined,
        (err: unknown) => this.opts.onStoreError?.(err),
      );
  }

  /** Subscribes to changes; returns the unsubscribe function. Listener errors are swallowed. */
  on(event: 'change', listener: Listener): () => void {
    if (event !== 'change') throw new Error(`RootRegistry emits only 'change', not '${String(event)}'`);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Adds a root or updates its name/lifetime/source. Any scheme is accepted; non-`file:` roots are
   * virtual. A `source: 'config'` root shows over a stored root of the same URI without deleting its
   * store row (the configuration wins while it names the root; the stored copy stays). @returns the
   * registered root. @throws {UriError} for a URI without a scheme or malformed.
   */
  add(uri: string, o: AddRootOptions = {}): RegisteredRoot {
    const key = normalizeRootUri(uri);
    const prev = this.roots.get(key);
    const root: RegisteredRoot = {
      uri: key,
      name: o.name,
      lifetime: o.lifetime ?? 'session',
      source: o.source ?? 'user',
      virtual: !isFileUri(key),
      requestId: o.requestId,
      health: prev?.health,
      audience: o.audience,
    };
    if (root.name === undefined) delete root.name;
    if (root.requestId === undefined) delete root.requestId;
    if (root.audience === undefined) delete root.audience;
    if (
      prev &&
      prev.name === root.name &&
      prev.lifetime === root.lifetime &&
      prev.source === root.source &&
      prev.requestId === root.requestId &&
      prev.audience === root.audience
    )
      return prev;
    this.mutate(prev ? 'update' : 'add', [key], () => {
      // A configuration root over a stored one leaves the stored row alone: the configuration is read
      // anew by every command, and the stored root is a root again once the configuration drops it.
      const old = prev && root.source !== 'config' && this.storeScope(prev);
      if (old) this.write((st) => st.deleteRoot(old, key));
      this.put(root);
      this.persist(root);
    });
    return root;
  }

  /** Removes a root (any spelling of its URI). @returns whether it existed. */
  remove(uri: string): boolean {
    let key: string;
    try {
      key = normalizeRootUri(uri);
    } catch {
      return false;
    }
    const prev = this.roots.get(key);
    if (!prev) return false;
    this.mutate('remove', [key], () => {
      this.drop(key);
      const s = this.storeScope(prev);
      if (s) this.write((st) => st.deleteRoot(s, key));
    });
    return true;
  }

  /** Removes every root added with this `requestId`. @returns how many. */
  endRequest(requestId: string): number {
    const keys = [...this.roots.values()].filter((r) => r.requestId === requestId).map((r) => r.uri);
    if (keys.length) this.mutate('remove', keys, () => keys.forEach((k) => this.drop(k)));
    return keys.length;
  }

  /**
   * Removes every root of `lifetime` (e.g. `'session'` when a session ends: pass `'request'` too).
   * Persisted rows are deleted as well. @returns how many were removed.
   */
  clear(lifetime: RootLifetime): number {
    const gone = [...this.roots.values()].filter((r) => r.lifetime === lifetime);
    if (gone.length) {
      this.mutate(
        'remove',
        gone.map((r) => r.uri),
        () => {
          for (const r of gone) {
            this.drop(r.uri);
            const s = this.storeScope(r);
            if (s) this.write((st) => st.deleteRoot(s, r.uri));
          }
        },
      );
    }
    return gone.length;
  }

  /**
   * {@link add}, then a bounded health check, so a root is validated before any server sees it
   * (spec: clients SHOULD validate root accessibility before exposing). @returns the checked root.
   */
  async addChecked(uri: string, o: AddRootOptions = {}): Promise<RegisteredRoot> {
    const r = this.add(uri, o);
    await this.check(r.uri);
    return this.get(r.uri) ?? r;
  }

  /** All roots, optionally filtered. Returns copies. */
  list(filter: { lifetime?: RootLifetime; source?: RootSource; virtual?: boolean } = {}): RegisteredRoot[] {
    return [...this.roots.values()]
      .filter(
        (r) =>
          (filter.lifetime === undefined || r.lifetime === filter.lifetime) &&
          (filter.source === undefined || r.source === filter.source) &&
          (filter.virtual === undefined || r.virtual === filter.virtual),
      )
      .map((r) => ({ ...r }));
  }

  get(uri: string): RegisteredRoot | undefined {
    try {
      const r = this.roots.get(normalizeRootUri(uri));
      return r && { ...r };
    } catch {
      return undefined;
    }
  }

  /** Servers that serve `uri` (static routes, then discovery). See {@link UriRouter.serversFor}. */
  serversFor(uri: string): string[] {
    return this.router.serversFor(uri);
  }

  /** Replaces static routes; emits `'routes'` for servers whose lists changed. @throws {RouteError} */
  setRoutes(routes: RouteDef[]): void {
    this.mutate('routes', [], () => this.router.setRoutes(routes));
  }

  /** Feeds dynamic discovery for a server (see {@link UriRouter.setDiscovery}); emits `'routes'`. */
  setDiscovery(server: string, d: Parameters<UriRouter['setDiscovery']>[1]): string[] {
    let bad: string[] = [];
    this.mutate('routes', [], () => (bad = this.router.setDiscovery(server, d)));
    return bad;
  }

  /** Forgets a server's discovery (it stopped); emits `'routes'` for servers whose lists changed. */
  clearDiscovery(server: string): void {
    this.mutate('routes', [], () => this.router.removeServer(server));
  }

  /**
   * The `roots/list` answer for `server`: file roots only (virtual roots never go on the wire), minus
   * roots whose last health check failed, routed per the module rules. Records the answer so later
   * changes can name this server in `RootsChange.servers`.
   */
  rootsForServer(server: string): Array<{ uri: string; name?: string }> {
    const out = this.compute(server);
    const sent = new Map(out.map((r) => [r.uri, this.entry(r.uri, r.name)]));
    this.tracked.set(server, { sent, json: JSON.stringify(out), now: new Map(sent), named: 0, restamped: 0 });
    return out;
  }

  /**
   * The list {@link rootsForServer} would answer for `server` now, without recording it as sent (no
   * later change names `server` because of this call).
   */
  listFor(server: string): Array<{ uri: string; name?: string }> {
    return this.compute(server);
  }

  /**
   * Forgets health results (all roots, or one) and tells every server that has received the root to
   * ask again. Use after an out-of-band change (permissions edited, mount re-attached).
   */
  invalidate(uri?: string): void {
    const keys = uri === undefined ? [...this.roots.keys()] : [normalizeRootUri(uri)].filter((k) => this.roots.has(k));
    this.track(keys, () => keys.forEach((k) => delete this.roots.get(k)!.health));
    const servers = [...this.tracked].filter(([, t]) => keys.some((k) => t.sent.has(k))).map(([s]) => s);
    servers.forEach((s) => this.tracked.delete(s));
    this.emit({ reason: 'invalidate', uris: keys, servers });
  }

  /**
   * Checks health now (one root or all), each bounded by `healthTimeoutMs`. A status change emits
   * `'health'`. @returns the results by normalised URI.
   */
  async check(uri?: string): Promise<Map<string, RootHealth>> {
    const keys = uri === undefined ? [...this.roots.keys()] : [normalizeRootUri(uri)].filter((k) => this.roots.has(k));
    const started = keys.map((k) => {
      const n = ++this.seq;
      this.checkSeq.set(k, n);
      return [k, n] as const;
    });
    const results = await Promise.all(
      started.map(
        async ([k, n]) =>
          [
            k,
            await checkRootHealth(k, { timeoutMs: this.opts.healthTimeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS, now: this.opts.now }),
            n,
          ] as const,
      ),
    );
    // A newer check of the same root (started while this one ran) decides; this result is dropped.
    const current = results.filter(([k, , n]) => this.checkSeq.get(k) === n);
    const changed = current.filter(([k, h]) => {
      const r = this.roots.get(k);
      return r !== undefined && r.health?.status !== h.status;
    });
    this.mutate(
      'health',
      changed.map(([k]) => k),
      () => {
        for (const [k, h] of current) {
          const r = this.roots.get(k);
          if (r) r.health = h;
        }
      },
      changed.length > 0,
    );
    this.syncWatcher();
    return new Map(results.map(([k, h]) => [k, h]));
  }

  /**
   * Starts automatic health checks: every `healthIntervalMs` (@default 30000 ms), and, with `watch`
   * (@default true), on file-system events in each `file:` root's parent folder (see `watch.ts`:
   * debounced `watchDebounceMs`, 200 ms). A root whose check fails leaves every server's list; the
   * `'health'` change names the servers that had received it. Timers and watchers are unref'd.
   * Idempotent; {@link close} stops them.
   */
  startHealthChecks(o: { watch?: boolean } = {}): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.check().catch(() => undefined), this.opts.healthIntervalMs ?? 30_000);
    this.timer.unref?.();
    if (o.watch ?? true) {
      this.watcher = new RootWatcher((uri) => void this.check(uri).catch(() => undefined), this.opts.watchDebounceMs);
      this.syncWatcher();
    }
  }

  /**
   * Re-reads the stored app roots every `intervalMs` (the host passes `rootPolicy.storePollMs`, default
   * 2000 ms), so a root another process added to or removed from the same store (`parley roots add` in
   * another terminal, another replica) is seen here: added or removed in memory (no store write) and
   * announced as a `'change'` like any other. A root the configuration names, or one of another lifetime
   * here, is left as it is; a round during which this registry wrote to the store is skipped (its own
   * write may not be visible yet). The timer is unref'd; {@link close} stops it. Idempotent.
   */
  startStoreSync(intervalMs: number): void {
    if (this.storeTimer || !this.opts.store) return;
    let busy = false;
    this.storeTimer = setInterval(() => {
      if (busy) return; // a slow store: one read at a time
      busy = true;
      void this.syncFromStore().finally(() => (busy = false));
    }, intervalMs);
    this.storeTimer.unref?.();
  }

  /** One round of {@link startStoreSync}: never rejects (a failed read goes to `onStoreError`). */
  async syncFromStore(): Promise<void> {
    const store = this.opts.store;
    if (!store) return;
    await this.#writes;
    const writesBefore = this.#writeCount;
    let rows: StoredRoot[];
    try {
      rows = await store.listRoots({ ...this.scope, session: null });
    } catch (err) {
      if (!this.#closed) this.opts.onStoreError?.(err); // a read cut short by close() is no failure
      return;
    }
    if (this.#closed || this.#writeCount !== writesBefore) return;
    const stored = new Map<string, StoredRoot>();
    for (const r of rows) {
      try {
        stored.set(normalizeRootUri(r.uri), r);
      } catch {
        // A corrupt row is skipped, as at start-up.
      }
    }
    const added: RegisteredRoot[] = [];
    for (const [uri, r] of stored) {
      if (this.roots.has(uri)) continue;
      const root: RegisteredRoot = { uri, lifetime: r.lifetime, source: r.source, virtual: !isFileUri(uri) };
      if (r.name !== undefined) root.name = r.name;
      added.push(root);
    }
    const gone = [...this.roots.values()]
      .filter((r) => r.lifetime === 'app' && r.source !== 'config' && !r.audience && !stored.has(r.uri))
      .map((r) => r.uri);
    if (added.length)
      this.mutate(
        'add',
        added.map((r) => r.uri),
        () => added.forEach((r) => this.put(r)),
      );
    if (gone.length) this.mutate('remove', gone, () => gone.forEach((u) => this.drop(u)));
    if (added.length) await this.check(added.length === 1 ? added[0].uri : undefined).catch(() => undefined);
  }

  /** Number of parent folders watched for root health (0 without {@link startHealthChecks}). */
  get watchedFolders(): number {
    return this.watcher?.size ?? 0;
  }

  /** Stops periodic checks and file-system watchers, and drops listeners. */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    clearInterval(this.storeTimer);
    this.storeTimer = undefined;
    this.#closed = true;
    this.watcher?.close();
    this.watcher = undefined;
    this.listeners.clear();
  }

  /**
   * Tells the watcher about added or removed roots one by one (a full {@link syncWatcher} walks every
   * root: one per added root made adding N roots quadratic). A removed root is no longer in `roots`.
   */
  private watchRoots(reason: 'add' | 'remove', uris: string[]): void {
    if (!this.watcher) return;
    const platform = process.platform === 'win32' ? 'win32' : 'posix';
    for (const uri of uris) {
      if (!isFileUri(uri) || (reason === 'add' && !this.roots.has(uri))) continue;
      let path: string;
      try {
        path = fileUriToPath(uri, { platform });
      } catch {
        continue; // not a local path: the periodic check reports it
      }
      if (reason === 'add') this.watcher.add(uri, path);
      else this.watcher.remove(uri, path);
    }
  }

  private syncWatcher(): void {
    if (!this.watcher) return;
    const platform = process.platform === 'win32' ? 'win32' : 'posix';
    const roots: Array<{ uri: string; path: string }> = [];
    for (const r of this.roots.values()) {
      if (r.virtual) continue;
      try {
        roots.push({ uri: r.uri, path: fileUriToPath(r.uri, { platform }) });
      } catch {
        // not a local path: the periodic check reports it
      }
    }
    this.watcher.sync(roots);
  }

  private compute(server: string): Array<{ uri: string; name?: string }> {
    const out: Array<{ uri: string; name?: string }> = [];
    for (const r of this.roots.values()) {
      if (this.includes(r, server)) out.push(r.name === undefined ? { uri: r.uri } : { uri: r.uri, name: r.name });
    }
    return out;
  }

  /** Whether `server`'s `roots/list` holds `r` (the module rules: file root, healthy, audience or route). */
  private includes(r: RegisteredRoot, server: string): boolean {
    if (r.virtual || (r.health && FAILED.has(r.health.status))) return false;
    if (r.audience) return r.audience(server);
    const routed = this.router.serversFor(r.uri);
    return routed.length ? routed.includes(server) : this.defaultRootsToAll;
  }

  /** A root's entry in a tracked list: its insertion stamp and name (see {@link Tracked}). */
  private entry(uri: string, name: string | undefined): string {
    return `${this.stamps.get(uri)}\0${name === undefined ? '\u0001' : name}`;
  }

  /**
   * Applies `apply`, then brings every tracked server's `now` up to date for the roots in `uris` (and
   * the roots with an audience), or for every root when `uris` is `'all'` (a routing change). Cost: the
   * roots touched times the tracked servers.
   */
  private track(uris: readonly string[] | 'all', apply: () => void): void {
    apply();
    if (this.tracked.size === 0) return;
    const touched = uris === 'all' ? undefined : new Set([...uris, ...this.withAudience]);
    if (touched === undefined) {
      for (const [server, t] of this.tracked) {
        t.now = new Map();
        t.named = 0;
        t.restamped = 0;
        for (const r of this.roots.values()) if (this.includes(r, server)) t.now.set(r.uri, this.entry(r.uri, r.name));
        for (const u of new Set([...t.sent.keys(), ...t.now.keys()])) this.count(t, u, 1);
      }
      return;
    }
    for (const [server, t] of this.tracked) {
      for (const u of touched) {
        const r = this.roots.get(u);
        const next = r && this.includes(r, server) ? this.entry(u, r.name) : undefined;
        if (next === t.now.get(u)) continue;
        this.count(t, u, -1);
        if (next === undefined) t.now.delete(u);
        else t.now.set(u, next);
        this.count(t, u, 1);
      }
    }
  }

  /** Adds (`sign` 1) or takes away (-1) root `u`'s part in `t.named` / `t.restamped`. */
  private count(t: Tracked, u: string, sign: 1 | -1): void {
    const sent = t.sent.get(u);
    const now = t.now.get(u);
    if (sent === now) return;
    if (sent === undefined || now === undefined || sent.slice(sent.indexOf('\0')) !== now.slice(now.indexOf('\0'))) t.named += sign;
    else t.restamped += sign;
  }

  /** Whether `server`'s list now differs from the one it was last sent. */
  private differs(server: string, t: Tracked): boolean {
    if (t.named > 0) return true;
    return t.restamped > 0 && JSON.stringify(this.compute(server)) !== t.json;
  }

  private mutate(reason: RootsChange['reason'], uris: string[], apply: () => void, emit = true): void {
    this.track(reason === 'routes' ? 'all' : uris, apply);
    if (reason === 'add' || reason === 'remove') this.watchRoots(reason, uris);
    if (!emit) return;
    const servers = [...this.tracked].filter(([s, t]) => this.differs(s, t)).map(([s]) => s);
    this.emit({ reason, uris, servers });
  }

  private emit(change: RootsChange): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch {
        // A listener's failure must not break the registry or other listeners.
      }
    }
  }

  private put(r: RegisteredRoot): void {
    if (!this.roots.has(r.uri)) this.stamps.set(r.uri, ++this.stamp);
    this.roots.set(r.uri, r);
    if (r.audience) this.withAudience.add(r.uri);
    else this.withAudience.delete(r.uri);
  }

  private drop(uri: string): void {
    this.roots.delete(uri);
    this.stamps.delete(uri);
    this.withAudience.delete(uri);
  }

  private storeScope(r: RegisteredRoot): Scope | undefined {
    if (r.lifetime === 'request' || r.source === 'config' || r.audience) return undefined;
    if (r.lifetime === 'app') return { ...this.scope, session: null };
    return this.scope.session === null ? undefined : this.scope;
  }

  private persist(r: RegisteredRoot): void {
    const s = this.storeScope(r);
    if (s) this.write((st) => st.putRoot({ scope: s, uri: r.uri, name: r.name, lifetime: r.lifetime, source: r.source }));
  }
}
