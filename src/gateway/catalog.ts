/**
 * What the gateway offers upstream: the tools, prompts, resources and resource templates of every
 * configured server of one user's host, named by `./names.ts`. Lists come from the ServerManager's
 * list cache (refreshed on the servers' `list_changed`); a server that cannot start or does not offer
 * a kind is left out of that list (and logged), never failing the whole list.
 * @module
 */
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import type { Host } from '../host/index.js';
import { namespace, parseQualifiedUri, qualifiedUri } from './names.js';

type Target = { server: string; name: string };
type Kind = 'tools' | 'prompts' | 'resources';

export class Catalog {
  private tools?: Promise<{ list: Tool[]; byName: Map<string, Target> }>;
  private prompts?: Promise<{ list: Prompt[]; byName: Map<string, Target> }>;
  private resources?: Promise<{ list: Resource[]; byUri: Map<string, Target> }>;
  private templates?: Promise<ResourceTemplate[]>;

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
  private async each<T>(what: string, fetch: (server: string) => Promise<T>): Promise<Array<{ server: string; value: T }>> {
    const names = this.host.servers.names();
    const got = await Promise.allSettled(names.map(fetch));
    const out: Array<{ server: string; value: T }> = [];
    got.forEach((g, i) => {
      if (g.status === 'fulfilled') out.push({ server: names[i], value: g.value });
      else this.log('warn', `${what} of server "${names[i]}" left out: ${(g.reason as Error)?.message ?? String(g.reason)}`);
    });
    return out;
  }

  private capable(server: string, kind: 'tools' | 'prompts' | 'resources'): boolean {
    const caps = this.host.servers.info(server)?.serverCapabilities as Record<string, unknown> | undefined;
    return !!caps?.[kind];
  }

  listTools(): Promise<{ list: Tool[]; byName: Map<string, Target> }> {
    this.tools ??= this.each('tools', async (s) => {
      await this.host.servers.ensureRunning(s);
      return this.capable(s, 'tools') ? (await this.host.servers.listTools(s)).tools : [];
    }).then((per) => {
      const flat = per.flatMap(({ server, value }) => value.map((t) => ({ server, name: t.name, t })));
      const names = namespace(flat);
      const byName = new Map<string, Target>();
      const list = names.map((n) => {
        byName.set(n.exposed, { server: n.server, name: n.name });
        const t = flat.find((f) => f.server === n.server && f.name === n.name)!.t;
        return { ...t, name: n.exposed, title: t.title ?? t.name, description: `[${n.server}] ${t.description ?? ''}`.trim() } as Tool;
      });
      return { list, byName };
    });
    return this.tools;
  }

  listPrompts(): Promise<{ list: Prompt[]; byName: Map<string, Target> }> {
    this.prompts ??= this.each('prompts', async (s) => {
      await this.host.servers.ensureRunning(s);
      return this.capable(s, 'prompts') ? (await this.host.servers.listPrompts(s)).prompts : [];
    }).then((per) => {
      const flat = per.flatMap(({ server, value }) => value.map((p) => ({ server, name: p.name, p })));
      const byName = new Map<string, Target>();
      const list = namespace(flat).map((n) => {
        byName.set(n.exposed, { server: n.server, name: n.name });
        const p = flat.find((f) => f.server === n.server && f.name === n.name)!.p;
        return { ...p, name: n.exposed, description: `[${n.server}] ${p.description ?? ''}`.trim() } as Prompt;
      });
      return { list, byName };
    });
    return this.prompts;
  }

  listResources(): Promise<{ list: Resource[]; byUri: Map<string, Target> }> {
    this.resources ??= this.each('resources', async (s) => {
      await this.host.servers.ensureRunning(s);
      return this.capable(s, 'resources') ? (await this.host.servers.listResources(s)).resources : [];
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

  listTemplates(): Promise<ResourceTemplate[]> {
    this.templates ??= this.each('resource templates', async (s) => {
      await this.host.servers.ensureRunning(s);
      return this.capable(s, 'resources') ? (await this.host.servers.listResourceTemplates(s)).resourceTemplates : [];
    }).then((per) => per.flatMap(({ value }) => value));
    return this.templates;
  }

  async tool(exposed: string): Promise<Target | undefined> {
    return (await this.listTools()).byName.get(exposed);
  }

  async prompt(exposed: string): Promise<Target | undefined> {
    return (await this.listPrompts()).byName.get(exposed);
  }

  /**
   * The server for a resource URI: a `parley://` qualified URI names it; else the last listing; else
   * the host's routes and template discovery (`host.serversFor`).
   */
  async resource(uri: string): Promise<Target | undefined> {
    const q = parseQualifiedUri(uri);
    if (q && this.host.servers.names().includes(q.server)) return { server: q.server, name: q.uri };
    const listed = (await this.listResources()).byUri.get(uri);
    if (listed) return listed;
    const routed = await this.host.serversFor(uri).catch(() => [] as string[]);
    return routed.length ? { server: routed[0], name: uri } : undefined;
  }
}
