/**
 * What the gateway offers upstream: the tools, prompts, resources and resource templates of every
 * configured server of one user's host, named by `./names.ts`, through the `Host` facade. Lists come
 * from the host's per-server list cache (refreshed on the servers' `list_changed`); a server that cannot start or does not offer
 * a kind is left out of that list (and logged), never failing the whole list.
 * @module
 */
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import { uriTemplateToRegExp, type Host } from '../host/index.js';
import { namespace, parseQualifiedUri, qualifiedUri } from './names.js';

type Target = { server: string; name: string };

/** Least time between two fresh lists made because a client named an unknown tool or prompt, ms. */
export const FRESH_LIST_MIN_MS = 1_000;
/** A list under exposed names, and exposed name → server and original name. */
type Named<T> = { list: T[]; byName: Map<string, Target> };
type Kind = 'tools' | 'prompts' | 'resources';

export class Catalog {
  private tools?: Promise<Named<Tool>>;
  private prompts?: Promise<Named<Prompt>>;
  private resources?: Promise<{ list: Resource[]; byUri: Map<string, Target> }>;
  private templates?: Promise<Array<{ server: string; template: ResourceTemplate }>>;
  /** Per server, the last reason it was left out that was logged: the same reason is logged once, not per list. */
  private readonly said = new Map<string, string>();

  constructor(
    private readonly host: Host,
    private readonly log: (level: 'warn', message: string) => void = () => {},
  ) {}

  /** Drops a cached list after a downstream `list_changed` (resources also drop templates). */
  invalidate(kind: Kind): void {
    if (kind === 'tools') this.tools = undefined;
    if (kind === 'prompts') this.prompts = undefined;
    if (kind === 'resources') (this.resources = undefined), (this.templates = undefined);
  }

  /** Every server's result of `fetch`, skipping (and logging) the ones that fail. */
  private async each<T>(what: Kind, fetch: (server: string) => Promise<T>): Promise<Array<{ server: string; value: T }>> {
    const names = this.host.serverNames();
    const got = await Promise.allSettled(names.map(fetch));
    const out: Array<{ server: string; value: T }> = [];
    let partial = false;
    const down = new Set(
      got.some((g) => g.status === 'rejected')
        ? this.host
            .listServers()
            .filter((s) => s.state.status === 'error')
            .map((s) => s.name)
        : [],
    );
    got.forEach((g, i) => {
      if (g.status === 'fulfilled') {
        out.push({ server: names[i], value: g.value });
        this.said.delete(names[i]);
      } else {
        partial = true;
        // A server that could not start was logged by the host when it failed (once per user and server
        // for a start waiting for a sign-in, src/host/auth/sign-in-wait.ts); any other reason is logged
        // once per server and reason, not once per request.
        const why = (g.reason as Error)?.message ?? String(g.reason);
        if (this.said.get(names[i]) === why || down.has(names[i])) return;
        if (this.said.size >= 1024) this.said.clear();
        this.said.set(names[i], why);
        this.log('warn', `${what} of server "${names[i]}" left out: ${why}`);
      }
    });
    // A list missing a server is not cached: the next request asks again (the server may be up by then).
    if (partial) queueMicrotask(() => this.invalidate(what));
    return out;
  }

  private capable(server: string, kind: 'tools' | 'prompts' | 'resources'): boolean {
    return !!this.host.capabilities(server)?.[kind];
  }

  /** Every server's tools under exposed names; `fresh` also bypasses the host's per-server list cache. */
  listTools(fresh = false): Promise<Named<Tool>> {
    if (fresh) this.tools = undefined;
    this.tools ??= this.named(
      'tools',
      (s) => this.host.listTools(s, { fresh }),
      (t, server, exposed) => ({ ...t, name: exposed, title: t.title ?? t.name, description: `[${server}] ${t.description ?? ''}`.trim() }),
    );
    return this.tools;
  }

  /** Every server's prompts under exposed names; `fresh` as for {@link listTools}. */
  listPrompts(fresh = false): Promise<Named<Prompt>> {
    if (fresh) this.prompts = undefined;
    this.prompts ??= this.named(
      'prompts',
      (s) => this.host.listPrompts(s, { fresh }),
      (p, server, exposed) => ({ ...p, name: exposed, description: `[${server}] ${p.description ?? ''}`.trim() }),
    );
    return this.prompts;
  }

  /** Every server's tools or prompts under their exposed names, and where each name goes. */
  private named<T extends { name: string }>(
    kind: 'tools' | 'prompts',
    list: (server: string) => Promise<T[]>,
    expose: (item: T, server: string, exposed: string) => T,
  ): Promise<Named<T>> {
    return this.each(kind, async (s) => {
      await this.host.ensureRunning(s);
      return this.capable(s, kind) ? list(s) : [];
    }).then((per) => {
      const byName = new Map<string, Target>();
      const items = namespace(per.flatMap(({ server, value }) => value.map((item) => ({ server, name: item.name, item }))));
      const out = items.map((n) => {
        byName.set(n.exposed, { server: n.server, name: n.name });
        return expose(n.item, n.server, n.exposed);
      });
      return { list: out, byName };
    });
  }

  listResources(): Promise<{ list: Resource[]; byUri: Map<string, Target> }> {
    this.resources ??= this.each('resources', async (s) => {
      await this.host.ensureRunning(s);
      return this.capable(s, 'resources') ? this.host.listResources(s) : [];
    }).then((per) => {
      const count = new Map<string, number>();
      for (const { value } of per) for (const r of value) count.set(r.uri, (count.get(r.uri) ?? 0) + 1);
      const byUri = new Map<string, Target>();
      const list: Resource[] = [];
      for (const { server, value } of per) {
        for (const r of value) {
          const uri = (count.get(r.uri) ?? 0) > 1 ? qualifiedUri(server, r.uri) : r.uri;
          byUri.set(uri, { server, name: r.uri });
          list.push({ ...r, uri });
        }
      }
      return { list, byUri };
    });
    return this.resources;
  }

  /** Templates of every server, the first of each `uriTemplate` (a template two servers offer is listed once). */
  listTemplates(): Promise<ResourceTemplate[]> {
    return this.templatesByServer().then((per) => {
      const seen = new Set<string>();
      return per.filter((t) => !seen.has(t.template.uriTemplate) && seen.add(t.template.uriTemplate)).map((t) => t.template);
    });
  }

  private templatesByServer(): Promise<Array<{ server: string; template: ResourceTemplate }>> {
    this.templates ??= this.each('resources', async (s) => {
      await this.host.ensureRunning(s);
      return this.capable(s, 'resources') ? this.host.listResourceTemplates(s) : [];
    }).then((per) => per.flatMap(({ server, value }) => value.map((template) => ({ server, template }))));
    return this.templates;
  }

  /**
   * Where an exposed tool name goes. A name missing from the cached list is looked up once more in a
   * fresh list: a server may have registered the tool after the list was cached and before its
   * `list_changed` arrived (server-everything registers some tools just after initialisation). Misses
   * share one fresh list while it is in flight, and start another at most every
   * {@link FRESH_LIST_MIN_MS}, so unknown names cannot make every downstream server list on each call.
   */
  async tool(exposed: string): Promise<Target | undefined> {
    const hit = (await this.listTools()).byName.get(exposed);
    if (hit) return hit;
    return (await this.fresh('tools', () => this.listTools(true)))?.byName.get(exposed);
  }

  /** Where an exposed prompt name goes; a miss is looked up in a fresh list as for {@link tool}. */
  async prompt(exposed: string): Promise<Target | undefined> {
    const hit = (await this.listPrompts()).byName.get(exposed);
    if (hit) return hit;
    return (await this.fresh('prompts', () => this.listPrompts(true)))?.byName.get(exposed);
  }

  private readonly freshInFlight = new Map<'tools' | 'prompts', Promise<unknown>>();
  private readonly freshAt = new Map<'tools' | 'prompts', number>();

  /** A fresh list for a miss: the one in flight, a new one if none was made in the last FRESH_LIST_MIN_MS, else none. */
  private fresh<T>(kind: 'tools' | 'prompts', list: () => Promise<T>): Promise<T> | undefined {
    const inFlight = this.freshInFlight.get(kind) as Promise<T> | undefined;
    if (inFlight) return inFlight;
    const now = performance.now();
    if (now - (this.freshAt.get(kind) ?? -Infinity) < FRESH_LIST_MIN_MS) return undefined;
    this.freshAt.set(kind, now);
    const p = list().finally(() => this.freshInFlight.delete(kind));
    this.freshInFlight.set(kind, p);
    return p;
  }

  /**
   * The server for a resource URI: a `parley://` qualified URI names it; else the last listing; else
   * the host's routes and template discovery (`host.serversFor`).
   */
  async resource(uri: string): Promise<Target | undefined> {
    const q = parseQualifiedUri(uri);
    if (q && this.host.serverNames().includes(q.server)) return { server: q.server, name: q.uri };
    const listed = (await this.listResources()).byUri.get(uri);
    if (listed) return listed;
    const routed = await this.host.serversFor(uri).catch(() => [] as string[]);
    if (routed.length) return { server: routed[0], name: uri };
    for (const { server, template } of await this.templatesByServer())
      if (matchesTemplate(template.uriTemplate, uri)) return { server, name: uri };
    return undefined;
  }
}

/**
 * Whether the RFC 6570 template (levels 1–4, from a server) can expand to `uri`, by the host's router
 * matcher: linear in the URI's length, so a template such as `x://{a}{b}{c}{d}{e}` cannot stall the
 * gateway (a backtracking RegExp of it, as the SDK's `UriTemplate.match` builds, took seconds on a
 * few hundred characters). Templates over `MAX_TEMPLATE_CHARS` (1024) match nothing, as do URIs over
 * `MAX_MATCH_URI_CHARS` (8192).
 */
export function matchesTemplate(template: string, uri: string): boolean {
  return uriTemplateToRegExp(template)?.test(uri) ?? false;
}
