#!/usr/bin/env node
/**
 * `parley-sales`: runs the sales server. stdio by default; `--http [--port N] [--host 127.0.0.1]` serves
 * Streamable HTTP on 127.0.0.1 (port 0 = any free port). `--db PATH` (default `.parley/sales.db`),
 * `--seed N`. The listening URL is printed on stderr; stdout belongs to the stdio protocol.
 */
import { parseArgs } from 'node:util';
import { serve } from '../../src/server/index.js';
import { DEFAULT_DB_PATH, DEFAULT_SEED } from './data.js';
import { createSalesServer, openSalesBackend } from './server.js';

const USAGE = 'usage: parley-sales [--db PATH] [--seed N] [--http [--port N] [--host 127.0.0.1]]';

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        db: { type: 'string' },
        seed: { type: 'string' },
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
  const seed = values.seed === undefined ? DEFAULT_SEED : Number(values.seed);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(seed)) throw new Error(`--seed ${values.seed}: expected an integer\n${USAGE}`);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port ${values.port}: expected 0..65535\n${USAGE}`);
  const backend = openSalesBackend({ dbPath: values.db ?? DEFAULT_DB_PATH, seed });
  const handle = await serve(() => createSalesServer(backend), values.http ? { http: { port, host: values.host } } : { stdio: true });
  if (values.http) process.stderr.write(`parley-sales listening on ${handle.url}\n`);
  const stop = async () => {
    await handle.close().catch(() => undefined);
    backend.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((e) => {
  process.stderr.write(`parley-sales: ${(e as Error).message}\n`);
  process.exit(1);
});
