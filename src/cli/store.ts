/**
 * `parley store migrate | check [--store <url|path>] [--json]`: the store's schema version.
 * - `check` reads the version without changing anything; exit 0 when it is the latest this parley
 *   knows, 1 when it is behind (run `parley store migrate`), ahead (written by a newer parley), or
 *   the database is unreachable.
 * - `migrate` brings the store to the latest version (creating a SQLite file if needed) and reports
 *   the version before and after.
 * docs/store.md.
 * @module
 */
import { defineCommand } from 'citty';
import { SCHEMA_VERSION, storeSchemaVersion } from '../host/store/index.js';
import { isPostgresUrl, openStore as openAnyStore } from '../host/store/index.js';
import { parseFlags, printJson, storeArgs, storeFailure, storeTarget } from './context.js';
import { CliError, EXIT } from './output.js';

const json = { type: 'boolean', description: 'print JSON' } as const;

async function version(target: string): Promise<{ location: string; version: number }> {
  try {
    return await storeSchemaVersion(target);
  } catch (e) {
    throw storeFailure(e, 'cannot read the store');
  }
}

const checkCommand = defineCommand({
  meta: { name: 'check', description: 'Report the store schema version (exit 1 unless it is the latest this parley knows)' },
  args: { ...storeArgs, json },
  async run({ args, rawArgs }) {
    parseFlags('store check', rawArgs, { '--json': false });
    const target = storeTarget(args);
    const { location, version: v } = await version(target);
    const engine = isPostgresUrl(target) ? 'postgres' : 'sqlite';
    const state = v === SCHEMA_VERSION ? 'current' : v < SCHEMA_VERSION ? 'behind' : 'ahead';
    if (args.json) printJson({ engine, location, version: v, latest: SCHEMA_VERSION, state });
    else {
      const hint =
        state === 'behind' ? ' (run parley store migrate)' : state === 'ahead' ? ' (written by a newer parley: upgrade parley)' : '';
      process.stdout.write(`${engine} ${location}: schema version ${v} of ${SCHEMA_VERSION}${hint}\n`);
    }
    process.exitCode = state === 'current' ? EXIT.OK : EXIT.FAILED;
  },
});

const migrateCommand = defineCommand({
  meta: { name: 'migrate', description: 'Bring the store to the latest schema version and report it' },
  args: { ...storeArgs, json },
  async run({ args, rawArgs }) {
    parseFlags('store migrate', rawArgs, { '--json': false });
    const target = storeTarget(args);
    const before = (await version(target)).version;
    let store;
    try {
      store = await openAnyStore(target);
    } catch (e) {
      throw storeFailure(e, 'cannot migrate the store');
    }
    const out = { engine: store.engine, location: store.location, from: before, version: store.schemaVersion, latest: SCHEMA_VERSION };
    await store.close();
    if (args.json) return printJson(out);
    process.stdout.write(
      `${out.engine} ${out.location}: schema version ${out.version}${before === out.version ? ' (already current)' : ` (migrated from ${before})`}\n`,
    );
  },
});

export const storeCommand = defineCommand({
  meta: {
    name: 'store',
    description: 'The store (SQLite file or PostgreSQL): `store check` and `store migrate` report its schema version',
  },
  subCommands: { check: checkCommand, migrate: migrateCommand },
  run({ rawArgs }) {
    if (rawArgs.length === 0) throw new CliError('store: choose check or migrate (see parley store --help)', EXIT.USAGE);
  },
});
