// envFile (dotenv) parsing and envFile errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDotenv, loadHostConfig } from '../src/host/config/index.js';
import { sandbox } from './fixtures/config/tmp.js';

test('parseDotenv: KEY=VALUE, quotes, comments, export, escapes', () => {
  const r = parseDotenv(
    [
      '# comment',
      '',
      'A=1',
      'export B = two words ',
      'C="quoted # not a comment"',
      "D='single $X \\n'",
      'E="line\\nbreak \\"q\\""',
      'F=value # trailing comment',
      'G=',
      'H=a=b',
      'A=later',
      '\r',
    ].join('\n'),
  );
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.vars, {
    A: 'later',
    B: 'two words',
    C: 'quoted # not a comment',
    D: 'single $X \\n',
    E: 'line\nbreak "q"',
    F: 'value',
    G: '',
    H: 'a=b',
  });
});

test('parseDotenv: bad lines are reported with their line number', () => {
  const r = parseDotenv('OK=1\nnot a pair\n1BAD=x\nQ="open\n');
  assert.deepEqual(
    r.problems.map((p) => p.line),
    [2, 3, 4],
  );
});

test('a missing or malformed envFile makes the server invalid with the envFile pointer', () => {
  const s = sandbox();
  try {
    s.write('bad.env', 'oops\n');
    s.write(
      '.mcp.json',
      JSON.stringify({ mcpServers: { a: { command: 'x', envFile: 'missing.env' }, b: { command: 'x', envFile: '~/../project/bad.env' } } }),
    );
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.deepEqual(config.invalidServers, ['a', 'b']);
    assert.deepEqual(
      issues.map((i) => [i.code, i.server, i.path]),
      [
        ['env-file', 'a', '/mcpServers/a/envFile'],
        ['env-file', 'b', '/mcpServers/b/envFile'],
      ],
    );
    assert.match(issues[0].message, /ENOENT/);
    assert.match(issues[1].message, /bad\.env:1: expected KEY=VALUE/);
  } finally {
    s.cleanup();
  }
});
