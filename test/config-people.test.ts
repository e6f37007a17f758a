// Configuration as people write it (issue 15 items 9 and 10): VS Code's settings.json form, files saved as
// UTF-16 by Windows tools, files without servers, ${workspaceFolder} of a .vscode file, and numeric or
// boolean env values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { formatConfigIssues, loadHostConfig } from '../src/host/config/index.js';
import { sandbox } from './fixtures/config/tmp.js';

test('VS Code settings.json {"mcp": {"servers", "inputs"}} is read; its other keys are VS Code\'s', () => {
  const s = sandbox();
  try {
    s.write(
      '.vscode/settings.json',
      JSON.stringify({
        'editor.fontSize': 13,
        mcp: {
          inputs: [{ id: 'k', type: 'promptString', password: true }],
          servers: { fs: { command: 'node', args: ['srv.js'], env: { KEY: '${input:k}' } } },
        },
      }),
    );
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.deepEqual(issues, []);
    assert.deepEqual(Object.keys(config.servers), ['fs']);
    assert.deepEqual(Object.keys(config.inputs), ['k']);
    assert.equal(config.servers.fs.origin.pointer, '/mcp/servers/fs');
  } finally {
    s.cleanup();
  }
});

test('a settings.json without "mcp" is not an MCP configuration: nothing read, nothing warned', () => {
  const s = sandbox();
  try {
    s.write('.vscode/settings.json', '{"editor.fontSize": 13}');
    s.write('.mcp.json', '{"mcpServers": {"a": {"command": "x"}}}');
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.deepEqual(issues, []);
    assert.deepEqual(Object.keys(config.servers), ['a']);
  } finally {
    s.cleanup();
  }
});

test('a UTF-16 file (with or without a byte-order mark) is an error naming the encoding and the fix', () => {
  const s = sandbox();
  try {
    const text = '{"mcpServers": {"a": {"command": "x"}}}';
    const cases = [
      ['le-bom.json', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), 'UTF-16LE'],
      ['le.json', Buffer.from(text, 'utf16le'), 'UTF-16LE'],
      ['be-bom.json', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]), 'UTF-16BE'],
    ] as const;
    for (const [name, bytes, encoding] of cases) {
      const file = join(s.cwd, name);
      writeFileSync(file, bytes);
      const { issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {}, flagFile: file });
      assert.equal(issues.length, 1, `${name}: ${formatConfigIssues(issues)}`);
      assert.equal(issues[0].code, 'encoding');
      assert.equal(issues[0].file, file);
      assert.match(issues[0].message, new RegExp(`is ${encoding}; parley reads UTF-8`));
      assert.match(issues[0].fix ?? '', /save it as UTF-8/);
    }
    // A UTF-8 file with a BOM and non-ASCII text is still read.
    const utf8 = join(s.cwd, 'utf8.json');
    writeFileSync(utf8, '\ufeff{"mcpServers": {"销售": {"command": "x"}}}');
    assert.deepEqual(Object.keys(loadHostConfig({ cwd: s.cwd, home: s.home, env: {}, flagFile: utf8 }).config.servers), ['销售']);
  } finally {
    s.cleanup();
  }
});

test('a file with no servers at all is a warning, in every format; a parley.json with other settings is not', () => {
  for (const [rel, text, expect] of [
    ['.mcp.json', '{"mcpServers": {}}', true],
    ['.vscode/mcp.json', '{"servers": {}}', true],
    ['.vscode/mcp.json', '{"inputs": []}', true],
    ['parley.json', '{}', true],
    ['parley.json', '{"servers": {}}', true],
    ['parley.json', '{"policy": {"burst": 3}}', false],
    ['.vscode/settings.json', '{"mcp": {"servers": {}}}', true],
  ] as const) {
    const s = sandbox();
    try {
      s.write(rel, text);
      const { issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
      assert.deepEqual(
        issues.map((i) => [i.code, i.severity]),
        expect ? [['no-servers', 'warning']] : [],
        `${rel} ${text}`,
      );
    } finally {
      s.cleanup();
    }
  }
});

test('${workspaceFolder} in a .vscode file is the folder that holds .vscode, wherever parley runs', () => {
  const s = sandbox();
  try {
    const file = s.write(
      'other/app/.vscode/mcp.json',
      '{"servers": {"a": {"command": "node", "args": ["${workspaceFolder}/srv.js"], "cwd": "${workspaceFolder}"}}}',
    );
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {}, flagFile: file });
    assert.deepEqual(issues, []);
    const a = config.servers.a;
    assert.equal(a.type, 'stdio');
    if (a.type !== 'stdio') return;
    assert.deepEqual(a.args, [join(s.cwd, 'other', 'app', 'srv.js')]);
    assert.equal(a.cwd, join(s.cwd, 'other', 'app'));
    // A file outside .vscode keeps the project directory.
    const plain = s.write('other/parley.json', '{"servers": {"b": {"command": "node", "args": ["${workspaceFolder}"]}}}');
    const b = loadHostConfig({ cwd: s.cwd, home: s.home, env: {}, flagFile: plain }).config.servers.b;
    assert.deepEqual(b.type === 'stdio' && b.args, [s.cwd]);
  } finally {
    s.cleanup();
  }
});

test('numeric and boolean env values become strings with a warning that does not echo them; objects stay errors', () => {
  const s = sandbox();
  try {
    s.write(
      '.mcp.json',
      '{"mcpServers": {"a": {"command": "x", "env": {"PORT": 8080, "DEBUG": true, "PIN": 4711}}, "b": {"command": "x", "env": {"X": {"y": 1}}}}}',
    );
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    const a = config.servers.a;
    assert.deepEqual(a.type === 'stdio' && a.env, { PORT: '8080', DEBUG: 'true', PIN: '4711' });
    assert.deepEqual(
      issues.filter((i) => i.server === 'a').map((i) => [i.code, i.severity, i.path]),
      [
        ['coerced', 'warning', '/mcpServers/a/env/PORT'],
        ['coerced', 'warning', '/mcpServers/a/env/DEBUG'],
        ['coerced', 'warning', '/mcpServers/a/env/PIN'],
      ],
    );
    assert.doesNotMatch(formatConfigIssues(issues), /8080|4711/);
    assert.deepEqual(config.invalidServers, ['b']);
  } finally {
    s.cleanup();
  }
});

test('a configuration file over 4 MiB is a too-large error, read no further; an envFile too', () => {
  const s = sandbox();
  try {
    const text = '{"mcpServers": {"a": {"command": "x", "envFile": "big.env"}}}';
    const at = (n: number) => text + ' '.repeat(n - text.length);
    writeFileSync(join(s.cwd, 'big.env'), `A=${'x'.repeat(4 * 1024 * 1024)}\n`);
    const exact = join(s.cwd, 'exact.json');
    writeFileSync(exact, at(4 * 1024 * 1024));
    const ok = loadHostConfig({ cwd: s.cwd, home: s.home, env: {}, flagFile: exact });
    assert.deepEqual(
      ok.issues.map((i) => [i.code, i.path]),
      [['env-file', '/mcpServers/a/envFile']],
      'a file of exactly 4 MiB is read; its envFile over 4 MiB is not',
    );
    assert.match(ok.issues[0].message, /EFBIG/);
    const over = join(s.cwd, 'over.json');
    writeFileSync(over, at(4 * 1024 * 1024 + 1));
    const { issues, config } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {}, flagFile: over });
    assert.deepEqual(
      issues.map((i) => [i.code, i.file]),
      [['too-large', over]],
    );
    assert.match(issues[0].message, /larger than 4194304 bytes/);
    assert.deepEqual(config.servers, {});
  } finally {
    s.cleanup();
  }
});
