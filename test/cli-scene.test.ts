// Issue 16 item 5 and issue 15 item 5 at the terminal: a preset is a scene (roots + answers). Saved by one
// `parley` process, it loads in another (`parley call … --preset`), also after export and import into a
// fresh store. Remembered answers are listed, switched between "answer automatically" and "prefill only",
// and forgotten with `parley answers`. Real sales server (from source), real SQLite store.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runParley } from './helpers/cli.js';
import { cliProject, type CliProject } from './fixtures/cli/setup.js';

const T = 300_000; // generous: the machine may be shared and loaded
let p: CliProject;
before(() => {
  p = cliProject();
});
after(() => p.cleanup());

const parley = (...args: string[]) => runParley([...args, '--config', p.config], { timeoutMs: 120_000 });
const withDb = (db: string, ...args: string[]) => parley(...args, '--db', db);

describe('scene presets across processes', () => {
  it('remember always → presets save holds roots and answers → another process (and another store after export/import) answers from it', {
    timeout: T,
  }, async () => {
    const db = p.db;
    const answers = join(p.dir, 'custom.json');
    writeFileSync(
      answers,
      JSON.stringify({ sales: { table: 'orders', range: 'custom', region: '北京', from: '2024-02-01', to: '2024-02-29' } }),
    );
    assert.equal((await withDb(db, 'roots', 'add', p.dir, '--name', 'work')).code, 0);
    const first = await withDb(db, 'call', 'sales', 'query_sales', 'limit=3', '--answers', answers, '--remember', 'always', '--json');
    assert.equal(first.code, 0, first.stderr);
    assert.equal(JSON.parse(first.stdout).from, '2024-02-01');

    // Both forms (configuration, custom dates) are in the list of remembered answers, prefill only.
    const listed = JSON.parse((await withDb(db, 'answers', '--json')).stdout) as Array<{
      server: string;
      schemaHash: string;
      auto: boolean;
      label?: string;
      content: Record<string, unknown>;
    }>;
    assert.equal(listed.length, 2, JSON.stringify(listed));
    assert.ok(listed.every((a) => a.server === 'sales' && a.auto === false));
    assert.ok(listed.some((a) => /Custom range/.test(a.label ?? '') && a.content.from === '2024-02-01'));

    const save = await withDb(db, 'presets', 'save', 'scene', '--json');
    assert.equal(save.code, 0, save.stderr);
    const preset = JSON.parse(save.stdout) as { roots: Array<{ name?: string }>; answers: Record<string, Record<string, unknown>> };
    assert.deepEqual(
      preset.roots.map((r) => r.name),
      ['work'],
    );
    assert.deepEqual(preset.answers.sales, { table: 'orders', range: 'custom', region: '北京', from: '2024-02-01', to: '2024-02-29' });

    // Another process, same store: --preset finds the scene saved by `presets save` (user scope).
    const again = await withDb(db, 'call', 'sales', 'query_sales', 'limit=3', '--preset', 'scene', '--non-interactive', '--json');
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual([JSON.parse(again.stdout).from, JSON.parse(again.stdout).to], ['2024-02-01', '2024-02-29']);
    // Loading the scene lost nothing: the root saved with `roots add` is still stored (a review found
    // that loading re-added it as a session root, which deleted its stored row).
    const rootsAfter = await withDb(db, 'roots', '--json');
    assert.equal(rootsAfter.code, 0, rootsAfter.stderr);
    assert.ok(
      (JSON.parse(rootsAfter.stdout) as Array<{ name?: string }>).some((r) => r.name === 'work'),
      `the saved root is still there: ${rootsAfter.stdout}`,
    );

    // Export, import into a fresh store (no remembered answers there): the scene alone answers.
    const file = join(p.dir, 'scene.json');
    assert.equal((await withDb(db, 'presets', 'export', file)).code, 0);
    const fresh = join(p.dir, 'fresh.db');
    const imp = await withDb(fresh, 'presets', 'import', file);
    assert.equal(imp.code, 0, imp.stderr);
    const without = await withDb(fresh, 'call', 'sales', 'query_sales', 'limit=3', '--non-interactive');
    assert.equal(without.code, 1, 'without the preset nobody can answer in the fresh store');
    const moved = await withDb(fresh, 'call', 'sales', 'query_sales', 'limit=3', '--preset', 'scene', '--non-interactive', '--json');
    assert.equal(moved.code, 0, moved.stderr);
    assert.equal(JSON.parse(moved.stdout).config.region, '北京');
  });

  it("presets load adds only missing roots: a root already stored keeps its name, a configuration root stays the configuration's", {
    timeout: T,
  }, async () => {
    const db = join(p.dir, 'load.db');
    const work = join(p.dir, 'work');
    const shared = join(p.dir, 'shared');
    mkdirSync(work, { recursive: true });
    mkdirSync(shared, { recursive: true });
    const config = join(p.dir, 'load.json');
    writeFileSync(config, JSON.stringify({ mcpServers: {}, roots: [{ uri: shared, name: 'team' }] }));
    const run = (...args: string[]) => runParley([...args, '--config', config, '--db', db], { timeoutMs: 120_000 });
    const scene = join(p.dir, 'load-scene.json');
    const uri = (dir: string) => `file://${dir}`;
    writeFileSync(
      scene,
      JSON.stringify({
        format: 'parley-presets',
        version: 1,
        presets: [{ name: 'desk', roots: [{ uri: uri(work) }, { uri: uri(shared) }], answers: {}, config: {} }],
      }),
    );
    const imported = await run('presets', 'import', scene);
    assert.equal(imported.code, 0, imported.stderr);
    const added = await run('roots', 'add', work, '--name', 'work');
    assert.equal(added.code, 0, added.stderr);
    const load = await run('presets', 'load', 'desk');
    assert.equal(load.code, 0, load.stderr);
    assert.match(load.stdout, /added 0 root\(s\) to the app roots \(2 already there, kept as they were\)/);
    const roots = JSON.parse((await run('roots', '--json')).stdout) as Array<{ uri: string; name?: string; source: string }>;
    assert.deepEqual(
      roots.map(({ uri, name, source }) => ({ uri, name, source })).sort((a, b) => a.uri.localeCompare(b.uri)),
      [
        { uri: uri(shared), name: 'team', source: 'config' },
        { uri: uri(work), name: 'work', source: 'user' },
      ],
    );
    // Without the configuration root, loading the scene adds it (and only it) as the person's own.
    writeFileSync(config, JSON.stringify({ mcpServers: {} }));
    const again = await run('presets', 'load', 'desk');
    assert.match(again.stdout, /added 1 root\(s\) to the app roots \(1 already there, kept as they were\)/);
  });

  it('parley answers: auto / prefill / forget one / forget a server; bad ids are clear errors', { timeout: T }, async () => {
    const db = join(p.dir, 'answers.db');
    const answers = join(p.dir, 'regions.json');
    writeFileSync(answers, JSON.stringify({ sales: { table: 'regions', range: 'last_month', region: 'all' } }));
    const first = await withDb(db, 'call', 'sales', 'query_sales', '--answers', answers, '--remember', 'auto');
    assert.equal(first.code, 0, first.stderr);
    const [one] = JSON.parse((await withDb(db, 'answers', '--json')).stdout) as Array<{ schemaHash: string; auto: boolean }>;
    assert.equal(one.auto, true, '--remember auto marks the answer "answer automatically next time"');
    const text = await withDb(db, 'answers');
    assert.match(text.stdout, new RegExp(`^sales\\t${one.schemaHash.slice(0, 12)}\\tauto\\t"Which sales data`, 'm'));
    assert.equal((await withDb(db, 'answers', 'prefill', 'sales', one.schemaHash.slice(0, 8))).code, 0);
    assert.equal((JSON.parse((await withDb(db, 'answers', '--json')).stdout) as Array<{ auto: boolean }>)[0].auto, false);
    const missing = await withDb(db, 'answers', 'auto', 'sales', 'ffffffff');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no remembered answer of sales for form ffffffff/);
    const bad = await withDb(db, 'call', 'sales', 'query_sales', '--remember', 'forever');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--remember must be once, session, always, auto/);
    const forget = await withDb(db, 'answers', 'forget', 'sales', one.schemaHash);
    assert.equal(forget.code, 0, forget.stderr);
    assert.match((await withDb(db, 'answers')).stdout, /no remembered answers/);
    // Nothing left to forget (or a misspelt server name): exit 1 naming the server, as `roots remove`.
    const none = await withDb(db, 'answers', 'forget', 'sales');
    assert.equal(none.code, 1, none.stdout);
    assert.match(none.stderr, /no remembered answers of sales/);
  });
});
