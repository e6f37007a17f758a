#!/usr/bin/env node
/**
 * `parley-charts`: runs the charts server. stdio by default; `--http [--port N] [--host 127.0.0.1]` serves
 * Streamable HTTP on 127.0.0.1. `--with-sales [--sales-db PATH]` also hosts `query_sales` in the same process
 * so `sales://results/{id}` sources resolve. `--font FILE` (repeatable) adds fonts for PNG text, e.g. a CJK font.
 * The listening URL is printed on stderr.
 */
import { parseArgs } from 'node:util';
import { serve } from '../../src/server/index.js';
import { createChartsServer, openChartsBackend } from './server.js';

const USAGE = 'usage: parley-charts [--with-sales [--sales-db PATH]] [--font FILE]... [--http [--port N] [--host 127.0.0.1]]';

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        'with-sales': { type: 'boolean' },
        'sales-db': { type: 'string' },
        font: { type: 'string', multiple: true },
        http: { type: 'boolean' },
        port: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${USAGE}`);
  }
  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  if (!values.http && (values.port !== undefined || values.host !== undefined))
    throw new Error(`--port and --host only apply with --http (without it the server speaks stdio)\n${USAGE}`);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port ${values.port}: expected 0..65535\n${USAGE}`);
  // Sales modules (and the better-sqlite3 addon) load only when asked for: a faster plain start.
  const sales = values['with-sales'] ? await openSales(values['sales-db']) : undefined;
  const backend = openChartsBackend({ sales, fontFiles: values.font });
  const handle = await serve(() => createChartsServer(backend), values.http ? { http: { port, host: values.host } } : { stdio: true });
  if (values.http) process.stderr.write(`parley-charts listening on ${handle.url}\n`);
  const stop = async () => {
    await handle.close().catch(() => undefined);
    sales?.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function openSales(dbPath: string | undefined) {
  const [{ openSalesBackend }, { DEFAULT_DB_PATH }] = await Promise.all([import('../sales/server.js'), import('../sales/data.js')]);
  return openSalesBackend({ dbPath: dbPath ?? DEFAULT_DB_PATH });
}

main().catch((e) => {
  process.stderr.write(`parley-charts: ${(e as Error).message}\n`);
  process.exit(1);
});
