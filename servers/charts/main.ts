#!/usr/bin/env node
/**
 * `parley-charts`: runs the charts server. stdio by default; `--http [--port N] [--host 127.0.0.1]` serves
 * Streamable HTTP on 127.0.0.1. `--font FILE` (repeatable) adds fonts for PNG text, e.g. a CJK font. The
 * listening URL is printed on stderr. Query results (`sales://results/{id}`) reach it as query-result roots
 * handed over by the host; the old `--with-sales` / `--sales-db` flags are accepted, ignored, and warned about.
 */
import { parseArgs } from 'node:util';
import { serve } from '../../src/server/index.js';
import { createChartsServer, openChartsBackend } from './server.js';

const USAGE = 'usage: parley-charts [--font FILE]... [--http [--port N] [--host 127.0.0.1]]';

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
  if (values['with-sales'] || values['sales-db'] !== undefined)
    process.stderr.write(
      'parley-charts: --with-sales and --sales-db are no longer needed and are ignored: a parley host hands sales://results/{id} over as query-result roots; remove them from your configuration\n',
    );
  const backend = openChartsBackend({ fontFiles: values.font });
  const handle = await serve(() => createChartsServer(backend), values.http ? { http: { port, host: values.host } } : { stdio: true });
  if (values.http) process.stderr.write(`parley-charts listening on ${handle.url}\n`);
  const stop = async () => {
    await handle.close().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((e) => {
  process.stderr.write(`parley-charts: ${(e as Error).message}\n`);
  process.exit(1);
});
