// Preset export/import: round trip, validation as data with JSON pointers, all-or-nothing import.
import { test } from 'node:test';
import { forEachEngine } from './helpers/store-engines.js';
import assert from 'node:assert/strict';
import { exportPresets, importPresets, MAX_PRESETS_DOCUMENT_BYTES, type Preset, type Scope, type Store } from '../src/host/store/index.js';

const alice: Scope = { tenant: 'acme', user: 'alice', session: null };
const bob: Scope = { tenant: 'acme', user: 'bob', session: null };

const work: Preset = {
  name: 'work',
  scope: alice,
  roots: [{ uri: 'file:///work', name: 'Work' }, { uri: 'file:///tmp' }],
  answers: { files: { name: 'Ada', count: 3, ok: true, tags: ['a', 'b'] } },
  config: { files: { readOnly: true, depth: 2 } },
  updatedAt: 1_700_000_000_000,
};

forEachEngine((engine) => {
  test('export then import into another scope round-trips every field', async (t) => {
    const store = await engine.open(t);
    await store.savePreset(work);
    await store.savePreset({ ...work, name: 'home', roots: [], answers: {}, config: {} });
    const json = await exportPresets(store, alice);
    const doc = JSON.parse(json);
    assert.equal(doc.format, 'parley-presets');
    assert.equal(doc.version, 1);
    assert.deepEqual(
      doc.presets.map((p: Preset) => p.name),
      ['home', 'work'],
    );
    assert.ok(!json.includes('"tenant"'), 'scope is not exported');
    assert.deepEqual(await importPresets(store, bob, json), { imported: 2, issues: [] });
    assert.deepEqual(await store.loadPreset(bob, 'work'), { ...work, scope: bob });
    assert.deepEqual(await exportPresets(store, bob), json);
  });

  test('bad JSON is one issue at the document root; nothing is imported', async (t) => {
    const store = await engine.open(t);
    const r = await importPresets(store, alice, '{"format": "parley-presets", ');
    assert.equal(r.imported, 0);
    assert.equal(r.issues.length, 1);
    assert.equal(r.issues[0].code, 'json');
    assert.equal(r.issues[0].path, '');
    assert.match(r.issues[0].message, /not valid JSON/);
    assert.deepEqual(await store.listPresets(alice), []);
  });

  test('a bad shape gives issues with JSON pointers, and a valid entry beside a bad one is not half-imported', async (t) => {
    const store = await engine.open(t);
    const doc = {
      format: 'parley-presets',
      version: 1,
      presets: [
        { name: 'fine', roots: [], answers: {}, config: {} },
        { name: 'broken', roots: [{ uri: '' }], answers: { files: { nested: { no: 1 } } }, config: {}, extra: true },
      ],
    };
    const r = await importPresets(store, alice, JSON.stringify(doc));
    assert.equal(r.imported, 0);
    const paths = r.issues.map((i) => i.path).sort();
    assert.deepEqual(paths, ['/presets/1', '/presets/1/answers/files/nested', '/presets/1/roots/0/uri']);
    assert.ok(r.issues.every((i) => i.severity === 'error' && i.message.startsWith(i.path)));
    assert.match(r.issues.find((i) => i.path === '/presets/1')?.fix ?? '', /"extra"/);
    assert.deepEqual(await store.listPresets(alice), [], 'the valid entry was not imported either');

    const wrongFormat = await importPresets(store, alice, JSON.stringify({ format: 'other', version: 2, presets: {} }));
    assert.deepEqual(wrongFormat.issues.map((i) => i.path).sort(), ['/format', '/presets', '/version']);
  });

  test('a hand-written preset may leave out empty roots, answers and config', async (t) => {
    const store = await engine.open(t);
    const doc = { format: 'parley-presets', version: 1, presets: [{ name: 'demo', answers: { files: { path: '/tmp' } } }] };
    assert.deepEqual(await importPresets(store, alice, JSON.stringify(doc), { now: 5 }), { imported: 1, issues: [] });
    const [p] = await store.listPresets(alice);
    assert.deepEqual(
      { name: p.name, roots: p.roots, answers: p.answers, config: p.config },
      { name: 'demo', roots: [], answers: { files: { path: '/tmp' } }, config: {} },
    );
  });

  test('duplicate names in a document, and clashes when replace is false, are issues', async (t) => {
    const store = await engine.open(t);
    const entry = { name: 'work', roots: [], answers: {}, config: {} };
    const dup = await importPresets(store, alice, JSON.stringify({ format: 'parley-presets', version: 1, presets: [entry, entry] }));
    assert.deepEqual(
      dup.issues.map((i) => [i.code, i.path]),
      [['duplicate', '/presets/1/name']],
    );
    await store.savePreset(work);
    const clash = await importPresets(store, alice, JSON.stringify({ format: 'parley-presets', version: 1, presets: [entry] }), {
      replace: false,
    });
    assert.deepEqual(
      clash.issues.map((i) => [i.code, i.path]),
      [['exists', '/presets/0/name']],
    );
    assert.deepEqual((await store.loadPreset(alice, 'work'))?.roots, work.roots, 'existing preset untouched');
    const replaced = await importPresets(store, alice, JSON.stringify({ format: 'parley-presets', version: 1, presets: [entry] }), {
      now: 42,
    });
    assert.equal(replaced.imported, 1);
    assert.deepEqual(await store.loadPreset(alice, 'work'), { ...entry, scope: alice, updatedAt: 42 });
  });

  test('a storage failure mid-import rolls back the presets already written', async (t) => {
    const store = await engine.open(t);
    let calls = 0;
    // The second write inside the import's transaction fails.
    const failing = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'transaction') {
          return (fn: Parameters<Store['transaction']>[0]) =>
            target.transaction((tx) =>
              fn({
                loadPreset: tx.loadPreset,
                savePreset: async (p: Preset) => {
                  if (++calls === 2) throw new Error('disk went away');
                  await tx.savePreset(p);
                },
              }),
            );
        }
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const presets = ['a', 'b', 'c'].map((name) => ({ name, roots: [], answers: {}, config: {} }));
    await assert.rejects(
      async () => await importPresets(failing, alice, JSON.stringify({ format: 'parley-presets', version: 1, presets })),
      /disk went away/,
    );
    assert.deepEqual(await store.listPresets(alice), [], 'preset "a" was rolled back');
  });

  test('import checks roots by the configuration rules and bounds every value (an imported file is untrusted)', async (t) => {
    const store = await engine.open(t);
    const doc = {
      format: 'parley-presets',
      version: 1,
      presets: [
        { name: 'hosted', roots: [{ uri: 'file://evil.example/x' }], answers: {}, config: {} },
        { name: 'huge', roots: [], answers: { sales: { region: 'x'.repeat(2_000_000) } }, config: {} },
        { name: 'nonsense', roots: ['not a uri'], answers: {}, config: {} },
      ],
    };
    const r = await importPresets(store, alice, JSON.stringify(doc));
    assert.equal(r.imported, 0);
    assert.deepEqual(r.issues.map((i) => i.path).sort(), [
      '/presets/0/roots/0/uri',
      '/presets/1/answers/sales/region',
      '/presets/2/roots/0/uri',
    ]);
    assert.match(r.issues.find((i) => i.path === '/presets/0/roots/0/uri')!.message, /names no host/);
    // A root given as a URI alone is accepted, as in the configuration's presets.
    const ok = await importPresets(
      store,
      alice,
      JSON.stringify({
        format: 'parley-presets',
        version: 1,
        presets: [{ name: 'plain', roots: ['file:///srv/data', 'chart://monthly'], answers: {}, config: {} }],
      }),
    );
    assert.deepEqual(ok, { imported: 1, issues: [] });
    assert.deepEqual((await store.loadPreset(alice, 'plain'))?.roots, [{ uri: 'file:///srv/data' }, { uri: 'chart://monthly' }]);
  });

  test('a document over 4 MiB is one too-large issue, read no further; over 1000 presets is too_big; nothing is imported', async (t) => {
    const store = await engine.open(t);
    const entry = (i: number) => ({ name: `p${i}`, roots: [], answers: {}, config: {} });
    const pad = {
      format: 'parley-presets',
      version: 1,
      presets: [{ ...entry(0), config: { x: { y: 'z'.repeat(MAX_PRESETS_DOCUMENT_BYTES) } } }],
    };
    const big = await importPresets(store, alice, JSON.stringify(pad));
    assert.deepEqual(
      big.issues.map((i) => [i.code, i.path]),
      [['too-large', '']],
    );
    assert.match(big.issues[0].message, /over the 4194304-byte \(4 MiB\) limit/);
    const many = await importPresets(
      store,
      alice,
      JSON.stringify({ format: 'parley-presets', version: 1, presets: Array.from({ length: 1001 }, (_, i) => entry(i)) }),
    );
    assert.deepEqual(
      many.issues.map((i) => [i.code, i.path]),
      [['too_big', '/presets']],
    );
    assert.equal(big.imported + many.imported, 0);
    assert.deepEqual(await store.listPresets(alice), []);
    const thousand = await importPresets(
      store,
      alice,
      JSON.stringify({ format: 'parley-presets', version: 1, presets: Array.from({ length: 1000 }, (_, i) => entry(i)) }),
    );
    assert.deepEqual(thousand, { imported: 1000, issues: [] });
  });
});
