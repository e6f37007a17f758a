/**
 * File-system events for root health (spec: clients MUST monitor root accessibility, `client/roots.mdx`
 * §Security Considerations). Each `file:` root's parent folder, and every folder above it, is watched
 * with `fs.watch` (non-recursive: inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW on
 * Windows); an event naming the entry on the root's path (the root itself in its parent, the parent in
 * the grandparent, …: deleted, created, renamed, permissions changed) triggers a check of that root
 * after {@link WATCH_DEBOUNCE_MS}. So renaming or deleting a folder above a root, or making a missing
 * parent again, is noticed at once, not at the next periodic check. One watcher serves every root
 * below the same folder; at most {@link MAX_WATCHERS} folders are watched, parents before the folders
 * above them (the rest rely on the periodic checks).
 *
 * Where the platform gives no events (a folder that does not exist yet, a network mount without
 * notifications, watcher limits reached), the registry's periodic check still runs; `sync` is called
 * again after each check, so a folder that comes back is watched again. Watchers are unref'd: they
 * never keep a process alive.
 * @module
 */
import { statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** Quiet time before an event's check runs, ms (a `rm -rf` or `mkdir -p` is several events). */
export const WATCH_DEBOUNCE_MS = 200;
/** Most parent folders watched at once. */
export const MAX_WATCHERS = 256;

interface Watched {
  watcher: FSWatcher;
  /** The parent's inode when watched: a parent deleted and made again is a new folder to watch. */
  ino: number;
  /** Entry name in the parent → root URIs with that entry. */
  entries: Map<string, Set<string>>;
}

/** Watches the parents (and the folders above them) of a set of root paths and calls `onChange(uri)` (debounced) when one changes. */
export class RootWatcher {
  readonly #byParent = new Map<string, Watched>();
  /** Every root's parent → entry name → root URIs, watched or not (what `sync` last got, kept by `add`/`remove`). */
  #wanted = new Map<string, Map<string, Set<string>>>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  #closed = false;

  constructor(
    private readonly onChange: (uri: string) => void,
    private readonly debounceMs = WATCH_DEBOUNCE_MS,
  ) {}

  /** Number of folders being watched (parents of roots and the folders above them). */
  get size(): number {
    return this.#byParent.size;
  }

  /**
   * Makes the watched set match `roots` (`path` is the local path of a `file:` root): the parents and the
   * folders above them are watched when they exist, folders no root needs are unwatched. Never throws.
   */
  sync(roots: Array<{ uri: string; path: string }>): void {
    if (this.#closed) return;
    const want = new Map<string, Map<string, Set<string>>>();
    const need = (folder: string, name: string, uri: string) => {
      let entries = want.get(folder);
      if (!entries) want.set(folder, (entries = new Map()));
      if (!entries.has(name)) entries.set(name, new Set());
      entries.get(name)!.add(uri);
    };
    // Parents first, then the folders above them: when MAX_WATCHERS is reached, a root's own entry wins.
    for (const r of roots) {
      const parent = dirname(r.path);
      if (parent !== r.path) need(parent, basename(r.path), r.uri); // the file-system root has no parent
    }
    for (const r of roots) {
      let below = dirname(r.path);
      for (let folder = dirname(below); folder !== below; below = folder, folder = dirname(folder)) need(folder, basename(below), r.uri);
    }
    this.#wanted = want;
    for (const [parent, w] of this.#byParent) {
      if (!want.has(parent)) {
        w.watcher.close();
        this.#byParent.delete(parent);
      }
    }
    for (const parent of want.keys()) this.#arm(parent);
  }

  /**
   * One root more (`path` its local path): what `sync` with it added would do, for its parent only
   * (cost independent of how many roots there are). Never throws.
   */
  add(uri: string, path: string): void {
    if (this.#closed) return;
    const parent = dirname(path);
    if (parent === path) return;
    let entries = this.#wanted.get(parent);
    if (!entries) this.#wanted.set(parent, (entries = new Map()));
    const name = basename(path);
    let set = entries.get(name);
    if (!set) entries.set(name, (set = new Set()));
    set.add(uri);
    this.#arm(parent);
  }

  /** One root fewer: what `sync` without it would do, for its parent only. Never throws. */
  remove(uri: string, path: string): void {
    if (this.#closed) return;
    const parent = dirname(path);
    const entries = this.#wanted.get(parent);
    const name = basename(path);
    const set = entries?.get(name);
    if (!entries || !set?.delete(uri)) return;
    if (set.size === 0) entries.delete(name);
    if (entries.size > 0) return;
    this.#wanted.delete(parent);
    const w = this.#byParent.get(parent);
    if (w) {
      w.watcher.close();
      this.#byParent.delete(parent);
    }
  }

  /** Watches `parent` for its wanted entries: kept when already watched (same folder), else (re)armed. */
  #arm(parent: string): void {
    const entries = this.#wanted.get(parent);
    if (!entries) return;
    const have = this.#byParent.get(parent);
    if (have && inode(parent) === have.ino) {
      have.entries = entries;
      return;
    }
    if (have) {
      have.watcher.close();
      this.#byParent.delete(parent);
    }
    if (this.#byParent.size >= MAX_WATCHERS) return;
    this.#watch(parent, entries);
  }

  /** Stops every watcher and pending check. */
  close(): void {
    this.#closed = true;
    for (const w of this.#byParent.values()) w.watcher.close();
    this.#byParent.clear();
    this.#wanted.clear();
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
  }

  #watch(parent: string, entries: Map<string, Set<string>>): void {
    let watcher: FSWatcher;
    const ino = inode(parent);
    if (ino === undefined) return; // the parent is missing: periodic checks cover it, the next sync retries
    try {
      watcher = watch(parent, { persistent: false });
    } catch {
      return; // unwatchable (permissions, watcher limits): as above
    }
    const w: Watched = { watcher, ino, entries };
    this.#byParent.set(parent, w);
    watcher.on('change', (_type, filename) => {
      const name = filename === null ? null : String(filename);
      // No name (some platforms): every root of this parent may have changed.
      const uris = name === null ? [...w.entries.values()].flatMap((s) => [...s]) : [...(w.entries.get(name) ?? [])];
      for (const uri of uris) this.#debounce(uri);
    });
    const gone = () => {
      // The folder itself went away (deleted, unmounted): check its roots now; the next sync re-arms.
      watcher.close();
      if (this.#byParent.get(parent) === w) this.#byParent.delete(parent);
      for (const set of w.entries.values()) for (const uri of set) this.#debounce(uri);
    };
    watcher.on('error', gone);
  }

  #debounce(uri: string): void {
    if (this.#closed) return;
    clearTimeout(this.#timers.get(uri));
    const t = setTimeout(() => {
      this.#timers.delete(uri);
      if (!this.#closed) this.onChange(uri);
    }, this.debounceMs);
    t.unref?.();
    this.#timers.set(uri, t);
  }
}

function inode(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}
