/**
 * The charts MCP server: the seed essay's chart generator. Tool `generate_chart` negotiates by elicitation
 * whatever the call does not give: `data_source` (a CSV file inside the client's roots, or a query result such
 * as `sales://results/{id}`), `chart_type` (line, bar, scatter, pie) and an optional `title`. It answers with
 * the PNG as image content, the SVG as an embedded resource (also readable at `chart://svg/{id}`), and a text
 * line naming the fields used and what the chart shows.
 *
 * Query results arrive as **query-result roots** (configuration essay §5.2): the host reads the result from
 * the server that owns it and hands it over as a `file://` root named with the result's URI
 * (`src/host/roots/query-results.ts`); this server declares `experimental['parley/queryResultRoots'] =
 * {consumes: true}` to receive them. It needs no copy of the sales server.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod/v4';
import { ResourceNotFoundError, ResourceTemplate } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { createParleyServer, createShared, resolveInRoots } from '../../src/server/index.js';
import type { ParleyContext, ParleyServer, Shared } from '../../src/server/index.js';
import { ChartDataError, count, parseCsv, readCsvFile, tableFromQueryResult } from './data.js';
import type { Table } from './data.js';
import { CHART_TYPES } from './infer.js';
import { DataPathError, resolveDataPath } from './paths.js';

/** The experimental capability of query-result roots (same string as `src/host/roots/query-results.ts`). */
export const QUERY_RESULT_ROOTS_CAPABILITY = 'parley/queryResultRoots';

export const CHARTS_SERVER_NAME = 'parley-charts';
export const CHARTS_SERVER_VERSION = '0.1.0';

export interface ChartsBackendOptions {
  /** Largest CSV file (or query-result file) read, in bytes. @default 10_000_000 */
  maxCsvBytes?: number;
  /** Extra font files for PNG text (e.g. a CJK font). */
  fontFiles?: string[];
  /** Rendered SVGs kept for `chart://svg/{id}`. @default 50 */
  maxCharts?: number;
  /** Toolkit state shared by all instances. @default a new `createShared()` */
  shared?: Shared;
}

export interface ChartsBackend extends Required<Pick<ChartsBackendOptions, 'maxCsvBytes' | 'maxCharts'>> {
  opts: ChartsBackendOptions;
  shared: Shared;
  /** id → SVG text. */
  svgs: Map<string, string>;
}

export function openChartsBackend(opts: ChartsBackendOptions = {}): ChartsBackend {
  return {
    opts,
    shared: opts.shared ?? createShared(),
    svgs: new Map(),
    maxCsvBytes: opts.maxCsvBytes ?? 10_000_000,
    maxCharts: opts.maxCharts ?? 50,
  };
}

export function createChartsServer(backend: ChartsBackend): ParleyServer {
  const p = createParleyServer({
    name: CHARTS_SERVER_NAME,
    version: CHARTS_SERVER_VERSION,
    shared: backend.shared,
    mcpOptions: { capabilities: { experimental: { [QUERY_RESULT_ROOTS_CAPABILITY]: { consumes: true } } } },
  });
  registerCharts(p, backend);
  return p;
}

const chartType = z.enum(CHART_TYPES).describe('Chart type: line, bar, scatter or pie');
const dataSource = z
  .string()
  .min(1)
  .describe(
    'CSV file inside your roots (relative to the first root, absolute, or file://), or a query result such as sales://results/{id}',
  );
const title = z.string().max(200).describe('Chart title (optional)');

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** A URI with a scheme other than `file:` (a query result such as `sales://results/{id}`). */
const isResultUri = (s: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(s) && !/^file:/i.test(s);

/**
 * Reads a query result handed over by the host as a query-result root: the root named `source` (for
 * `…/csv`, the root of the same result without `/csv`, preferred) holds one `result.json` / `.csv` file.
 * @throws ChartDataError when no such root exists (with what to do)
 */
async function loadQueryResult(backend: ChartsBackend, ctx: ParleyContext, source: string): Promise<Table> {
  if (!ctx.supports('roots'))
    throw new ChartDataError(
      `${source}: query results reach this server as query-result roots, and this client shares no roots; give a CSV path, or call through parley`,
    );
  const roots = await ctx.roots();
  // `…/csv` of a result is charted from the result itself: its JSON carries the whole result's summary,
  // while the CSV holds only the rows listed (for orders, the newest 100).
  const name = source.endsWith('/csv') ? source.slice(0, -4) : source;
  const root = roots.find((r) => r.name === name) ?? roots.find((r) => r.name === source);
  if (!root)
    throw new ChartDataError(
      `${source}: no such query result was handed to this server, and only file:// URIs name local files; run the query (e.g. query_sales) through the same parley host first and chart the URI it returned, or give a CSV file inside your roots`,
    );
  const files = (await readdir(root.path).catch(() => [] as string[])).filter((f) => /^result\.(json|csv|txt)$/.test(f));
  if (files.length !== 1) throw new ChartDataError(`${source}: the query-result root ${root.uri} holds no result file`);
  // Containment as for any file: real paths, inside the roots.
  const real = await resolveInRoots(
    join(root.path, files[0]),
    roots.map((r) => r.uri),
  );
  const size = (await stat(real)).size;
  if (size > backend.maxCsvBytes)
    throw new ChartDataError(
      `${source}: ${size} bytes is over the ${backend.maxCsvBytes}-byte limit for chart data; filter the data first`,
    );
  const text = await readFile(real, 'utf8');
  return files[0].endsWith('.csv') ? parseCsv(text) : tableFromQueryResult(text, source);
}

async function loadTable(backend: ChartsBackend, ctx: ParleyContext, source: string): Promise<Table> {
  if (isResultUri(source)) return loadQueryResult(backend, ctx, source);
  const path = await resolveDataPath(ctx, source);
  return path.endsWith('.json') ? tableFromQueryResult(await readFile(path, 'utf8'), source) : readCsvFile(path, backend.maxCsvBytes);
}

/** Registers `generate_chart` and the `chart://svg/{id}` resources on `p`. */
export function registerCharts(p: ParleyServer, backend: ChartsBackend): void {
  p.tool(
    'generate_chart',
    {
      title: 'Generate chart',
      description:
        'Draws a line, bar, scatter or pie chart from a CSV file in your roots or a query result (sales://results/{id}, handed over by the host); asks for what is not given. Returns PNG and SVG.',
      inputSchema: z.object({
        data_source: dataSource.optional(),
        chart_type: chartType.optional(),
        title: title.optional(),
        x: z.string().optional().describe('Column for x / categories (inferred when absent)'),
        y: z.string().optional().describe('Numeric column for y / values (inferred when absent)'),
      }),
    },
    async (args, ctx) => {
      let { data_source: source, chart_type: type, title: heading } = args;
      try {
        // A given source is read first: its table may suggest the chart (a query result of a known table),
        // so only what is still missing is asked.
        let table = source === undefined ? undefined : await loadTable(backend, ctx, source);
        if (type === undefined && table?.suggest) type = table.suggest.type;
        if (source === undefined || type === undefined) {
          const shape: Record<string, z.ZodType> = {};
          if (source === undefined) shape.data_source = dataSource;
          if (type === undefined) shape.chart_type = chartType;
          if (heading === undefined) shape.title = title.optional();
          // The query results the host handed over (their roots are named with the result URIs), newest last.
          const recent =
            source === undefined && ctx.supports('roots')
              ? (await ctx.roots())
                  .map((r) => r.name)
                  .filter((n): n is string => n !== undefined && isResultUri(n))
                  .slice(-5)
              : [];
          const message = `Which chart? Give the data source (a CSV file in your roots, or a query result such as sales://results/{id}), the chart type and an optional title.${recent.length ? ` Recent query results: ${recent.join(', ')}.` : ''}`;
          const answer = await ctx.elicit(message, z.object(shape));
          if (answer.action !== 'accept')
            return errorResult(
              `generate_chart: the chart settings were ${answer.action === 'decline' ? 'declined' : 'cancelled'}; no chart was drawn.`,
            );
          const c = answer.content as { data_source?: string; chart_type?: (typeof CHART_TYPES)[number]; title?: string };
          source ??= c.data_source;
          type ??= c.chart_type;
          heading ??= c.title;
        }
        if (source === undefined) return errorResult('generate_chart: data_source is required');
        table ??= await loadTable(backend, ctx, source);
        type ??= table.suggest?.type;
        if (type === undefined) return errorResult('generate_chart: chart_type is required');
        // vega, vega-lite and resvg load on the first chart, not at server start (lazy start).
        const { renderChart } = await import('./render.js');
        const chart = await renderChart(table.columns, table.rows, {
          type,
          title: heading || undefined,
          x: args.x ?? (args.y === undefined ? table.suggest?.x : undefined),
          y: args.y ?? (args.x === undefined ? table.suggest?.y : undefined),
          fontFiles: backend.opts.fontFiles,
        });
        const id = createHash('sha256').update(chart.svg).digest('hex').slice(0, 16);
        backend.svgs.delete(id);
        backend.svgs.set(id, chart.svg);
        while (backend.svgs.size > backend.maxCharts) backend.svgs.delete(backend.svgs.keys().next().value as string);
        const uri = `chart://svg/${id}`;
        const { x, y } = chart.fields;
        // The sum of y over the values the spec encodes (what the marks add up to), in y's unit.
        const values = (chart.spec as { data?: { values?: Array<Record<string, unknown>> } }).data?.values ?? [];
        const total = Math.round(values.reduce((a, v) => a + (typeof v[y] === 'number' ? (v[y] as number) : 0), 0) * 100) / 100;
        return {
          content: [
            { type: 'image', data: chart.png.toString('base64'), mimeType: 'image/png' },
            { type: 'resource', resource: { uri, mimeType: 'image/svg+xml', text: chart.svg } },
            {
              type: 'text',
              text: `${type} chart of ${y} by ${x} from ${source} (${count(table.rows.length, 'row')})${heading ? `: ${heading}` : ''}.${table.note ? ` Note: ${table.note}.` : ''} SVG: ${uri}`,
            },
          ],
          structuredContent: {
            data_source: source,
            chart_type: type,
            title: heading ?? null,
            x,
            y,
            rows: table.rows.length,
            total,
            svgUri: uri,
            ...(table.note ? { note: table.note } : {}),
          },
        };
      } catch (e) {
        if (e instanceof ChartDataError || e instanceof DataPathError || (e as Error)?.name === 'RootsAccessError')
          return errorResult(`generate_chart: ${(e as Error).message}`);
        throw e;
      }
    },
  );
  p.resourceTemplate(
    'chart-svg',
    new ResourceTemplate('chart://svg/{id}', { list: undefined }),
    { title: 'Rendered chart (SVG)', mimeType: 'image/svg+xml' },
    (uri) => {
      const m = /^chart:\/\/svg\/([0-9a-f]{16})$/.exec(uri.href);
      const svg = m ? backend.svgs.get(m[1]) : undefined;
      if (svg === undefined) throw new ResourceNotFoundError(uri.href, `no rendered chart at ${uri.href}; call generate_chart first`);
      return { contents: [{ uri: uri.href, mimeType: 'image/svg+xml', text: svg }] };
    },
  );
}
