// Search order, precedence, merge rules and errors as data with line:column.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadHostConfig, loadConfigFile, formatConfigIssues } from '../src/host/config/index.js';
import type { StdioServerDef, ConfigIssue } from '../src/host/config/index.js';
import { sandbox } from './fixtures/config/tmp.js';

const cmd = (c: string) => ({ command: c });
const j = (v: unknown) => JSON.stringify(v, null, 2);

test('precedence: flag > parley.json > .mcp.json > .vscode/mcp.json > user > embedded, per server name', () => {
  const s = sandbox();
  try {
    const names = ['flag', 'parley', 'mcp', 'vscode', 'user', 'embedded'];
    // Source i (highest first) defines s0..s<i>, so s<k> is defined by sources k..5 and source k must win.
    const defs = (i: number, who: string) => Object.fromEntries(names.slice(0, i + 1).map((_, k) => [`s${k}`, cmd(who)]));
    const flag = s.write('elsewhere/flag.json', j({ mcpServers: defs(0, 'flag') }));
    s.write('parley.json', j({ mcpServers: defs(1, 'parley') }));
    s.write('.mcp.json', j({ mcpServers: defs(2, 'mcp') }));
    s.write('.vscode/mcp.json', j({ servers: defs(3, 'vscode') }));
    const user = s.write('.config/parley/parley.json', j({ servers: defs(4, 'user') }), s.home);
    const { config, issues } = loadHostConfig({
      cwd: s.cwd,
      home: s.home,
      env: {},
      flagFile: 'elsewhere/flag.json',
      embedded: { mcpServers: defs(5, 'embedded') },
    });
    assert.deepEqual(issues, []);
    const winners = names.map((_, i) => (config.servers[`s${i}`] as StdioServerDef).command);
    assert.deepEqual(winners, names);
    assert.deepEqual(config.sources, [
      '<embedded>',
      user,
      join(s.cwd, '.vscode/mcp.json'),
      join(s.cwd, '.mcp.json'),
      join(s.cwd, 'parley.json'),
      flag,
    ]);
  } finally {
    s.cleanup();
  }
});

test('a higher file replaces the whole server entry (no field merge)', () => {
  const s = sandbox();
  try {
    s.write('.mcp.json', j({ mcpServers: { a: { command: 'low', args: ['x'], env: { K: 'v' } } } }));
    s.write('parley.json', j({ mcpServers: { a: { url: 'http://127.0.0.1:9/mcp' } } }));
    const { config } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.deepEqual(Object.keys(config.servers.a).sort(), ['headers', 'name', 'origin', 'type', 'url']);
  } finally {
    s.cleanup();
  }
});

test('an invalid or disabled higher entry shadows a valid lower one', () => {
  const s = sandbox();
  try {
    s.write('.mcp.json', j({ mcpServers: { a: cmd('ok'), b: cmd('ok'), c: cmd('ok') } }));
    s.write('parley.json', j({ mcpServers: { a: { command: '${UNSET}' }, b: { command: 'x', disabled: true } } }));
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.deepEqual(Object.keys(config.servers), ['c']);
    assert.deepEqual(config.invalidServers, ['a']);
    assert.equal(issues.length, 1);
  } finally {
    s.cleanup();
  }
});

test('routes and roots concatenate (higher first); policy, profile, presets and inputs merge per key', () => {
  const s = sandbox();
  try {
    s.write(
      '.config/parley/parley.json',
      j({
        routes: [{ match: 'u://*', servers: [] }],
        roots: ['file:///u', 'file:///both'],
        policy: { burst: 3, ratePerMinute: 5 },
        profile: { name: 'U', email: 'u@x' },
        presets: { p: { roots: ['file:///u'] }, q: {} },
        inputs: [{ id: 'i', type: 'promptString', description: 'user' }],
      }),
      s.home,
    );
    s.write(
      'parley.json',
      j({
        routes: [{ match: 'p://*', servers: [] }],
        roots: ['file:///p', 'file:///both'],
        policy: { burst: 7 },
        profile: { name: 'P' },
        presets: { p: {} },
        inputs: [{ id: 'i', type: 'promptString', description: 'project' }],
      }),
    );
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.deepEqual(issues, []);
    assert.deepEqual(
      config.routes.map((r) => r.match),
      ['p://*', 'u://*'],
    );
    assert.deepEqual(
      config.roots.map((r) => r.uri),
      ['file:///p', 'file:///both', 'file:///u'],
    );
    assert.equal(config.policy.burst, 7);
    assert.equal(config.policy.ratePerMinute, 5);
    assert.equal(config.policy.sensitiveFields, 'decline');
    assert.deepEqual(config.profile, { name: 'P', email: 'u@x' });
    assert.deepEqual(config.presets, { p: {}, q: {} });
    assert.equal(config.inputs.i.description, 'project');
  } finally {
    s.cleanup();
  }
});

test('XDG_CONFIG_HOME moves the user file; missing optional files are skipped silently', () => {
  const s = sandbox();
  try {
    const xdg = join(s.root, 'xdg');
    const f = s.write('parley/parley.json', j({ mcpServers: { x: cmd('x') } }), xdg);
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: { XDG_CONFIG_HOME: xdg } });
    assert.deepEqual(issues, []);
    assert.deepEqual(config.sources, [f]);
  } finally {
    s.cleanup();
  }
});

test('a missing --config file is an error; embedded text (JSONC) is accepted', () => {
  const s = sandbox();
  try {
    const { config, issues } = loadHostConfig({
      cwd: s.cwd,
      home: s.home,
      env: {},
      flagFile: '~/nope.json',
      embedded: '// default\n{"mcpServers": {"d": {"command": "d",},},}',
    });
    assert.equal(issues.length, 1);
    assert.equal(issues[0].code, 'read-failed');
    assert.equal(issues[0].file, join(s.home, 'nope.json'));
    assert.match(issues[0].message, /ENOENT/);
    assert.ok(config.servers.d);
  } finally {
    s.cleanup();
  }
});

test('bad JSON: parse issues carry line:column and the file yields nothing', () => {
  const s = sandbox();
  try {
    const file = s.write('.mcp.json', '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}\n');
    const r = loadConfigFile(file, { cwd: s.cwd, home: s.home, env: {} });
    assert.equal(r.layer, undefined);
    assert.equal(r.issues[0].code, 'parse');
    assert.deepEqual([r.issues[0].line, r.issues[0].column], [4, 5]);
    assert.match(r.issues[0].message, /comma expected/);
    const { config } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.deepEqual(config.servers, {}, 'a half-read file starts nothing');
  } finally {
    s.cleanup();
  }
});

test('unreadable file (a directory in its place): an issue, not a crash', () => {
  const s = sandbox();
  try {
    mkdirSync(join(s.cwd, 'parley.json'));
    const { issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.equal(issues.length, 1);
    assert.equal(issues[0].code, 'read-failed');
    assert.equal(issues[0].file, join(s.cwd, 'parley.json'));
    assert.match(issues[0].message, /EISDIR/);
  } finally {
    s.cleanup();
  }
});

test('unreadable file (no permission): an issue, not a crash', {
  skip: process.getuid?.() === 0 ? 'root can read any file' : false,
}, () => {
  const s = sandbox();
  try {
    const file = s.write('parley.json', '{}');
    chmodSync(file, 0o000);
    const { issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.equal(issues[0].code, 'read-failed');
    assert.match(issues[0].message, /EACCES/);
  } finally {
    s.cleanup();
  }
});

test('wrong types are errors naming the pointer and expected type; unknown keys are warnings', () => {
  const s = sandbox();
  try {
    const text = j({
      mcpServers: {
        a: { command: 'x', args: ['ok', 3], extra: true },
        b: { command: 'x', env: { PORT: 3000 } },
        c: { url: 'https://h.example', headers: 'nope' },
        d: { command: 'x', timeouts: { startupMs: -1 } },
        e: 'string',
        f: { type: 'websocket', url: 'ws://x' },
        g: {},
      },
      policy: { sensitiveFields: 'maybe', burst: 1.5, urlSchemes: 'https' },
      routes: [
        { match: '(', regex: true, servers: ['a'] },
        { match: 'x://*', servers: ['nobody'] },
      ],
      unknownTop: 1,
    });
    const file = s.write('parley.json', text);
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    const by = (path: string) => issues.find((i) => i.path === path) as ConfigIssue;
    const expectIssue = (path: string, code: string, sev: 'error' | 'warning', msg: RegExp) => {
      const i = by(path);
      assert.ok(i, `issue at ${path}`);
      assert.equal(i.code, code, path);
      assert.equal(i.severity, sev, path);
      assert.match(i.message, msg, path);
      assert.equal(i.file, file);
    };
    expectIssue('/mcpServers/a/args/1', 'type', 'error', /expected a string, got number/);
    expectIssue('/mcpServers/a/extra', 'unknown-key', 'warning', /unknown key "extra"/);
    // `"PORT": 3000` is what people write most: used as "3000", with a warning (issue 15 item 9).
    expectIssue('/mcpServers/b/env/PORT', 'coerced', 'warning', /number value is used as a string/);
    expectIssue('/mcpServers/c/headers', 'type', 'error', /expected an object of strings, got string/);
    expectIssue('/mcpServers/d/timeouts/startupMs', 'type', 'error', /positive number of milliseconds/);
    expectIssue('/mcpServers/e', 'type', 'error', /expected a server object, got string/);
    expectIssue('/mcpServers/f/type', 'invalid-value', 'error', /unknown server type "websocket"/);
    expectIssue('/mcpServers/g', 'required', 'error', /neither "command".*nor "url"/);
    expectIssue('/policy/sensitiveFields', 'invalid-value', 'error', /"decline", "ask" or "allow"/);
    expectIssue('/policy/burst', 'type', 'error', /non-negative integer/);
    expectIssue('/policy/urlSchemes', 'type', 'error', /array of URL scheme/);
    expectIssue('/routes/0/match', 'invalid-regex', 'error', /invalid regular expression/);
    expectIssue('/unknownTop', 'unknown-key', 'warning', /unknownTop/);
    assert.ok(issues.some((i) => i.code === 'unknown-server' && /nobody/.test(i.message)));
    assert.deepEqual(Object.keys(config.servers), ['b']);
    assert.deepEqual(config.servers.b.type === 'stdio' && config.servers.b.env, { PORT: '3000' });
    assert.deepEqual(config.invalidServers?.sort(), ['a', 'c', 'd', 'e', 'f', 'g']);
    assert.equal(config.policy.sensitiveFields, 'decline', 'bad policy values fall back to defaults');
    // Unknown keys point at the key itself.
    const extra = by('/mcpServers/a/extra');
    const lines = text.split('\n');
    assert.equal(extra.line, lines.findIndex((l) => l.includes('"extra"')) + 1);
    assert.equal(extra.column, lines[extra.line! - 1].indexOf('"extra"') + 1);
    // Messages never echo values (they may be secrets).
    assert.ok(!formatConfigIssues(issues).includes('3000'));
  } finally {
    s.cleanup();
  }
});

test('an entry whose "command" or "url" is misspelt names the key and the fix, at the key', () => {
  const s = sandbox();
  try {
    const text = j({
      mcpServers: {
        typo: { comand: 'node', args: ['server.js'] },
        cased: { Command: 'node' },
        windsurf: { serverUrl: 'https://h.example/mcp' },
        other: { uri: 'https://h.example/mcp' },
        none: { args: ['x'], name: 'x' },
      },
    });
    const file = s.write('parley.json', text);
    const { issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    const at = (path: string) => issues.find((i) => i.path === path) as ConfigIssue;
    for (const [path, key, meant] of [
      ['/mcpServers/typo/comand', 'comand', 'command'],
      ['/mcpServers/cased/Command', 'Command', 'command'],
      ['/mcpServers/windsurf/serverUrl', 'serverUrl', 'url'],
      ['/mcpServers/other/uri', 'uri', 'url'],
    ]) {
      const i = at(path);
      assert.ok(i, `issue at ${path}: ${formatConfigIssues(issues)}`);
      assert.equal(i.code, 'required');
      assert.equal(i.severity, 'error');
      assert.match(i.message, new RegExp(`"${key}" is not a key here: did you mean "${meant}"\\?`));
      assert.equal(i.fix, `rename "${key}" to "${meant}"`);
      assert.equal(i.file, file);
      const lines = text.split('\n');
      assert.equal(i.line, lines.findIndex((l) => l.includes(`"${key}"`)) + 1, `${path} points at the key's line`);
    }
    // Nothing near: the plain rule, at the entry.
    assert.match(at('/mcpServers/none').message, /^server has neither "command" \(stdio\) nor "url" \(HTTP\)$/);
  } finally {
    s.cleanup();
  }
});

test('${input:id} with no matching input is an error at load, the server is invalid', () => {
  const s = sandbox();
  try {
    s.write('.vscode/mcp.json', j({ servers: { a: { command: 'x', env: { K: '${input:ghost}' } } } }));
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.equal(issues[0].code, 'unknown-input');
    assert.equal(issues[0].server, 'a');
    assert.match(issues[0].message, /"ghost"/);
    assert.deepEqual(config.invalidServers, ['a']);
    assert.equal(config.servers.a, undefined);
  } finally {
    s.cleanup();
  }
});

test('formatConfigIssues: one line per issue, file:line:col server /pointer: severity: message (fix)', () => {
  const out = formatConfigIssues([
    {
      code: 'invalid-url',
      path: '/mcpServers/a/url',
      severity: 'error',
      message: 'bad url',
      fix: 'write a URL',
      file: '/p/.mcp.json',
      line: 3,
      column: 7,
      server: 'a',
    },
    { code: 'no-servers', path: '', severity: 'warning', message: 'no servers defined', file: '<embedded>' },
    { code: 'type', path: '/x', severity: 'error', message: 'm' },
  ]);
  assert.equal(
    out,
    ['/p/.mcp.json:3:7 a /mcpServers/a/url: error: bad url (write a URL)', '<embedded>: warning: no servers defined', '/x: error: m'].join(
      '\n',
    ),
  );
});

test('an empty file is a parse error at 1:1; a comment-only file too', () => {
  const s = sandbox();
  try {
    for (const text of ['', '// nothing\n']) {
      const file = s.write('x.json', text);
      const r = loadConfigFile(file, { cwd: s.cwd, home: s.home, env: {} });
      assert.equal(r.issues[0].code, 'parse', JSON.stringify(text));
      assert.equal(r.issues[0].line, text ? 2 : 1);
    }
  } finally {
    s.cleanup();
  }
});

test('the embedded default is copied, and must be JSON data', () => {
  const s = sandbox();
  try {
    const embedded = { profile: { tags: ['a'] }, mcpServers: {} };
    const { config } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {}, embedded });
    (config.profile.tags as string[]).push('mutated');
    assert.deepEqual(embedded.profile.tags, ['a']);
    const bad = loadHostConfig({ cwd: s.cwd, home: s.home, env: {}, embedded: { profile: { f: () => 1 } } });
    assert.equal(bad.issues[0].code, 'type');
    assert.equal(bad.issues[0].file, '<embedded>');
  } finally {
    s.cleanup();
  }
});
