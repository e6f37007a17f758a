/**
 * The sales MCP server: the seed essay's SQL example. Tool `query_sales` negotiates its session configuration
 * (table, date range, region) by elicitation through the parley toolkit (`ctx.config`), asks for `from`/`to`
 * only when the range is `custom`, and answers with text, `structuredContent` and a link to the saved result.
 * Resources: `sales://results/{id}` (JSON) and `sales://results/{id}/csv` (CSV), see results.ts.
 *
 * One {@link SalesBackend} (database, result store, shared toolkit state) serves every server instance the
 * factory creates (one per connection on 2025 revisions, one per request on 2026-07-28).
 */
import { dirname, join } from 'node:path';
import * as z from 'zod/v4';
import { ResourceNotFoundError, ResourceTemplate } from '@modelcontextprotocol/server';
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/server';
import { createParleyServer, createShared, defineConfig, ElicitationRefusedError } from '../../src/server/index.js';
import type { ConfigDef, ParleyServer, Shared } from '../../src/server/index.js';
import { DEFAULT_DB_PATH, FIRST_DAY, openSalesDb } from './data.js';
import type { SalesDb } from './data.js';
import { SalesQuery, describeResult } from './query.js';
import { ResultStore, RESULT_URI_TEMPLATE, RESULT_CSV_URI_TEMPLATE } from './results.js';
import { customRangeSchema, SalesConfigError } from './config.js';

/** The experimental capability of query-result roots (same string as `src/host/roots/query-results.ts`). */
export const QUERY_RESULT_ROOTS_CAPABILITY = 'parley/queryResultRoots';
import type { SalesConfigObject } from './config.js';

export const SALES_SERVER_NAME = 'parley-sales';
export const SALES_SERVER_VERSION = '0.1.0';

export interface SalesBackendOptions {
  /** Database file. @default '.parley/sales.db' (relative to cwd) */
  dbPath?: string;
  /** Generation seed. @default DEFAULT_SEED */
  seed?: number;
  /** Results kept in memory. @default 100 */
  maxResults?: number;
  /** Where results are persisted for other processes. @default `<db dir>/results`; `false` keeps them in memory only. */
  resultsDir?: string | false;
  /** How long a negotiated configuration is reused, in ms. @default 1_800_000 (30 min) */
  configTtlMs?: number;
  /** Toolkit state shared by all instances. @default a new `createShared()` */
  shared?: Shared;
}

/** Everything the server instances share. `close()` closes the database. */
export interface SalesBackend {
  db: SalesDb;
  query: SalesQuery;
  store: ResultStore;
  shared: Shared;
  config: ConfigDef<SalesConfigObject>;
  close(): void;
}

/** Opens (generating on first use) the database and builds the shared state. */
export function openSalesBackend(opts: SalesBackendOptions = {}): SalesBackend {
  const { db } = openSalesDb(opts.dbPath, { seed: opts.seed });
  const query = new SalesQuery(db);
  const config = defineConfig({
    name: 'sales',
    schema: query.object,
    scope: 'session',
    ttlMs: opts.configTtlMs ?? 1_800_000,
    message: `Which sales data do you want? Choose the table, the date range (relative to the newest order, ${query.newest}) and the region.`,
  });
  const resultsDir = opts.resultsDir === false ? undefined : (opts.resultsDir ?? join(dirname(opts.dbPath ?? DEFAULT_DB_PATH), 'results'));
  const backend: SalesBackend = {
    db,
    query,
    store: new ResultStore(opts.maxResults ?? 100, resultsDir),
    shared: opts.shared ?? createShared(),
    config,
    close: () => db.close(),
  };
  return backend;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** Builds one server instance on `backend`. */
export function createSalesServer(backend: SalesBackend): ParleyServer {
  const p = createParleyServer({
    name: SALES_SERVER_NAME,
    version: SALES_SERVER_VERSION,
    shared: backend.shared,
    // Query-result roots (src/host/roots/query-results.ts): a parley host hands the results this server
    // links to over to the servers that consume them (charts), so they need no copy of sales. Only the
    // JSON form: it carries the summary of the whole result (the CSV is the rows listed).
    mcpOptions: { capabilities: { experimental: { [QUERY_RESULT_ROOTS_CAPABILITY]: { produces: [RESULT_URI_TEMPLATE] } } } },
  });
  registerSales(p, backend);
  return p;
}

/** Registers `query_sales` and the result resources on `p`. */
export function registerSales(p: ParleyServer, backend: SalesBackend): void {
  const { query, store, config } = backend;
  // The custom range's dates, asked only when range is custom; kept per session like `config`.
  const customRange = defineConfig({
    name: 'sales-custom-range',
    schema: customRangeSchema,
    scope: config.scope,
    ttlMs: config.ttlMs,
    message: `Custom range: the first and last day to include (data runs ${FIRST_DAY}..${query.newest}).`,
  });
  const input = query.object.partial().extend({
    limit: z.number().int().min(1).max(1000).optional().describe('Rows for table orders (newest first); default 100'),
    reconfigure: z.boolean().optional().describe('Forget the negotiated configuration and ask again'),
  });

  p.tool(
    'query_sales',
    {
      title: 'Query sales',
      description:
        'Query the sales database (orders 2024-2025, regions 北京/上海/广州/深圳 and more). Asks once per session for table, date range and region; arguments given here override the negotiated values.',
      inputSchema: input,
      dependsOn: {
        config,
        describe: (c) => `Query sales (${c.table}, ${c.range}, region ${c.region}); arguments override these session settings.`,
      },
    },
    async (args, ctx) => {
      const { limit, reconfigure, ...given } = args;
      if (reconfigure) {
        ctx.resetConfig(config);
        ctx.resetConfig(customRange);
      }
      // Arguments count as answers: only fields neither given nor negotiated earlier are asked for.
      const known = stripUndefined(given);
      const values: Record<string, unknown> = { ...(await ctx.config({ ...config, defaults: known })), ...known };
      if (values.range === 'custom' && (values.from === undefined || values.to === undefined)) {
        // Negotiated like the other fields (kept for the session), so it is not asked on every call.
        try {
          Object.assign(values, await ctx.config({ ...customRange, defaults: stripUndefined({ from: values.from, to: values.to }) }));
        } catch (e) {
          if (e instanceof ElicitationRefusedError)
            return errorResult(
              `query_sales: the custom date range was ${e.action === 'decline' ? 'declined' : 'cancelled'}; nothing was queried. Choose last_quarter or last_month, or pass from/to.`,
            );
          throw e;
        }
      }
      if (values.range !== 'custom') {
        delete values.from;
        delete values.to;
      }
      let result;
      try {
        result = query.run(values, { limit });
      } catch (e) {
        if (e instanceof SalesConfigError) {
          ctx.resetConfig(customRange); // a negotiated range that fails the cross-field rules is asked again
          return errorResult(`query_sales: ${e.message}`);
        }
        throw e;
      }
      const saved = store.save(result);
      const { id: _id, ...structured } = saved;
      return {
        content: [
          { type: 'text', text: `${describeResult(result)}\nSaved as ${saved.uri} (CSV: ${saved.csvUri}).` },
          {
            type: 'resource_link',
            uri: saved.uri,
            name: `sales-${saved.id}`,
            mimeType: 'application/json',
            description: `${result.config.table} ${result.from}..${result.to}`,
          },
        ],
        structuredContent: structured as unknown as Record<string, unknown>,
      };
    },
  );

  const read = (uri: URL): ReadResourceResult => {
    const content = store.read(uri.href);
    if (!content)
      throw new ResourceNotFoundError(
        uri.href,
        `no saved sales result at ${uri.href}; run query_sales first (results live in this server process only)`,
      );
    return { contents: [content] };
  };
  const list = () => ({ resources: store.list().map((r) => ({ uri: r.uri, name: `sales-${r.id}`, mimeType: 'application/json' })) });
  p.resourceTemplate(
    'sales-result',
    new ResourceTemplate(RESULT_URI_TEMPLATE, { list }),
    { title: 'Sales query result (JSON)', mimeType: 'application/json' },
    read,
  );
  p.resourceTemplate(
    'sales-result-csv',
    new ResourceTemplate(RESULT_CSV_URI_TEMPLATE, { list: undefined }),
    { title: 'Sales query result (CSV)', mimeType: 'text/csv' },
    read,
  );
}

function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
