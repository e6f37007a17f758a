// Regression vectors C1–C4 (the checked copy test/vectors/config.json, see test/vectors.test.ts),
// each generalised to its kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { vectors as loadVectors } from './helpers/vectors.js';
import { execFileSync } from 'node:child_process';
import { loadHostConfig, buildChildEnv, resolveInputVariables, formatConfigIssues } from '../src/host/config/index.js';
import type { ConfigIssue, InputVariableDef, StdioServerDef, HttpServerDef } from '../src/host/config/index.js';
import { sandbox } from './fixtures/config/tmp.js';

const vectors: Array<{ id: string; input: unknown }> = loadVectors('config');
const vector = (prefix: string) => vectors.find((v) => v.id.startsWith(prefix))!.input;

/** Loads `text` as `rel` in a fresh project directory. */
function loadText(rel: string, text: string, env: Record<string, string | undefined> = {}) {
  const s = sandbox();
  try {
    const file = s.write(rel, text);
    return { ...loadHostConfig({ cwd: s.cwd, home: s.home, env }), file, cwd: s.cwd, home: s.home };
  } finally {
    s.cleanup();
  }
}
const errors = (issues: ConfigIssue[]) => issues.filter((i) => i.severity === 'error');

test('C1: a url without type is a Streamable HTTP server, never dropped', () => {
  const { config, issues } = loadText('.mcp.json', JSON.stringify(vector('C1')));
  assert.deepEqual(errors(issues), []);
  const remote = config.servers.remote as HttpServerDef;
  assert.equal(remote.type, 'http');
  assert.equal(remote.url, 'http://127.0.0.1:33221/mcp');
  assert.deepEqual(remote.headers, {});
});

test('C1 kind: every url shape in every format becomes a remote server or a reported error', () => {
  const shapes: Array<[string, unknown, 'http' | 'sse']> = [
    ['no type', { url: 'http://127.0.0.1:1/mcp' }, 'http'],
    ['type http', { type: 'http', url: 'http://127.0.0.1:1/mcp' }, 'http'],
    ['type streamable-http', { type: 'streamable-http', url: 'http://127.0.0.1:1/mcp' }, 'http'],
    ['type streamableHttp', { type: 'streamableHttp', url: 'http://127.0.0.1:1/mcp' }, 'http'],
    ['type sse', { type: 'sse', url: 'http://127.0.0.1:1/sse' }, 'sse'],
    ['with headers', { url: 'https://h.example/mcp', headers: { 'X-A': 'b' } }, 'http'],
  ];
  for (const [label, entry, type] of shapes) {
    for (const [rel, key] of [
      ['.mcp.json', 'mcpServers'],
      ['.vscode/mcp.json', 'servers'],
      ['parley.json', 'servers'],
      ['parley.json', 'mcpServers'],
    ] as const) {
      const { config, issues } = loadText(rel, JSON.stringify({ [key]: { r: entry } }));
      assert.deepEqual(errors(issues), [], `${label} in ${rel}`);
      assert.equal(config.servers.r?.type, type, `${label} in ${rel}`);
    }
  }
  // A url that is not http(s) is not dropped silently: it is an error naming the field.
  const bad = loadText('.mcp.json', '{"mcpServers": {"r": {"url": "ftp://x/y"}}}');
  assert.equal(bad.config.servers.r, undefined);
  assert.deepEqual(bad.config.invalidServers, ['r']);
  assert.equal(errors(bad.issues)[0].path, '/mcpServers/r/url');
  // url and command together without a type: ambiguous, reported.
  const both = loadText('.mcp.json', '{"mcpServers": {"r": {"url": "http://127.0.0.1/", "command": "x"}}}');
  assert.equal(errors(both.issues)[0].code, 'conflict');
});

test('C2: the child environment is the inherited one plus env; PATH and HOME stay', () => {
  const { config, issues } = loadText('.mcp.json', JSON.stringify(vector('C2')));
  assert.deepEqual(errors(issues), []);
  const def = config.servers.mem as StdioServerDef;
  const env = buildChildEnv(def, process.env);
  const out = execFileSync(process.execPath, ['-e', 'console.log(JSON.stringify(process.env))'], {
    env,
    encoding: 'utf8',
    timeout: 10_000,
  });
  const child = JSON.parse(out) as Record<string, string>;
  assert.equal(child.MEMORY_FILE_PATH, '/data/memory.json');
  assert.equal(child.PATH, process.env.PATH);
  assert.equal(child.HOME, process.env.HOME);
});

test('C2 kind: envFile sits between the inherited environment and env', () => {
  const s = sandbox();
  try {
    s.write('.env', 'FROM_FILE=file\nBOTH=file\nPATH_NOTE="a b"\n');
    s.write('.mcp.json', JSON.stringify({ mcpServers: { m: { command: 'node', envFile: '.env', env: { BOTH: 'env' } } } }));
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.deepEqual(errors(issues), []);
    const env = buildChildEnv(config.servers.m as StdioServerDef, { PATH: '/bin', HOME: '/h', BOTH: 'parent', FROM_FILE: 'parent' });
    assert.deepEqual(env, { PATH: '/bin', HOME: '/h', BOTH: 'env', FROM_FILE: 'file', PATH_NOTE: 'a b' });
  } finally {
    s.cleanup();
  }
});

test('C3: the vector expands; $LITERAL stays; TOOL_BIN unset makes the server invalid', () => {
  const text = JSON.stringify(vector('C3'), null, 2);
  const ok = loadText('.mcp.json', text, { TOOL_BIN: '/opt/tool', TOKEN: 't0k' });
  assert.deepEqual(errors(ok.issues), []);
  const s = ok.config.servers.s as StdioServerDef;
  assert.equal(s.command, '/opt/tool');
  assert.deepEqual(s.args, ['--root', '/srv', '$LITERAL']);
  assert.deepEqual(s.env, { TOKEN: 't0k' });

  const bad = loadText('.mcp.json', text, { TOKEN: 't0k' });
  assert.equal(bad.config.servers.s, undefined, 'never started with a literal placeholder');
  assert.deepEqual(bad.config.invalidServers, ['s']);
  const [e] = errors(bad.issues);
  assert.equal(e.code, 'unset-variable');
  assert.equal(e.file, bad.file);
  assert.equal(e.server, 's');
  assert.equal(e.path, '/mcpServers/s/command');
  const line = text.split('\n').findIndex((l) => l.includes('"command"')) + 1;
  assert.equal(e.line, line);
  assert.equal(e.column, text.split('\n')[line - 1].indexOf('"${TOOL_BIN}"') + 1);
  assert.match(
    formatConfigIssues([e]),
    new RegExp(
      `^${bad.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line}:\\d+ s /mcpServers/s/command: error: environment variable TOOL_BIN is not set \\(`,
    ),
  );
});

test('C4: the VS Code format is read; the input is asked once and marked secret', async () => {
  const { config, issues } = loadText('.vscode/mcp.json', JSON.stringify(vector('C4')));
  assert.deepEqual(errors(issues), []);
  const svc = config.servers.svc as StdioServerDef;
  assert.deepEqual(svc.inputRefs, ['api-key']);
  assert.equal(svc.env.API_KEY, '${input:api-key}');
  let calls = 0;
  const ask = async (i: InputVariableDef) => {
    calls++;
    assert.equal(i.password, true);
    return 'sk-secret';
  };
  const cache = new Map<string, string>();
  const r1 = (await resolveInputVariables(svc, config.inputs, ask, cache)) as StdioServerDef;
  const r2 = (await resolveInputVariables(svc, config.inputs, ask, cache)) as StdioServerDef;
  assert.equal(calls, 1);
  assert.equal(r1.env.API_KEY, 'sk-secret');
  assert.deepEqual(r1.secretEnv, ['API_KEY']);
  assert.equal(r1.inputRefs, undefined);
  assert.deepEqual(r2, r1);
});
