/**
 * Resource reads with template parameters asked of a person (configuration essay §3.2). When a server
 * answers a `resources/read` with "not found" (-32002, or -32602 as SDK v2 servers send it) and the URI
 * is one of its resource templates with variables left out — `sql-query://orders` against
 * `sql-query://{table}{?range}` — the host asks for the missing variables in a form built from the
 * template (one string field per variable; the server's `completion/complete` values become an enum
 * when the list is short and complete, else examples in the description), through the broker (policy,
 * prefill, presenter, validation, audit), expands the template with the answers and reads that URI.
 * Works for any server on every era: the elicitation is the host's own, not the server's.
 * Matching uses the SDK's `UriTemplate` (`src/schema/template-fill.ts`).
 * @module
 */
import { UriTemplate } from '@modelcontextprotocol/client';
import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { fillFromUri } from '../schema/template-fill.js';
import type { RequestedSchema } from '../schema/index.js';
import type { ElicitationBroker } from './broker/index.js';
import type { ServerManager } from './servers/index.js';

/** Longest wait for one `completion/complete` answer, in ms; a slower server's values are not offered. */
export const COMPLETION_TIMEOUT_MS = 5_000;
/** Most completion values turned into an enum; a longer (or incomplete) list becomes examples. */
export const COMPLETION_ENUM_MAX = 50;

/** The person declined or cancelled the form for a template's missing variables. */
export class ResourceElicitationDeclinedError extends Error {
  override readonly name = 'ResourceElicitationDeclinedError';
  constructor(
    readonly uri: string,
    readonly action: 'decline' | 'cancel',
    readonly missing: string[],
  ) {
    super(`Reading ${uri} needs ${missing.join(', ')}; the person chose ${action}, so nothing was read.`);
  }
}

export interface ReadDeps {
  servers: ServerManager;
  broker: ElicitationBroker;
  audit(rec: { server: string; kind: string; action?: string; detail?: Record<string, unknown> }): void;
}

const notFound = (e: unknown) => {
  const code = (e as { code?: unknown })?.code;
  return code === -32002 || code === -32602;
};

/**
 * Reads `uri` from `server`; on "not found" for a URI that leaves out variables of one of the server's
 * resource templates, asks for them and reads the completed URI.
 * @throws ResourceElicitationDeclinedError when the person declines or cancels; the server's own error when
 *   no template fits; whatever the broker throws (e.g. `UserInteractionRequiredError` headless).
 */
export async function readResourceAsking(
  deps: ReadDeps,
  server: string,
  uri: string,
  opts: { signal?: AbortSignal } = {},
): Promise<ReadResourceResult> {
  try {
    return await deps.servers.readResource(server, uri);
  } catch (e) {
    if (!notFound(e)) throw e;
    const filled = await completeUri(deps, server, uri, opts.signal);
    if (filled === undefined) throw e;
    return deps.servers.readResource(server, filled);
  }
}

async function completeUri(deps: ReadDeps, server: string, uri: string, signal: AbortSignal | undefined): Promise<string | undefined> {
  const info = deps.servers.info(server);
  if (!info?.serverCapabilities?.resources) return undefined;
  const { resourceTemplates } = await deps.servers.listResourceTemplates(server);
  let best: { t: UriTemplate; def: (typeof resourceTemplates)[number]; known: Record<string, string>; missing: string[] } | undefined;
  for (const def of resourceTemplates) {
    let t: UriTemplate;
    try {
      t = new UriTemplate(def.uriTemplate);
    } catch {
      continue; // a template the SDK cannot parse is not offered
    }
    const fill = fillFromUri(t, uri);
    if (fill && fill.missing.length > 0 && (!best || fill.missing.length < best.missing.length)) best = { t, def, ...fill };
  }
  if (!best) return undefined;
  const { t, def, known, missing } = best;

  const properties: Record<string, Record<string, unknown>> = {};
  for (const name of missing) {
    const field: Record<string, unknown> = {
      type: 'string',
      title: name,
      description: `${name} in ${def.uriTemplate}${def.description ? ` (${def.title ?? def.name}: ${def.description})` : ''}`,
    };
    const values = info.serverCapabilities.completions ? await completions(deps, server, def.uriTemplate, name, known) : undefined;
    if (values?.complete && values.values.length > 0 && values.values.length <= COMPLETION_ENUM_MAX) field.enum = values.values;
    else if (values?.values.length) field.description += `; e.g. ${values.values.slice(0, 5).join(', ')}`;
    properties[name] = field;
  }
  const requestedSchema = { type: 'object', properties, required: missing } as unknown as RequestedSchema;
  const answer = await deps.broker.elicit(
    {
      mode: 'form',
      message: `${server} needs ${missing.join(', ')} to read ${uri} (resource template ${def.uriTemplate}).`,
      requestedSchema,
    },
    { server, era: info.era, revision: info.negotiatedRevision, signal: signal ?? new AbortController().signal },
  );
  if (answer.action !== 'accept') {
    deps.audit({ server, kind: 'resource-read', action: answer.action, detail: { uri, template: def.uriTemplate, missing } });
    throw new ResourceElicitationDeclinedError(uri, answer.action, missing);
  }
  const vars: Record<string, string> = { ...known };
  for (const name of missing) vars[name] = String(answer.content?.[name] ?? '');
  const filled = t.expand(vars);
  deps.audit({ server, kind: 'resource-read', action: 'filled', detail: { uri, template: def.uriTemplate, missing, filled } });
  return filled;
}

/** `completion/complete` for one template variable; undefined when the server fails or is slow. */
async function completions(
  deps: ReadDeps,
  server: string,
  template: string,
  name: string,
  known: Record<string, string>,
): Promise<{ values: string[]; complete: boolean } | undefined> {
  try {
    const conn = await deps.servers.ensureRunning(server);
    const r = await conn.client.complete(
      {
        ref: { type: 'ref/resource', uri: template },
        argument: { name, value: '' },
        ...(Object.keys(known).length ? { context: { arguments: known } } : {}),
      },
      { timeout: COMPLETION_TIMEOUT_MS },
    );
    const values = r.completion.values.filter((v): v is string => typeof v === 'string');
    const complete = r.completion.hasMore !== true && (r.completion.total === undefined || r.completion.total <= values.length);
    return { values, complete };
  } catch {
    return undefined;
  }
}
