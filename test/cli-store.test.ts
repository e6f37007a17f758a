// `--store <url|path>` / PARLEY_STORE on the CLI, `parley store check|migrate`, `parley audit purge`,
// and a one-line exit 1 when the database is unreachable; on SQLite and a real PostgreSQL.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdtempSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openSqliteStore, openStore, SCHEMA_VERSION } from '../src/host/store/index.js';
import { runParley } from './helpers/cli.js';
import { pgSkipReason, startPostgres, type PgServer } from './helpers/postgres.js';

const T = 300_000;
const inCi = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const run = (args: string[], env: NodeJS.ProcessEnv = {}) => runParley(args, { timeoutMs: 120_000, env: { PARLEY_STORE: '', ...env } });

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'parley-cli-store-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('parley store (SQLite path)', () => {
  it('check reports version 0 for a new path without creating it; migrate creates it at the latest; check then exits 0', {
    timeout: T,
  }, async () => {
    const file = join(dir, 'a', 'p.db');
    const before = await run(['store', 'check', '--store', file, '--json']);
    assert.equal(before.code, 1, before.stderr);
    assert.deepEqual(JSON.parse(before.stdout), { engine: 'sqlite', location: file, version: 0, latest: SCHEMA_VERSION, state: 'behind' });
    assert.equal(existsSync(file), false, 'check changes nothing');
    const m = await run(['store', 'migrate', '--store', file]);
    assert.equal(m.code, 0, m.stderr);
    assert.match(m.stdout, new RegExp(`sqlite ${file}: schema version ${SCHEMA_VERSION} \\(migrated from 0\\)`));
    const c = await run(['store', 'check'], { PARLEY_STORE: file });
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout, new RegExp(`schema version ${SCHEMA_VERSION} of ${SCHEMA_VERSION}`));
  });

  it("a store from a newer parley: one line, the store's own message, then the CLI's hint chosen by the error code", {
    timeout: T,
  }, async () => {
    const file = join(dir, 'future.db');
    openSqliteStore(file).close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    raw.close();
    const r = await run(['audit', '--store', file]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`^parley: ${file} has store schema version ${SCHEMA_VERSION + 5}, but`),
      'the message as the store wrote it',
    );
    assert.match(r.stderr, /\(--store <file\|postgres:\/\/…> or PARLEY_STORE chooses another store\)\n$/, "the CLI's hint");
  });

  it('PARLEY_STORE_SYNC chooses the SQLite synchronous level: FULL or NORMAL, anything else is a usage error', { timeout: T }, async () => {
    const file = join(dir, 'sync.db');
    const full = await run(['audit', '--store', file], { PARLEY_STORE_SYNC: 'full' });
    assert.equal(full.code, 0, full.stderr);
    const bad = await run(['audit', '--store', file], { PARLEY_STORE_SYNC: 'OFF' });
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /PARLEY_STORE_SYNC must be FULL or NORMAL \(got "OFF"\)/);
  });

  it('--store and --db together are a usage error; an unusable path exits 1 with one line', { timeout: T }, async () => {
    const both = await run(['audit', '--store', join(dir, 'x.db'), '--db', join(dir, 'y.db')]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /give the store once/);
    writeFileSync(join(dir, 'plain-file'), '');
    const bad = await run(['audit', '--store', join(dir, 'plain-file', 'x.db')]);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
    assert.match(bad.stderr, /^parley: Cannot open the store: I\/O failure on .*plain-file/);
  });

  it("audit purge --user deletes that user's audit rows and answers, and needs --user", { timeout: T }, async () => {
    const file = join(dir, 'purge.db');
    const store = await openStore(file);
    for (const user of ['default', 'default', 'bob'])
      await store.appendAudit({ ts: Date.now(), scope: { tenant: 'default', user, session: null }, server: 's', kind: 'answer' });
    await store.remember({
      scope: { tenant: 'default', user: 'default', session: null },
      server: 's',
      schemaHash: 'h',
      content: { a: 1 },
      remember: 'always',
      updatedAt: 1,
    });
    await store.close();
    const none = await run(['audit', 'purge', '--store', file]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--user/);
    const r = await run(['audit', 'purge', '--user', 'default', '--store', file, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { tenant: 'default', user: 'default', audit: 2, answers: 1 });
    const listed = await run(['audit', '--json'], { PARLEY_STORE: file });
    assert.deepEqual(JSON.parse(listed.stdout), []);
    const check = await openStore(file);
    assert.equal((await check.queryAudit()).length, 1, "bob's row stays");
    await check.close();
  });
});

describe('parley store (PostgreSQL URL)', { skip: pgSkipReason && !inCi ? pgSkipReason : false }, () => {
  let pg: PgServer | undefined;
  before(async () => {
    pg = await startPostgres();
  });
  after(() => pg?.stop());

  it('migrate and check report the schema version of a PostgreSQL database; PARLEY_STORE selects it', { timeout: T }, async () => {
    const url = await pg!.createDatabase();
    const c0 = await run(['store', 'check', '--json'], { PARLEY_STORE: url });
    assert.equal(c0.code, 1);
    assert.equal(JSON.parse(c0.stdout).version, 0);
    const m = await run(['store', 'migrate', '--store', url, '--json']);
    assert.equal(m.code, 0, m.stderr);
    assert.deepEqual(JSON.parse(m.stdout), { engine: 'postgres', location: url, from: 0, version: SCHEMA_VERSION, latest: SCHEMA_VERSION });
    const c1 = await run(['store', 'check', '--store', url]);
    assert.equal(c1.code, 0, c1.stderr);
    assert.match(c1.stdout, new RegExp(`postgres .*: schema version ${SCHEMA_VERSION} of ${SCHEMA_VERSION}`));
  });

  it('presets and audit commands work against PostgreSQL through --store', { timeout: T }, async () => {
    const url = await pg!.createDatabase();
    const save = await run(['presets', 'save', 'home', '--store', url, '--json']);
    assert.equal(save.code, 0, save.stderr);
    const list = await run(['presets', '--json'], { PARLEY_STORE: url });
    assert.equal(list.code, 0, list.stderr);
    assert.ok((JSON.parse(list.stdout) as Array<{ name: string; source: string }>).some((p) => p.name === 'home' && p.source === 'store'));
  });

  it('an unreachable database at start exits 1 with a one-line error that hides the password', { timeout: T }, async () => {
    for (const cmd of [['store', 'check'], ['audit'], ['presets'], ['serve', '--http', '--headless'], ['up', '--no-console']]) {
      const r = await run([...cmd, '--store', 'postgres://parley:s3cret@127.0.0.1:1/none']);
      assert.equal(r.code, 1, `${cmd.join(' ')}: ${r.stderr}`);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(
        lines[0],
        /^parley: Cannot (open the store|read the schema version): PostgreSQL at postgres:\/\/parley@127\.0\.0\.1:1\/none is unavailable/,
      );
      assert.doesNotMatch(r.stderr, /s3cret/);
      // At start nothing is open, so nothing reconnects: the line says what to do instead.
      assert.match(
        lines[0],
        /Check that the server is running and the URL, user and password are right; nothing was opened, so run the command again/,
      );
      assert.doesNotMatch(lines[0], /reconnects/);
    }
  });
});
