/**
 * Per-server cache of list results (`tools/list`, `resources/list`, `resources/templates/list`,
 * `prompts/list`). Entries live until the matching `notifications/*\/list_changed` arrives, the
 * connection is replaced, or the fetch fails (failures are not cached).
 * @module
 */
export type ListKey = 'tools' | 'resources' | 'templates' | 'prompts';

export class ListCache {
  #entries = new Map<ListKey, Promise<unknown>>();

  get<T>(key: ListKey, fetch: () => Promise<T>): Promise<T> {
    const hit = this.#entries.get(key) as Promise<T> | undefined;
    if (hit) return hit;
    const p = fetch();
    this.#entries.set(key, p);
    p.catch(() => {
      if (this.#entries.get(key) === p) this.#entries.delete(key);
    });
    return p;
  }

  /** `resources` list_changed also drops templates (same notification covers both). */
  invalidate(kind: 'tools' | 'resources' | 'prompts'): void {
    this.#entries.delete(kind);
    if (kind === 'resources') this.#entries.delete('templates');
  }

  clear(): void {
    this.#entries.clear();
  }
}
