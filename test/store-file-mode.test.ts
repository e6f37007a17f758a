// The SQLite files parley creates hold remembered answers, the audit log and (encrypted) sign-ins:
// only their owner may read them (mode 0600, new folders 0700), whatever the process umask.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openSqliteCredentialStore } from '../src/host/auth/sqlite-credentials.js';
import { openSqliteStore } from '../src/host/store/sqlite.js';

const mode = (p: string) => statSync(p).mode & 0o777;
const scope = { tenant: 'default', user: 'ada', session: null };

describe('SQLite store files are private to their owner', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-mode-'));
  const umask = process.umask(0o022); // the usual umask: files 0644, folders 0755 unless parley says otherwise
  after(() => {
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a new store file, its -wal and -shm are 0600 and the folders parley makes 0700', async () => {
    const file = join(dir, 'a', 'b', 'parley.db');
    const store = openSqliteStore(file);
    try {
      await store.appendAudit({ ts: Date.now(), scope, server: 's', kind: 'answer', action: 'accept', detail: { content: { x: 1 } } });
      for (const f of [file, `${file}-wal`, `${file}-shm`]) assert.equal(mode(f).toString(8), '600', f);
      assert.equal(mode(join(dir, 'a')).toString(8), '700');
      assert.equal(mode(join(dir, 'a', 'b')).toString(8), '700');
    } finally {
      await store.close();
    }
  });

  it('an existing store file keeps the mode its owner gave it', async () => {
    const file = join(dir, 'shared.db');
    writeFileSync(file, '');
    chmodSync(file, 0o640);
    const store = openSqliteStore(file);
    await store.close();
    assert.equal(mode(file).toString(8), '640');
  });

  it('a new credential database is 0600 too', async () => {
    const file = join(dir, 'c', 'credentials.db');
    const creds = openSqliteCredentialStore(file, { env: { PARLEY_SECRET: 'a-secret-of-at-least-thirty-two-characters' } });
    try {
      assert.equal(mode(file).toString(8), '600');
    } finally {
      await creds.close();
    }
  });
});
