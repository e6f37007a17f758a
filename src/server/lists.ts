/**
 * List-change announcements: "my tools (prompts, resources) list changed", said once and delivered to
 * every client of both eras by the serving entry (`serve()`, see `fanout.ts`). 2025-era connections get
 * the unsolicited `notifications/<kind>/list_changed`; 2026-07-28 clients get it on their open
 * `subscriptions/listen` streams that asked for that kind (2026-07-28 changelog: "Change notifications
 * move to `subscriptions/listen`").
 * @module
 */

/** Which list changed: `tools`, `prompts` or `resources` (`notifications/<kind>/list_changed`). */
export type ListKind = 'tools' | 'prompts' | 'resources';

/** The kinds `ListChanges` accepts, in wire order. */
export const LIST_KINDS: readonly ListKind[] = ['tools', 'prompts', 'resources'];

/** Who an announcement reaches. */
export interface ListChangeScope {
  /**
   * Only this user's clients: legacy sessions and `subscriptions/listen` streams opened with this user's
   * credentials (`authInfo.extra.sub`, else `clientId`, as `ctx.user`). Omitted or `''` = every client.
   */
  user?: string;
  /** Only this era's clients. @default both */
  era?: 'legacy' | 'modern';
}

/** One announcement as the serving entries receive it. */
export interface ListChange extends ListChangeScope {
  kind: ListKind;
}

/**
 * The announcement hub of one `Shared`. Serving entries subscribe (one listener per `serve()` handle
 * that has built an instance with this `Shared`); anything holding the `Shared` announces.
 */
export class ListChanges {
  private readonly listeners = new Set<(change: ListChange) => void>();

  /**
   * Announces that the `kinds` lists changed, to every client of every `serve()` handle whose factory
   * uses this `Shared` (see `scope`). Synchronous hand-off; delivery is fire-and-forget.
   * @throws TypeError for a kind other than tools, prompts, resources (nothing is announced).
   */
  announce(kinds: ListKind | readonly ListKind[], scope: ListChangeScope = {}): void {
    const list = typeof kinds === 'string' ? [kinds] : [...kinds];
    const bad = list.find((k) => !LIST_KINDS.includes(k));
    if (bad !== undefined)
      throw new TypeError(`listChanged: unknown list kind ${JSON.stringify(bad)}; use one of ${LIST_KINDS.join(', ')}`);
    for (const kind of list) {
      for (const l of this.listeners) {
        try {
          l({ ...scope, kind });
        } catch {
          // one broken serving entry must not stop the others
        }
      }
    }
  }

  /** Registers a serving entry; returns an idempotent unsubscribe. */
  subscribe(listener: (change: ListChange) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}
