// Runs one store test suite against both engines, so SQLite and PostgreSQL stay equal:
//   forEachEngine((engine) => { test('…', async (t) => { const store = await engine.open(t); … }); });
// SQLite: a fresh file per test. PostgreSQL: one private server per test file (test/helpers/postgres.ts),
// a fresh database per test. Without PostgreSQL binaries the postgres half is skipped with the reason,
// except in CI, where it fails.
import { after, before, describe } from 'node:test';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { openPostgresStore, openSqliteStore, type AuditRetention, type Store } from '../../src/host/store/index.js';
import { tempDir } from '../fixtures/store/tmp.js';
import Database from 'better-sqlite3';
import pg from 'pg';
import { pgSkipReason, startPostgres, type PgServer } from './postgres.js';

export interface Engine {
  name: 'sqlite' | 'postgres';
  /** Opens a fresh, empty store, closed when the test ends. */
  open(t: TestContext, opts?: { retention?: AuditRetention }): Promise<Store>;
  /** A fresh location (file path or database URL) without opening it. */
  location(t: TestContext): Promise<string>;
  /** PostgreSQL only: the running server. */
  server?: () => PgServer;
}

const inCi = () => /^(1|true|yes)$/i.test(process.env.CI ?? '');

export function forEachEngine(body: (engine: Engine) => void): void {
  describe('sqlite', () => {
    const engine: Engine = {
      name: 'sqlite',
      async location(t) {
        return join(tempDir(t), 'store.db');
      },
      async open(t, opts = {}) {
        const store = openSqliteStore(await engine.location(t), opts);
        t.after(() => store.close());
        return store;
      },
    };
    body(engine);
  });
  describe('postgres', { skip: pgSkipReason && !inCi() ? pgSkipReason : false }, () => {
    let server: PgServer | undefined;
    before(async () => {
      server = await startPostgres();
    });
    after(() => server?.stop());
    const engine: Engine = {
      name: 'postgres',
      server: () => server!,
      location: () => server!.createDatabase(),
      async open(t, opts = {}) {
        const store = await openPostgresStore(await engine.location(t), opts);
        t.after(() => store.close());
        return store;
      },
    };
    body(engine);
  });
}

/**
 * Runs single SQL statements on the engine's database outside the Store (another client of the same
 * database: what the sqlite3 CLI or psql would do). `sql(text)` resolves with the rows a query returns.
 */
export async function onDatabase(
  engine: Engine,
  location: string,
  fn: (sql: (text: string) => Promise<unknown[]>) => Promise<void>,
): Promise<void> {
  if (engine.name === 'sqlite') {
    const db = new Database(location);
    try {
      await fn(async (text) => {
        const stmt = db.prepare(text);
        return stmt.reader ? stmt.all() : (stmt.run(), []);
      });
    } finally {
      db.close();
    }
    return;
  }
  const c = new pg.Client({ connectionString: location });
  await c.connect();
  try {
    await fn(async (text) => (await c.query(text)).rows);
  } finally {
    await c.end();
  }
}
