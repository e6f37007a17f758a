// ${input:id} resolution: asked once across servers, password inputs marked secret, clear errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadHostConfig, resolveInputVariables, ConfigError, buildChildEnv } from '../src/host/config/index.js';
import type { InputVariableDef, StdioServerDef, HttpServerDef, ServerDef } from '../src/host/config/index.js';
import { sandbox } from './fixtures/config/tmp.js';

function loadVscodeFixture() {
  const s = sandbox();
  try {
    s.copy('vscode-mcp.json', '.vscode/mcp.json');
    return loadHostConfig({ cwd: s.cwd, home: s.home, env: {} }).config;
  } finally {
    s.cleanup();
  }
}

function countingAsk(answers: Record<string, string | undefined>) {
  const calls: string[] = [];
  const ask = async (i: InputVariableDef) => {
    calls.push(i.id);
    await new Promise((r) => setTimeout(r, 5)); // a person takes time: concurrent starts must share one question
    return answers[i.id];
  };
  return { ask, calls };
}

test('each input is asked once across two servers, also when both start at the same time', async () => {
  const config = loadVscodeFixture();
  const { ask, calls } = countingAsk({ 'api-key': 'sk-1', region: 'eu' });
  const cache = new Map<string, string>();
  const [svc, web] = await Promise.all([
    resolveInputVariables(config.servers.svc, config.inputs, ask, cache),
    resolveInputVariables(config.servers.web, config.inputs, ask, cache),
  ]);
  assert.deepEqual(calls.sort(), ['api-key', 'region']);
  const s = svc as StdioServerDef;
  const w = web as HttpServerDef;
  assert.deepEqual(s.args, ['svc.js', '--region', 'eu']);
  assert.deepEqual(s.env, { API_KEY: 'sk-1' });
  assert.deepEqual(s.secretEnv, ['API_KEY']);
  assert.equal(w.url, 'https://svc.example.com/eu/mcp');
  assert.deepEqual(w.headers, { 'X-Api-Key': 'sk-1' });
  assert.deepEqual(w.secretHeaders, ['X-Api-Key']);
  assert.equal(s.inputRefs, undefined);
  assert.deepEqual(Object.fromEntries(cache), { 'api-key': 'sk-1', region: 'eu' });
  // A later start asks nothing.
  await resolveInputVariables(config.servers.svc, config.inputs, ask, cache);
  assert.equal(calls.length, 2);
  // The original definition is not changed (it may be written back to a file).
  assert.equal((config.servers.svc as StdioServerDef).env.API_KEY, '${input:api-key}');
});

test('non-password inputs are not marked secret; answers are inserted literally', async () => {
  const def: ServerDef = {
    name: 'a',
    type: 'stdio',
    command: 'x',
    args: [],
    env: { R: '${input:r}', LIT: '${input:r}-${HOME}' },
    origin: { file: 'f', pointer: '/servers/a' },
  };
  const inputs: Record<string, InputVariableDef> = { r: { id: 'r', type: 'promptString' } };
  const out = (await resolveInputVariables(def, inputs, async () => '${input:r}$HOME', new Map())) as StdioServerDef;
  assert.equal(out.env.R, '${input:r}$HOME');
  assert.equal(out.env.LIT, '${input:r}$HOME-${HOME}');
  assert.equal(out.secretEnv, undefined);
});

test('unknown input id, dismissed prompt and an answer outside pickString options are clear errors', async () => {
  const def: ServerDef = {
    name: 'a',
    type: 'http',
    url: 'https://h/${input:p}',
    headers: { K: '${input:ghost}' },
    origin: { file: '/x/mcp.json', pointer: '/servers/a', line: 2, column: 3 },
  };
  const inputs: Record<string, InputVariableDef> = { p: { id: 'p', type: 'pickString', options: ['x', 'y'] } };
  let asked = 0;
  const ask = async () => (asked++, 'z');
  await assert.rejects(resolveInputVariables(def, inputs, ask, new Map()), (e: unknown) => {
    assert.ok(ConfigError.is(e));
    assert.equal(e.issues[0].code, 'unknown-input');
    assert.equal(e.issues[0].server, 'a');
    assert.match(e.message, /^\/x\/mcp\.json:2:3 a \/servers\/a: error: refers to undefined input "ghost"/);
    return true;
  });
  assert.equal(asked, 0, 'nothing is asked when an id is unknown');
  const ok = { ...def, headers: {} };
  await assert.rejects(
    resolveInputVariables(ok, inputs, ask, new Map()),
    (e: unknown) => ConfigError.is(e) && e.issues[0].code === 'invalid-value',
  );
  const cache = new Map<string, string>();
  await assert.rejects(
    resolveInputVariables(ok, inputs, async () => undefined, cache),
    (e: unknown) => ConfigError.is(e) && e.issues[0].code === 'input-cancelled',
  );
  assert.equal(cache.size, 0, 'a dismissed prompt is not cached: the next start asks again');
});

test('buildChildEnv refuses an env that still holds ${input:…}', () => {
  const config = loadVscodeFixture();
  assert.throws(
    () => buildChildEnv(config.servers.svc as StdioServerDef, { PATH: '/bin' }),
    (e: unknown) => ConfigError.is(e) && e.issues[0].code === 'unresolved-input',
  );
});

test('a password input in args or url draws a secret-exposed warning; in env or headers it does not', () => {
  const s = sandbox();
  try {
    s.write(
      '.vscode/mcp.json',
      JSON.stringify({
        inputs: [
          { id: 'pw', type: 'promptString', password: true },
          { id: 'plain', type: 'promptString' },
        ],
        servers: {
          argv: { command: 'x', args: ['--token', '${input:pw}'] },
          link: { url: 'https://h.example/mcp?key=${input:pw}' },
          fine: { command: 'x', args: ['${input:plain}'], env: { T: '${input:pw}' } },
          hdr: { url: 'https://h.example/mcp', headers: { A: '${input:pw}' } },
        },
      }),
    );
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.deepEqual(
      issues.map((i) => [i.code, i.severity, i.server]),
      [
        ['secret-exposed', 'warning', 'argv'],
        ['secret-exposed', 'warning', 'link'],
      ],
    );
    assert.match(issues[0].fix ?? '', /env/);
    assert.equal(Object.keys(config.servers).length, 4, 'a warning does not stop the server');
  } finally {
    s.cleanup();
  }
});

test('a url that is not http(s) once inputs are filled in is an error, not a connection attempt', async () => {
  const def: ServerDef = { name: 'w', type: 'http', url: '${input:base}/mcp', headers: {}, origin: { file: 'f', pointer: '/servers/w' } };
  const inputs: Record<string, InputVariableDef> = { base: { id: 'base', type: 'promptString' } };
  await assert.rejects(
    resolveInputVariables(def, inputs, async () => 'file:///etc', new Map()),
    (e: unknown) => ConfigError.is(e) && e.issues[0].code === 'invalid-value',
  );
  const ok = (await resolveInputVariables(def, inputs, async () => 'https://h.example', new Map())) as HttpServerDef;
  assert.equal(ok.url, 'https://h.example/mcp');
});
