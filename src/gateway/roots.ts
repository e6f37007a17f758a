/**
 * Roots bridging: the roots an upstream client declares (2025 eras, `roots/list` pushed to it) become
 * roots of the user's host, registered with `source: 'upstream'` and `lifetime: 'request'` (never
 * persisted), and the host's routes decide which downstream servers see them. A root stays while at
 * least one upstream session of that user lists it; `notifications/roots/list_changed` re-reads the
 * session's list. Spec: client/roots 2025-06-18 and 2025-11-25 (deprecated in 2026-07-28, where
 * upstream roots are not bridged: docs/gateway.md).
 * @module
 */
import type { Host } from '../host/index.js';

/**
 * Most distinct upstream roots one user's host takes, over all that user's sessions: 256. Each root
 * added recomputes every server's list, so a client listing 20 000 roots froze the whole gateway (every
 * user) for minutes; real clients list a few workspace folders. Roots over the cap are left out, logged.
 */
export const MAX_UPSTREAM_ROOTS = 256;

/** Which upstream sessions list which root URI, for one user. */
export class UpstreamRoots {
  private readonly bySession = new Map<string, Set<string>>();
  private readonly holders = new Map<string, Set<string>>();

  constructor(
    private readonly host: Pick<Host, 'getRoot' | 'addRoot' | 'removeRoot'>,
    private readonly o: { max?: number; log?: (level: 'warn', message: string) => void } = {},
  ) {}

  /**
   * Replaces `session`'s roots with `roots` (file:// URIs as the client sent them). Roots new to the user
   * beyond {@link MAX_UPSTREAM_ROOTS} (`o.max`) are left out and logged once per call.
   */
  set(session: string, roots: Array<{ uri: string; name?: string }>): void {
    const before = this.bySession.get(session) ?? new Set<string>();
    // What the session no longer lists is let go first, so a replaced list has the room it frees.
    const listed = new Set(roots.map((r) => (typeof r?.uri === 'string' ? r.uri : '')));
    for (const uri of before)
      if (!listed.has(uri)) {
        this.release(session, uri);
        before.delete(uri);
      }
    const max = this.o.max ?? MAX_UPSTREAM_ROOTS;
    let over = 0;
    const now = new Set<string>();
    for (const r of roots) {
      if (typeof r?.uri !== 'string' || !r.uri.startsWith('file://')) continue;
      if (this.holders.size >= max && !this.holders.has(r.uri) && !this.host.getRoot(r.uri)) {
        over++;
        continue;
      }
      let added;
      try {
        added =
          this.host.getRoot(r.uri) ??
          this.host.addRoot(r.uri, { name: r.name, lifetime: 'request', source: 'upstream', requestId: 'upstream' });
      } catch {
        continue; // not a usable file URI: left out, like any malformed root
      }
      now.add(added.uri);
      let h = this.holders.get(added.uri);
      if (!h) this.holders.set(added.uri, (h = new Set()));
      h.add(session);
    }
    for (const uri of before) if (!now.has(uri)) this.release(session, uri);
    this.bySession.set(session, now);
    if (over)
      this.o.log?.(
        'warn',
        `the upstream client listed ${over} roots over the cap of ${max} per user (MAX_UPSTREAM_ROOTS); they were left out`,
      );
  }

  /** Forgets `session` (it closed): roots no other session lists are removed from the host. */
  drop(session: string): void {
    for (const uri of this.bySession.get(session) ?? []) this.release(session, uri);
    this.bySession.delete(session);
  }

  private release(session: string, uri: string): void {
    const h = this.holders.get(uri);
    h?.delete(session);
    if (h && h.size === 0) {
      this.holders.delete(uri);
      if (this.host.getRoot(uri)?.source === 'upstream') this.host.removeRoot(uri);
    }
  }
}
