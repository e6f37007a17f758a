// OAuth credentials live in the store, on both engines (issue 14 item 3 with issue 13's PostgreSQL): the
// same sealed rows in the SQLite file or the PostgreSQL database, per (tenant, user), never in clear; a
// wrong key reads as absent; `parley auth list` reads them through --store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import Database from 'better-sqlite3';
import {
  openPostgresCredentialStore,
  openSqliteCredentialStore,
  type CredentialRecord,
  type CredentialStore,
} from '../src/host/auth/index.js';
import { forEachEngine } from './helpers/store-engines.js';
import { runParley } from './helpers/cli.js';

const SECRET = 'a-test-secret-of-more-than-32-characters!';
const record = (user: string, tenant = 'default'): CredentialRecord => ({
  tenant,
  user,
  server: 'crm',
  url: 'https://crm.example/mcp',
  issuer: 'https://login.example',
  scope: 'mcp',
  expiresAt: 1_900_000_000_000,
  refreshable: true,
  updatedAt: 1_800_000_000_000,
  secrets: { tokens: { access_token: 'AT-very-secret', token_type: 'Bearer', refresh_token: 'RT-very-secret' } } as never,
});

forEachEngine((engine) => {
  const openCreds = async (where: string, secret = SECRET): Promise<CredentialStore> =>
    engine.name === 'postgres'
      ? openPostgresCredentialStore(where, { env: { PARLEY_SECRET: secret } })
      : openSqliteCredentialStore(where, { env: { PARLEY_SECRET: secret } });

  test(`${engine.name}: sealed per (tenant, user); never in clear; a wrong key reads as absent`, async (t) => {
    const where = await engine.location(t);
    const creds = await openCreds(where);
    t.after(() => creds.close());
    await creds.put(record('alice', 'acme'));
    await creds.put(record('alice', 'globex'));
    const got = await creds.get({ tenant: 'acme', user: 'alice', server: 'crm' });
    assert.equal((got!.secrets as { tokens: { access_token: string } }).tokens.access_token, 'AT-very-secret');
    assert.deepEqual(
      (await creds.list({ tenant: 'acme', user: 'alice' })).map((s) => [s.server, s.refreshable, s.expiresAt]),
      [['crm', true, 1_900_000_000_000]],
    );
    assert.equal((await creds.list({ tenant: 'acme', user: 'bob' })).length, 0, 'another user sees nothing');
    // The raw rows hold no token.
    let raw: string;
    if (engine.name === 'postgres') {
      const c = new pg.Client({ connectionString: where });
      await c.connect();
      raw = JSON.stringify((await c.query('SELECT * FROM oauth_credentials')).rows);
      await c.end();
    } else {
      const db = new Database(where, { readonly: true });
      raw = JSON.stringify(db.prepare('SELECT * FROM oauth_credentials').all());
      db.close();
    }
    assert.doesNotMatch(raw, /very-secret/);
    // Sealed to its row: another key opens nothing.
    const other = await openCreds(where, 'another-secret-of-more-than-32-characters');
    t.after(() => other.close());
    assert.equal(await other.get({ tenant: 'acme', user: 'alice', server: 'crm' }), undefined);
    assert.equal(await creds.delete({ tenant: 'acme', user: 'alice', server: 'crm' }), true);
    assert.equal(await creds.get({ tenant: 'acme', user: 'alice', server: 'crm' }), undefined);
    assert.ok(await creds.get({ tenant: 'globex', user: 'alice', server: 'crm' }), 'the other tenant keeps its own');
  });

  test(`${engine.name}: parley auth list and logout read the store given with --store`, { timeout: 120_000 }, async (t) => {
    const where = await engine.location(t);
    const creds = await openCreds(where);
    await creds.put(record('default'));
    await creds.close();
    const env = { PARLEY_SECRET: SECRET };
    const list = await runParley(['auth', 'list', '--store', where, '--json'], { env, timeoutMs: 60_000 });
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(
      (JSON.parse(list.stdout) as Array<{ server: string }>).map((r) => r.server),
      ['crm'],
    );
    assert.doesNotMatch(list.stdout, /very-secret/);
    const out = await runParley(['auth', 'logout', 'crm', '--store', where], { env, timeoutMs: 60_000 });
    assert.equal(out.code, 0, out.stderr);
    const after = await runParley(['auth', 'list', '--store', where, '--json'], { env, timeoutMs: 60_000 });
    assert.deepEqual(JSON.parse(after.stdout), []);
  });
});

test('postgres: without PARLEY_SECRET the credential store refuses to open, naming the setting', async () => {
  await assert.rejects(
    openPostgresCredentialStore('postgres://nobody@127.0.0.1:1/x', { env: {} }),
    /with a PostgreSQL store set PARLEY_SECRET/,
  );
});
