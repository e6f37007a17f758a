/**
 * The charts MCP server: the seed essay's chart generator. Tool `generate_chart` negotiates by elicitation
 * whatever the call does not give: `data_source` (a CSV file inside the client's roots, or a
 * `sales://results/{id}` resource), `chart_type` (line, bar, scatter, pie) and an optional `title`. It answers
 * with the PNG as image content, the SVG as an embedded resource (also readable at `chart://svg/{id}`), and a
 * text line naming the fields used.
 *
 * `sales://` sources resolve through an in-process sales backend (pass `sales`, which also registers
 * `query_sales` on the same server) or a `readResource` callback; a standalone charts process has neither.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/v4';
import { ResourceNotFoundError, ResourceTemplate } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { createParleyServer, createShared } from '../../src/server/index.js';
import type { ParleyContext, ParleyServer, Shared } from '../../src/server/index.js';
import type { SalesBackend } from '../sales/server.js'; // type only: sales (and better-sqlite3) load only with a sales backend
import { ChartDataError, parseCsv, readCsvFile, tableFromSalesResult } from './data.js';
import type { Table } from './data.js';
import { CHART_TYPES } from './infer.js';
import { DataPathError, resolveDataPath } from './paths.js';

export const CHARTS_SERVER_NAME = 'parley-charts';
export const CHARTS_SERVER_VERSION = '0.1.0';

export interface ChartsBackendOptions {
  /** In-process sales backend: resolves `sales://results/…` and adds `query_sales` to the server. */
  sales?: SalesBackend;
  /** Reads the text of a `sales://…` resource some other way (e.g. through a gateway); `undefined` = not found. */
  readResource?: (uri: string) => Promise<string | undefined>;
  /** Largest CSV file read, in bytes. @default 10_000_000 */
  maxCsvBytes?: number;
  /** Extra font files for PNG text (e.g. a CJK font). */
  fontFiles?: string[];
  /** Rendered SVGs kept for `chart://svg/{id}`. @default 50 */
  maxCharts?: number;
  /** Toolkit state shared by all instances (taken from `sales` when given). */
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
    shared: opts.shared ?? opts.sales?.shared ?? createShared(),
    svgs: new Map(),
    maxCsvBytes: opts.maxCsvBytes ?? 10_000_000,
    maxCharts: opts.maxCharts ?? 50,
  };
}

export function createChartsServer(backend: ChartsBackend): ParleyServer {
  const p = createParleyServer({ name: CHARTS_SERVER_NAME, version: CHARTS_SERVER_VERSION, shared: backend.shared });
  registerCharts(p, backend);
  backend.opts.sales?.register(p);
  return p;
}

const chartType = z.enum(CHART_TYPES).describe('Chart type: line, bar, scatter or pie');
const dataSource = z
  .string()
  .min(1)
  .describe('CSV file inside your roots (relative to the first root, absolute, or file://), or sales://results/{id}');
const title = z.string().max(200).describe('Chart title (optional)');

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

async function loadTable(backend: ChartsBackend, ctx: ParleyContext, source: string): Promise<Table> {
  if (source.startsWith('sales:')) {
    const { sales, readResource } = backend.opts;
    const text = sales ? sales.store.read(source)?.text : readResource ? await readResource(source) : undefined;
    if (text === undefined) {
      const why =
        sales || readResource
          ? 'no such saved result; run query_sales first'
          : 'this charts server has no sales backend; start it with --with-sales or give a CSV path';
      throw new ChartDataError(`${source}: ${why}`);
    }
    return source.endsWith('/csv') ? parseCsv(text) : tableFromSalesResult(text, source);
  }
  return readCsvFile(await resolveDataPath(ctx, source), backend.maxCsvBytes);
}

/** Registers `generate_chart` and the `chart://svg/{id}` resources on `p`. */
export function registerCharts(p: ParleyServer, backend: ChartsBackend): void {
  p.tool(
    'generate_chart',
    {
      title: 'Generate chart',
      description:
        'Draws a line, bar, scatter or pie chart from a CSV file in your roots or a sales://results/{id} resource; asks for what is not given. Returns PNG and SVG.',
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
      if (source === undefined || type === undefined) {
        const shape: Record<string, z.ZodType> = {};
        if (source === undefined) shape.data_source = dataSource;
        if (type === undefined) shape.chart_type = chartType;
        if (heading === undefined) shape.title = title.optional();
        const recent =
          backend.opts.sales?.store
            .list()
            .slice(-5)
            .map((r) => `${r.uri} (${r.config.table} ${r.from}..${r.to})`) ?? [];
        const message = `Which chart? Give the data source, the chart type and an optional title.${recent.length ? ` Recent sales results: ${recent.join('; ')}.` : ''}`;
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
      if (source === undefined || type === undefined) return errorResult('generate_chart: data_source and chart_type are required');
      try {
        const table = await loadTable(backend, ctx, source);
        // vega, vega-lite and resvg load on the first chart, not at server start (lazy start).
        const { renderChart } = await import('./render.js');
        const chart = await renderChart(table.columns, table.rows, {
          type,
          title: heading || undefined,
          x: args.x,
          y: args.y,
          fontFiles: backend.opts.fontFiles,
        });
        const id = createHash('sha256').update(chart.svg).digest('hex').slice(0, 16);
        backend.svgs.delete(id);
        backend.svgs.set(id, chart.svg);
        while (backend.svgs.size > backend.maxCharts) backend.svgs.delete(backend.svgs.keys().next().value as string);
        const uri = `chart://svg/${id}`;
        const { x, y } = chart.fields;
        return {
          content: [
            { type: 'image', data: chart.png.toString('base64'), mimeType: 'image/png' },
            { type: 'resource', resource: { uri, mimeType: 'image/svg+xml', text: chart.svg } },
            {
              type: 'text',
              text: `${type} chart of ${y} by ${x} from ${source} (${table.rows.length} rows)${heading ? `: ${heading}` : ''}.${table.note ? ` Note: ${table.note}.` : ''} SVG: ${uri}`,
            },
          ],
          structuredContent: {
            data_source: source,
            chart_type: type,
            title: heading ?? null,
            x,
            y,
            rows: table.rows.length,
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
