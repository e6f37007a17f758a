// Remembered answers (once/session/always) and cross-scope isolation of every table.
import { test } from 'node:test';
import { forEachEngine } from './helpers/store-engines.js';
import assert from 'node:assert/strict';
import { type Scope } from '../src/host/store/index.js';

const s1: Scope = { tenant: 'acme', user: 'alice', session: 's1' };
const s2: Scope = { tenant: 'acme', user: 'alice', session: 's2' };
const aliceUser: Scope = { tenant: 'acme', user: 'alice', session: null };
const bob: Scope = { tenant: 'acme', user: 'bob', session: 's1' }; // same session id, other user
const otherTenant: Scope = { tenant: 'globex', user: 'alice', session: 's1' }; // same user and session ids, other tenant

forEachEngine((engine) => {
  test("remember 'once' is never persisted for recall", async (t) => {
    const store = await engine.open(t);
    await store.remember({ scope: s1, server: 'files', schemaHash: 'h', content: { a: 'x' }, remember: 'once', updatedAt: 1 });
    assert.equal(await store.recall(s1, 'files', 'h'), undefined);
    assert.equal(await store.forget(aliceUser), 0, 'no row was written');
  });

  test("remember 'session' recalls only within the same session", async (t) => {
    const store = await engine.open(t);
    await store.remember({ scope: s1, server: 'files', schemaHash: 'h', content: { a: 'x' }, remember: 'session', updatedAt: 5 });
    assert.deepEqual(await store.recall(s1, 'files', 'h'), {
      scope: s1,
      server: 'files',
      schemaHash: 'h',
      content: { a: 'x' },
      remember: 'session',
      updatedAt: 5,
    });
    assert.equal(await store.recall(s2, 'files', 'h'), undefined);
    assert.equal(await store.recall(aliceUser, 'files', 'h'), undefined);
    assert.equal(await store.recall(s1, 'files', 'other-hash'), undefined);
    assert.equal(await store.recall(s1, 'other-server', 'h'), undefined);
    await assert.rejects(
      async () =>
        await store.remember({ scope: aliceUser, server: 'files', schemaHash: 'h', content: {}, remember: 'session', updatedAt: 1 }),
      /scope\.session/,
    );
  });

  test("remember 'always' recalls across sessions of the same user; the newest answer wins; replacing keeps one row", async (t) => {
    const store = await engine.open(t);
    await store.remember({ scope: s1, server: 'files', schemaHash: 'h', content: { a: 'old' }, remember: 'always', updatedAt: 10 });
    await store.remember({ scope: s1, server: 'files', schemaHash: 'h', content: { a: 'new' }, remember: 'always', updatedAt: 20 });
    for (const scope of [s1, s2, aliceUser]) {
      assert.deepEqual(await store.recall(scope, 'files', 'h'), {
        scope: aliceUser,
        server: 'files',
        schemaHash: 'h',
        content: { a: 'new' },
        remember: 'always',
        updatedAt: 20,
      });
    }
    await store.remember({ scope: s2, server: 'files', schemaHash: 'h', content: { a: 'session-2' }, remember: 'session', updatedAt: 30 });
    assert.deepEqual((await store.recall(s2, 'files', 'h'))?.content, { a: 'session-2' });
    assert.deepEqual((await store.recall(s1, 'files', 'h'))?.content, { a: 'new' });
    assert.equal(await store.forget(aliceUser), 2, 'one always row (replaced, not duplicated) + one session row');
  });

  test('answers never cross users or tenants', async (t) => {
    const store = await engine.open(t);
    await store.remember({
      scope: s1,
      server: 'files',
      schemaHash: 'h',
      content: { who: 'alice-session' },
      remember: 'session',
      updatedAt: 1,
    });
    await store.remember({
      scope: s1,
      server: 'files',
      schemaHash: 'h2',
      content: { who: 'alice-always' },
      remember: 'always',
      updatedAt: 1,
    });
    for (const scope of [bob, otherTenant, { ...bob, session: null }, { ...otherTenant, session: null }]) {
      assert.equal(await store.recall(scope, 'files', 'h'), undefined, JSON.stringify(scope));
      assert.equal(await store.recall(scope, 'files', 'h2'), undefined, JSON.stringify(scope));
      assert.equal(await store.forget(scope), 0, 'forget in another scope removes nothing of alice');
    }
    assert.deepEqual((await store.recall(s1, 'files', 'h2'))?.content, { who: 'alice-always' });
  });

  test("forget: a session scope removes what recall could return there; a user scope removes all of the user's answers", async (t) => {
    const store = await engine.open(t);
    const put = (scope: Scope, server: string, remember: 'session' | 'always') =>
      store.remember({ scope, server, schemaHash: 'h', content: { server }, remember, updatedAt: 1 });
    await put(s1, 'a', 'session');
    await put(s2, 'b', 'session');
    await put(s1, 'c', 'always');
    await put(s1, 'd', 'always');
    assert.equal(await store.forget(s1, 'd'), 1);
    assert.equal(await store.recall(s2, 'd', 'h'), undefined);
    assert.equal(await store.forget(s1), 2, "s1's session answer and the user's remaining always answer");
    assert.deepEqual((await store.recall(s2, 'b', 'h'))?.content, { server: 'b' }, "s2's session answer is untouched");
    assert.equal(await store.forget(aliceUser), 1);
    assert.equal(await store.recall(s2, 'b', 'h'), undefined);
  });

  test('presets never cross scopes; reads match the scope exactly', async (t) => {
    const store = await engine.open(t);
    const preset = (scope: Scope, name: string, tag: string) => ({
      name,
      scope,
      roots: [{ uri: `file:///${tag}` }],
      answers: { files: { tag } },
      config: { files: { tag } },
      updatedAt: 1,
    });
    await store.savePreset(preset(aliceUser, 'work', 'alice'));
    await store.savePreset(preset(s1, 'work', 'alice-s1'));
    await store.savePreset(preset({ ...bob, session: null }, 'work', 'bob'));
    await store.savePreset(preset({ ...otherTenant, session: null }, 'work', 'globex'));
    assert.deepEqual((await store.loadPreset(aliceUser, 'work'))?.answers, { files: { tag: 'alice' } });
    assert.deepEqual((await store.loadPreset(s1, 'work'))?.answers, { files: { tag: 'alice-s1' } });
    assert.equal(await store.loadPreset(s2, 'work'), undefined);
    assert.deepEqual(
      (await store.listPresets({ ...bob, session: null })).map((p) => p.roots[0].uri),
      ['file:///bob'],
    );
    assert.deepEqual(
      (await store.listPresets({ ...otherTenant, session: null })).map((p) => p.roots[0].uri),
      ['file:///globex'],
    );
    assert.equal(await store.deletePreset({ ...bob, session: null }, 'work'), true);
    assert.equal(await store.deletePreset({ ...bob, session: null }, 'work'), false);
    assert.ok(await store.loadPreset(aliceUser, 'work'), "deleting bob's preset left alice's");
    await store.savePreset({ ...preset(aliceUser, 'work', 'alice-2'), updatedAt: 2 });
    assert.deepEqual(
      (await store.listPresets(aliceUser)).map((p) => [p.name, p.updatedAt]),
      [['work', 2]],
      'save replaces by name',
    );
    await assert.rejects(async () => await store.savePreset({ ...preset(aliceUser, '', 'x') }), /\/name/);
  });

  test('roots never cross scopes; putRoot replaces by uri', async (t) => {
    const store = await engine.open(t);
    await store.putRoot({ scope: s1, uri: 'file:///a', name: 'A', lifetime: 'session', source: 'user' });
    await store.putRoot({ scope: s1, uri: 'file:///a', name: 'A2', lifetime: 'session', source: 'tool' });
    await store.putRoot({ scope: aliceUser, uri: 'file:///home', lifetime: 'app', source: 'config' });
    await store.putRoot({ scope: bob, uri: 'file:///bob', lifetime: 'session', source: 'user' });
    await store.putRoot({ scope: otherTenant, uri: 'file:///globex', lifetime: 'session', source: 'upstream' });
    assert.deepEqual(await store.listRoots(s1), [{ scope: s1, uri: 'file:///a', name: 'A2', lifetime: 'session', source: 'tool' }]);
    assert.deepEqual(await store.listRoots(aliceUser), [{ scope: aliceUser, uri: 'file:///home', lifetime: 'app', source: 'config' }]);
    assert.deepEqual(await store.listRoots(s2), []);
    assert.deepEqual(
      (await store.listRoots(bob)).map((r) => r.uri),
      ['file:///bob'],
    );
    assert.deepEqual(
      (await store.listRoots(otherTenant)).map((r) => r.uri),
      ['file:///globex'],
    );
    assert.equal(await store.deleteRoot(bob, 'file:///a'), false, "bob cannot delete alice's root");
    assert.equal(await store.deleteRoot(s1, 'file:///a'), true);
    assert.deepEqual(await store.listRoots(s1), []);
    await assert.rejects(
      async () => await store.putRoot({ scope: s1, uri: 'file:///x', lifetime: 'forever' as 'app', source: 'user' }),
      /lifetime/,
    );
  });

  test('audit queries never cross tenants or users when a scope is given', async (t) => {
    const store = await engine.open(t);
    for (const scope of [s1, s2, bob, otherTenant])
      await store.appendAudit({
        ts: 1,
        scope,
        server: 'files',
        kind: 'request',
        detail: { who: `${scope.tenant}/${scope.user}/${scope.session}` },
      });
    const who = async (scope: Partial<Scope>) => (await store.queryAudit({ scope })).map((r) => r.detail?.who).sort();
    assert.deepEqual(await who(s1), ['acme/alice/s1']);
    assert.deepEqual(await who({ tenant: 'acme', user: 'alice' }), ['acme/alice/s1', 'acme/alice/s2']);
    assert.deepEqual(await who({ tenant: 'acme', user: 'bob' }), ['acme/bob/s1']);
    assert.deepEqual(await who({ tenant: 'globex' }), ['globex/alice/s1']);
    assert.deepEqual(await who({ tenant: 'acme', session: 's1' }), ['acme/alice/s1', 'acme/bob/s1']);
  });
});
