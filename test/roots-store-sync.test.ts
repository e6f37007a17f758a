// Roots another process adds or removes on the same store (`parley roots add` in another terminal while
// `parley up` runs) reach the running registry within its store poll: servers that asked are named in
// the change (the host sends them notifications/roots/list_changed), on SQLite and PostgreSQL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RootRegistry, type RootsChange } from '../src/host/roots/index.js';
import { openStore } from '../src/host/store/index.js';
import { pathToFileUri } from '../src/schema/uri.js';
import { forEachEngine } from './helpers/store-engines.js';
import { waitUntil } from './helpers/wait.js';

const scope = { tenant: 'default', user: 'default', session: null };

forEachEngine((engine) => {
  test('a root added, then removed, by another process on the same store reaches the running registry and its servers', async (t) => {
    const where = await engine.location(t);
    const running = await openStore(where);
    const other = await openStore(where);
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'parley-sync-')));
    t.after(async () => {
      await running.close();
      await other.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const uri = pathToFileUri(dir, { platform: 'posix' });
    const host = new RootRegistry({ store: running, scope });
    await host.ready;
    host.add('file:///from-config', { lifetime: 'app', source: 'config' });
    assert.deepEqual(host.rootsForServer('fs'), [{ uri: 'file:///from-config' }]);
    const changes: RootsChange[] = [];
    host.on('change', (c) => changes.push(c));
    host.startStoreSync(50);
    t.after(() => host.close());

    // Another process: `parley roots add <dir>`.
    const cli = new RootRegistry({ store: other, scope });
    await cli.ready;
    cli.add(uri, { lifetime: 'app', name: 'reports' });
    await cli.flush();
    cli.close();
    assert.ok(await waitUntil(() => host.get(uri) !== undefined, { ms: 5000 }), 'the running registry sees the new root');
    const added = changes.find((c) => c.reason === 'add');
    assert.deepEqual(added, { reason: 'add', uris: [uri], servers: ['fs'] });
    assert.deepEqual(host.get(uri)?.name, 'reports');
    assert.deepEqual(
      host.rootsForServer('fs').map((r) => r.uri),
      ['file:///from-config', uri],
    );

    // Another process: `parley roots remove <dir>`. The configuration's root is not touched.
    const cli2 = new RootRegistry({ store: other, scope });
    await cli2.ready;
    assert.equal(cli2.remove(uri), true);
    await cli2.flush();
    cli2.close();
    assert.ok(await waitUntil(() => host.get(uri) === undefined, { ms: 5000 }), 'the running registry drops the removed root');
    assert.deepEqual(changes.at(-1), { reason: 'remove', uris: [uri], servers: ['fs'] });
    assert.deepEqual(
      host.list().map((r) => r.uri),
      ['file:///from-config'],
    );
  });

  test("the running registry's own new app root is not dropped by a poll that ran before its write landed", async (t) => {
    const store = await engine.open(t);
    const host = new RootRegistry({ store, scope });
    await host.ready;
    host.startStoreSync(1);
    t.after(() => host.close());
    for (let i = 0; i < 20; i++) {
      host.add(`file:///own-${i}`, { lifetime: 'app' });
      await new Promise((r) => setTimeout(r, 2));
    }
    await host.flush();
    await host.syncFromStore();
    assert.equal(host.list().length, 20);
  });
});
