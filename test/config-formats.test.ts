// The three formats, read from real fixture files copied into a temp project.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfigFile, loadHostConfig, DEFAULT_POLICY, DEFAULT_TIMEOUTS } from '../src/host/config/index.js';
import type { StdioServerDef, HttpServerDef } from '../src/host/config/index.js';
import { sandbox } from './fixtures/config/tmp.js';

test('Claude Desktop claude_desktop_config.json: mcpServers, other app keys ignored, ~ and ${HOME}', () => {
  const s = sandbox();
  try {
    const file = s.copy('claude_desktop_config.json', 'claude_desktop_config.json');
    const r = loadConfigFile(file, { cwd: s.cwd, home: s.home, env: { HOME: s.home } });
    assert.equal(r.format, 'mcpServers');
    assert.deepEqual(r.issues, [], 'globalShortcut belongs to Claude Desktop: no warning');
    const fsDef = r.layer!.servers.filesystem as StdioServerDef;
    assert.deepEqual(fsDef.args, ['-y', '@modelcontextprotocol/server-filesystem', `${s.home}/Desktop`, `${s.home}/Downloads`]);
    assert.equal((r.layer!.servers.memory as StdioServerDef).env.MEMORY_FILE_PATH, `${s.home}/memory.json`);
    assert.deepEqual(fsDef.origin, { file, pointer: '/mcpServers/filesystem', line: 4, column: 5 });
  } finally {
    s.cleanup();
  }
});

test('Cursor .cursor/mcp.json: ${workspaceFolder}, envFile, ${env:NAME} in headers', () => {
  const s = sandbox();
  try {
    const file = s.copy('cursor-mcp.json', '.cursor/mcp.json');
    s.write('.env', '# comment\nexport DB_URL="postgres://x"\nMODE=dev # trailing\n');
    const r = loadConfigFile(file, { cwd: s.cwd, home: s.home, env: { API_TOKEN: 'tok' } });
    assert.equal(r.format, 'mcpServers');
    assert.deepEqual(r.issues, []);
    const local = r.layer!.servers.local as StdioServerDef;
    assert.deepEqual(local.args, [`${s.cwd}/server.js`]);
    assert.equal(local.cwd, s.cwd);
    assert.equal(local.envFile, `${s.cwd}/.env`);
    assert.deepEqual(local.envFileVars, { DB_URL: 'postgres://x', MODE: 'dev' });
    const remote = r.layer!.servers.remote as HttpServerDef;
    assert.equal(remote.type, 'http');
    assert.deepEqual(remote.headers, { Authorization: 'Bearer tok' });
  } finally {
    s.cleanup();
  }
});

test('Claude Code .mcp.json: http, sse, streamable-http and stdio with defaults', () => {
  const s = sandbox();
  try {
    s.copy('claude-code.mcp.json', '.mcp.json');
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: { API_KEY: 'k' } });
    assert.deepEqual(issues, []);
    assert.deepEqual(Object.keys(config.servers).sort(), ['api', 'legacy', 'streamable', 'tool']);
    assert.equal((config.servers.api as HttpServerDef).url, 'https://api.example.com/mcp');
    assert.equal(config.servers.legacy.type, 'sse');
    assert.equal(config.servers.streamable.type, 'http');
    assert.deepEqual((config.servers.tool as StdioServerDef).env, { LEVEL: 'info' });
  } finally {
    s.cleanup();
  }
});

test('VS Code .vscode/mcp.json: JSONC with comments and trailing commas, servers + inputs', () => {
  const s = sandbox();
  try {
    s.copy('vscode-mcp.json', '.vscode/mcp.json');
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.deepEqual(issues, []);
    assert.deepEqual(config.inputs['api-key'], { id: 'api-key', type: 'promptString', description: 'Service API key', password: true });
    assert.deepEqual(config.inputs.region.options, ['eu', 'us']);
    assert.deepEqual(config.servers.svc.inputRefs, ['region', 'api-key']);
    assert.deepEqual(config.servers.web.inputRefs, ['region', 'api-key']);
    assert.deepEqual([config.servers.svc.origin.line, config.servers.svc.origin.column], [14, 5]);
  } finally {
    s.cleanup();
  }
});

test('parley.json: the superset (servers in both keys, routes, policy, presets, profile, roots, inputs)', () => {
  const s = sandbox();
  try {
    s.copy('parley.json', 'parley.json');
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.deepEqual(issues, []);
    assert.deepEqual(Object.keys(config.servers).sort(), ['files', 'sales']);
    assert.deepEqual(config.servers.files.timeouts, { startupMs: 5000 });
    assert.deepEqual(config.routes, [
      { match: 'file:///srv/data/**', servers: ['files'] },
      { match: '^sales://', regex: true, servers: ['sales'] },
    ]);
    assert.deepEqual(config.policy, { ...DEFAULT_POLICY, sensitiveFields: 'ask', ratePerMinute: 60 });
    assert.deepEqual(config.presets.demo, { roots: [{ uri: `file://${s.cwd}/data` }], answers: { signup: { email: 'ada@example.com' } } });
    assert.deepEqual(config.profile, { email: 'ada@example.com' });
    assert.deepEqual(config.roots, [{ uri: `file://${s.cwd}`, name: 'project' }, { uri: 'file:///srv/shared' }]);
    assert.equal(config.inputs.token.password, true);
  } finally {
    s.cleanup();
  }
});

test('policy and timeout defaults are exactly the documented ones', () => {
  assert.deepEqual(
    { ...DEFAULT_POLICY },
    { sensitiveFields: 'decline', ratePerMinute: 30, burst: 10, maxPendingPerServer: 5, urlSchemes: ['https'], sampling: 'ask' },
  );
  assert.deepEqual({ ...DEFAULT_TIMEOUTS }, { startupMs: 30000, toolCallMs: 120000, maxTotalMs: 3600000 });
  const s = sandbox();
  try {
    const { config } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.deepEqual(config.policy, DEFAULT_POLICY);
    assert.notEqual(config.policy.urlSchemes, DEFAULT_POLICY.urlSchemes, 'a copy, so callers cannot change the default');
    assert.deepEqual(config.servers, {});
    assert.deepEqual(config.sources, []);
  } finally {
    s.cleanup();
  }
});
