// The list commands and `config check`, as child processes with --json.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { runParley } from './helpers/cli.js';
import { cliProject, FIXTURES, type CliProject } from './fixtures/cli/setup.js';

const T = 300_000; // generous: the machine may be shared and loaded
let p: CliProject;
before(() => {
  p = cliProject();
});
after(() => p.cleanup());
const parley = (cmd: string, ...args: string[]) => runParley([cmd, ...p.flags, ...args], { timeoutMs: 120_000 });

describe('parley config check', () => {
  it('exits 0 on a good file and lists its servers', { timeout: T }, async () => {
    const r = await runParley(['config', 'check', p.config, '--json'], { timeoutMs: 120_000 });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { servers: string[]; issues: unknown[] };
    assert.deepEqual(out.servers.sort(), ['everything', 'sales']);
    assert.deepEqual(out.issues, []);
  });
  it('exits 1 on a bad file and names file:line:col, server, pointer and fix', { timeout: T }, async () => {
    const r = await runParley(['config', 'check', join(FIXTURES, 'bad-config.json')], { timeoutMs: 120_000 });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /bad-config\.json:3:\d+ broken \/mcpServers\/broken\/command: error: expected a string, got number \(make/);
    assert.match(r.stdout, /both \/mcpServers\/both: error: both "command" and "url" are set/);
    assert.match(r.stdout, /2 error\(s\)/);
  });
  it('exits 1 for a missing file and 2 for an unknown option', { timeout: T }, async () => {
    const [missing, bad] = await Promise.all([
      runParley(['config', 'check', join(p.dir, 'nope.json')], { timeoutMs: 120_000 }),
      runParley(['config', 'check', '--bogus'], { timeoutMs: 120_000 }),
    ]);
    assert.equal(missing.code, 1);
    assert.match(missing.stdout, /nope\.json.*cannot read configuration file \(ENOENT\)/);
    assert.equal(bad.code, 2);
  });
  it('a route naming an unknown server is reported with its file and its pointer in that file', { timeout: T }, async () => {
    const dir = join(p.dir, 'routes-project');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'parley.json'),
      JSON.stringify({ mcpServers: { a: { command: 'x' } }, routes: [{ match: 'file:///p/**', servers: ['a', 'ghost'] }] }),
    );
    writeFileSync(join(dir, 'high.json'), JSON.stringify({ routes: [{ match: 'file:///h/**', servers: ['a'] }] }));
    const r = await runParley(['config', 'check', '--config', 'high.json'], { cwd: dir, timeoutMs: 120_000 });
    assert.match(
      r.stdout,
      /\S*routes-project\/parley\.json \/routes\/0\/servers\/1: warning: route "file:\/\/\/p\/\*\*" names unknown server "ghost"/,
    );
  });

  it('other commands refuse to run on a configuration with errors (exit 1)', { timeout: T }, async () => {
    const r = await runParley(['servers', '--config', join(FIXTURES, 'bad-config.json'), '--db', p.db], { timeoutMs: 120_000 });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /configuration has errors/);
  });
});

describe('parley servers / tools', () => {
  it('servers --json lists name, type and state; --start adds the negotiated revision', { timeout: T }, async () => {
    const [cold, started] = await Promise.all([parley('servers', '--json'), parley('servers', '--start', '--json')]);
    assert.equal(cold.code, 0, cold.stderr);
    const list = JSON.parse(cold.stdout) as Array<{ name: string; type: string; state: { status: string } }>;
    assert.deepEqual(list.map((s) => [s.name, s.type, s.state.status]).sort(), [
      ['everything', 'stdio', 'stopped'],
      ['sales', 'stdio', 'stopped'],
    ]);
    assert.equal(started.code, 0, started.stderr);
    const running = JSON.parse(started.stdout) as Array<{
      name: string;
      state: { status: string };
      revision?: string;
      capabilities?: Record<string, unknown>;
    }>;
    for (const s of running) {
      assert.equal(s.state.status, 'running', s.name);
      assert.match(s.revision ?? '', /^\d{4}-\d{2}-\d{2}$/);
      assert.ok(s.capabilities?.tools, `${s.name} declares tools`);
    }
  });
  it("tools --json lists each server's tools", { timeout: T }, async () => {
    const r = await parley('tools', 'everything', 'sales', '--json');
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Record<string, { tools: Array<{ name: string }> }>;
    assert.ok(out.everything.tools.some((t) => t.name === 'trigger-elicitation-request'));
    assert.ok(out.sales.tools.some((t) => t.name === 'query_sales'));
    const unknown = await parley('tools', 'nosuch');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no server named "nosuch"/);
  });
});

describe('parley roots / presets / audit', () => {
  it('roots add/list/remove persist in the store', { timeout: T }, async () => {
    const add = await parley('roots', 'add', p.dir, '--name', 'project');
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /^added file:\/\/\S+\n$/, 'a healthy root is just added');
    // A folder that is not there is kept, and said at once: it is not sent to servers while missing.
    const missing = join(p.dir, 'not-yet');
    const addMissing = await parley('roots', 'add', missing);
    assert.equal(addMissing.code, 0, addMissing.stderr);
    assert.match(addMissing.stdout, /^added file:\/\/\S+\/not-yet: missing \(invalid: not sent to servers; ENOENT\)\n$/);
    assert.equal((await parley('roots', 'remove', missing)).code, 0);
    const list = JSON.parse((await parley('roots', '--json')).stdout) as Array<{ uri: string; name?: string; lifetime: string }>;
    const mine = list.find((r) => r.name === 'project');
    assert.ok(mine, JSON.stringify(list));
    assert.match(mine.uri, /^file:\/\//);
    assert.equal(mine.lifetime, 'app');
    const badScope = await parley('roots', 'add', p.dir, '--scope', 'forever');
    assert.equal(badScope.code, 2);
    const sessionScope = await parley('roots', 'add', p.dir, '--scope', 'session');
    assert.equal(sessionScope.code, 2);
    assert.match(sessionScope.stderr, /would end with this command/);
    // presets save takes the user's roots
    const save = await parley('presets', 'save', 'demo');
    assert.equal(save.code, 0, save.stderr);
    const presets = JSON.parse((await parley('presets', '--json')).stdout) as Array<{ name: string; roots: number }>;
    assert.deepEqual(presets.find((x) => x.name === 'demo')?.roots, 1);
    const file = join(p.dir, 'presets.json');
    assert.equal((await parley('presets', 'export', file)).code, 0);
    const rm = await parley('roots', 'remove', mine.uri);
    assert.equal(rm.code, 0, rm.stderr);
    assert.equal((JSON.parse((await parley('roots', '--json')).stdout) as unknown[]).length, 0);
    assert.equal((await parley('roots', 'remove', mine.uri)).code, 1);
    // load brings the roots back
    const load = await parley('presets', 'load', 'demo');
    assert.equal(load.code, 0, load.stderr);
    assert.equal((JSON.parse((await parley('roots', '--json')).stdout) as unknown[]).length, 1);
    // unload: a command keeps no preset loaded; it says so and names the roots to remove
    const unload = await parley('presets', 'unload', 'demo');
    assert.equal(unload.code, 1, unload.stderr);
    assert.match(
      unload.stderr,
      /presets unload: a parley command keeps no preset loaded; `parley presets load` added its roots to the app roots, which stay until removed \(parley roots remove file:\/\/\S+\)\. A preset loaded in the console of a running `parley up` is unloaded there \(Presets → Unload\)/,
    );
    const unknown = await parley('presets', 'load', 'missing');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /presets load: no preset named "missing" \(saved: demo, monthly\)/);
    // import: a bad document is refused with a pointer
    writeFileSync(
      join(p.dir, 'bad.json'),
      JSON.stringify({ format: 'parley-presets', version: 1, presets: [{ name: 'x', roots: [{}], answers: {}, config: {} }] }),
    );
    const bad = await parley('presets', 'import', join(p.dir, 'bad.json'));
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /\/presets\/0\/roots\/0/);
    // a file that is not JSON: file, line and column of the mistake and the fix, not a character offset
    writeFileSync(join(p.dir, 'broken.json'), '{\n  "format": "parley-presets",\n  "presets": [],\n}\n');
    const broken = await parley('presets', 'import', join(p.dir, 'broken.json'));
    assert.equal(broken.code, 2, broken.stderr);
    assert.match(
      broken.stderr,
      /presets import: \S+broken\.json: not valid JSON \(line 4, column 1: Expected double-quoted property name\); fix the file there, or write it again with parley presets export/,
    );
    assert.doesNotMatch(broken.stderr, /position \d+/);
    writeFileSync(join(p.dir, 'cut.json'), '{\n  "format": "parley-presets",\n  "presets": [\n');
    const cut = await parley('presets', 'import', join(p.dir, 'cut.json'));
    assert.equal(cut.code, 2, cut.stderr);
    assert.match(cut.stderr, /cut\.json: not valid JSON \(line 4, column 1: Unexpected end of JSON input\)/);
    // a file over 4 MiB is refused by its size, before it is read
    writeFileSync(join(p.dir, 'huge.json'), ' '.repeat(4 * 1024 * 1024 + 1));
    const huge = await parley('presets', 'import', join(p.dir, 'huge.json'));
    assert.notEqual(huge.code, 0);
    assert.match(huge.stderr, /huge\.json is 4194305 bytes, over the 4194304-byte \(4 MiB\) limit/);
    const good = await parley('presets', 'import', file);
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /imported 1 preset/);
    // a file saved by a Windows editor starts with a UTF-8 byte-order mark
    const bom = join(p.dir, 'bom.json');
    writeFileSync(bom, `\uFEFF${JSON.stringify({ format: 'parley-presets', version: 1, presets: [{ name: 'bom' }] })}`);
    const withBom = await parley('presets', 'import', bom);
    assert.equal(withBom.code, 0, withBom.stderr);
    assert.match(withBom.stdout, /imported 1 preset/);
  });

  it('empty lists say so (and how to add one) instead of printing nothing', { timeout: T }, async () => {
    const config = join(p.dir, 'empty.json');
    writeFileSync(config, JSON.stringify({ mcpServers: {} }));
    const run = (...args: string[]) => runParley([...args, '--config', config, '--db', join(p.dir, 'empty.db')], { timeoutMs: 120_000 });
    const roots = await run('roots');
    assert.equal(roots.code, 0, roots.stderr);
    assert.equal(roots.stdout, 'no roots (add one: parley roots add <path> [--name N])\n');
    assert.deepEqual(JSON.parse((await run('roots', '--json')).stdout), []);
    const presets = await run('presets');
    assert.equal(presets.code, 0, presets.stderr);
    assert.equal(presets.stdout, 'no presets (save the current roots and answers: parley presets save <name>)\n');
  });

  it('roots add / remove of a root of the configuration say so, naming the file, instead of "added" / "removed"', {
    timeout: T,
  }, async () => {
    const config = join(p.dir, 'with-root.json');
    writeFileSync(config, JSON.stringify({ mcpServers: {}, roots: [{ uri: p.dir, name: 'project' }] }));
    const run = (...args: string[]) =>
      runParley([...args, '--config', config, '--db', join(p.dir, 'config-root.db')], { timeoutMs: 120_000 });
    const add = await run('roots', 'add', p.dir, '--name', 'mine');
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /^file:\/\/\S+ is already a root, from the configuration \(.*with-root\.json\); nothing added/);
    const rm = await run('roots', 'remove', p.dir);
    assert.equal(rm.code, 1, rm.stdout);
    assert.doesNotMatch(rm.stdout, /removed/);
    assert.match(rm.stderr, /roots remove: file:\/\/\S+ comes from the configuration \(.*with-root\.json\).*remove it from "roots" there/);
    const roots = JSON.parse((await run('roots', '--json')).stdout) as Array<{ source: string }>;
    assert.deepEqual(
      roots.map((r) => r.source),
      ['config'],
    );
  });

  it('a stored root the configuration names too keeps its stored copy: back when the configuration drops it', {
    timeout: T,
  }, async () => {
    const plain = join(p.dir, 'no-root.json');
    const named = join(p.dir, 'names-root.json');
    writeFileSync(plain, JSON.stringify({ mcpServers: {} }));
    writeFileSync(named, JSON.stringify({ mcpServers: {}, roots: [{ uri: p.dir, name: 'project' }] }));
    const db = join(p.dir, 'both.db');
    const run = (config: string, ...args: string[]) => runParley([...args, '--config', config, '--db', db], { timeoutMs: 120_000 });
    const list = async (config: string) =>
      (JSON.parse((await run(config, 'roots', '--json')).stdout) as Array<{ source: string; name?: string }>).map((r) => [
        r.source,
        r.name,
      ]);
    assert.equal((await run(plain, 'roots', 'add', p.dir, '--name', 'mine')).code, 0);
    assert.deepEqual(await list(named), [['config', 'project']]);
    assert.deepEqual(await list(plain), [['user', 'mine']], 'the stored root survives a run where the configuration named it');
    // remove while the configuration names it: the stored copy goes, the configuration's stays
    const rm = await run(named, 'roots', 'remove', p.dir);
    assert.equal(rm.code, 0, rm.stderr);
    assert.match(
      rm.stdout,
      /^removed the stored copy of file:\/\/\S+; it stays a root while the configuration \(.*names-root\.json\) names it/,
    );
    assert.deepEqual(await list(named), [['config', 'project']]);
    assert.deepEqual(await list(plain), []);
  });

  it('audit --json shows tool calls, filtered by server, kind, action and limit', { timeout: T }, async () => {
    const c = await parley('call', 'everything', 'get-sum', 'a=1', 'b=2');
    assert.equal(c.code, 0, c.stderr);
    const all = JSON.parse((await parley('audit', '--json', '--server', 'everything', '--kind', 'tool-call')).stdout) as Array<{
      server: string;
      kind: string;
      action: string;
    }>;
    assert.ok(all.length >= 2);
    assert.ok(all.every((r) => r.server === 'everything' && r.kind === 'tool-call'));
    const ok = JSON.parse((await parley('audit', '--json', '--action', 'ok', '--limit', '1')).stdout) as Array<{ action: string }>;
    assert.deepEqual(
      ok.map((r) => r.action),
      ['ok'],
    );
    assert.equal((await parley('audit', '--limit', 'x')).code, 2);
  });

  it('audit prints times in the one format the console shows: ISO 8601 UTC to the second', { timeout: T }, async () => {
    const text = (await parley('audit', '--limit', '1')).stdout;
    assert.match(text, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z\t/m, text);
    assert.doesNotMatch(text, /T\d{2}:\d{2}:\d{2}\.\d{3}Z/, 'no milliseconds, no T');
  });
});

describe('--help', () => {
  it('works on every command', { timeout: T }, async () => {
    const cmds = [['call'], ['servers'], ['tools'], ['roots'], ['presets'], ['audit'], ['config', 'check']];
    const runs = [];
    for (const c of cmds) runs.push(await runParley([...c, '--help'], { timeoutMs: 120_000 }));
    runs.forEach((r, i) => {
      assert.equal(r.code, 0, cmds[i].join(' '));
      assert.match(r.stdout, /USAGE/i, cmds[i].join(' '));
      assert.match(r.stdout, /--config/, cmds[i].join(' '));
    });
  });
});
