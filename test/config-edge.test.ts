// Edge cases: reserved names, pointer escaping, BOM and CRLF positions, keys in the wrong format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfigValue, loadHostConfig, mergeLayers } from '../src/host/config/index.js';
import { sandbox } from './fixtures/config/tmp.js';
import { verifies } from './helpers/verifies.js';

function load(rel: string, text: string, env: Record<string, string> = {}) {
  const s = sandbox();
  try {
    s.write(rel, text);
    return loadHostConfig({ cwd: s.cwd, home: s.home, env });
  } finally {
    s.cleanup();
  }
}

test('"__proto__" as a server, input, preset or profile name is rejected, not assigned', () => {
  const { config, issues } = load(
    'parley.json',
    '{"servers": {"__proto__": {"command": "x"}, "ok": {"command": "y"}}, "profile": {"__proto__": {"polluted": true}}, "presets": {"__proto__": {}}, "inputs": [{"id": "__proto__", "type": "promptString"}]}',
  );
  assert.deepEqual(
    issues.map((i) => [i.code, i.path]),
    [
      ['invalid-value', '/servers/__proto__'],
      ['invalid-value', '/inputs/0/id'],
      ['invalid-value', '/profile/__proto__'],
      ['invalid-value', '/presets/__proto__'],
    ],
  );
  assert.deepEqual(Object.keys(config.servers), ['ok']);
  assert.equal(Object.getPrototypeOf(config.servers), Object.prototype);
  assert.equal(Object.getPrototypeOf(config.profile), Object.prototype);
  assert.equal((config.profile as { polluted?: boolean }).polluted, undefined);
});

test('server names with "/" and "~" are escaped in JSON pointers', () => {
  const text = '{"mcpServers": {"org/a~b": {"command": "${NOPE}"}}}';
  const { issues } = load('.mcp.json', text);
  assert.equal(issues[0].path, '/mcpServers/org~1a~0b/command');
  assert.equal(issues[0].server, 'org/a~b');
  assert.deepEqual([issues[0].line, issues[0].column], [1, text.indexOf('"${NOPE}') + 1]);
});

test('line:column stay right with a byte-order mark and CRLF line ends', () => {
  const text = '\ufeff{\r\n  "mcpServers": {\r\n    "a": {"command": "${NOPE}"}\r\n  }\r\n}\r\n';
  const { issues } = load('.mcp.json', text);
  assert.equal(issues.length, 1);
  assert.deepEqual([issues[0].line, issues[0].column], [3, '    "a": {"command": '.length + 1]);
});

test('"servers" in an mcpServers file is warned about, not silently dropped', () => {
  const { config, issues } = load('.mcp.json', '{"mcpServers": {"a": {"command": "x"}}, "servers": {"b": {"command": "y"}}}');
  assert.deepEqual(Object.keys(config.servers), ['a']);
  assert.deepEqual(
    issues.map((i) => [i.code, i.severity, i.path]),
    [['unknown-key', 'warning', '/servers']],
  );
});

test('a name in both mcpServers and servers of parley.json: servers wins, with a warning', () => {
  const { config, issues } = load('parley.json', '{"mcpServers": {"a": {"command": "old"}}, "servers": {"a": {"command": "new"}}}');
  assert.equal(config.servers.a.type === 'stdio' && config.servers.a.command, 'new');
  assert.deepEqual(
    issues.map((i) => [i.code, i.severity, i.path]),
    [['duplicate', 'warning', '/servers/a']],
  );
});

test('an mcpServers or VS Code file without servers is a warning; a non-object document an error', () => {
  assert.deepEqual(
    load('.vscode/mcp.json', '{"inputs": []}').issues.map((i) => i.code),
    ['no-servers'],
  );
  const arr = load('.mcp.json', '[]').issues;
  assert.deepEqual(
    arr.map((i) => [i.code, i.message]),
    [['type', 'expected a JSON object, got array']],
  );
});

test('type/field mismatch: a stdio server with a url, an http server without one', () => {
  const { config, issues } = load(
    '.mcp.json',
    '{"mcpServers": {"a": {"type": "stdio", "command": "x", "url": "http://127.0.0.1/"}, "b": {"type": "http", "command": "x"}}}',
  );
  assert.deepEqual(
    issues.map((i) => [i.code, i.path]),
    [
      ['conflict', '/mcpServers/a/url'],
      ['required', '/mcpServers/b'],
    ],
  );
  assert.deepEqual(config.invalidServers, ['a', 'b']);
});

test('names that exist on Object.prototype are ordinary names, not built-ins', () => {
  const { config, issues } = load(
    '.vscode/mcp.json',
    JSON.stringify({
      servers: {
        constructor: { command: 'x' },
        t: { type: 'toString', command: 'x' },
        i: { command: 'x', env: { K: '${input:constructor}' } },
      },
    }),
  );
  assert.equal(Object.getOwnPropertyDescriptor(config.servers, 'constructor')?.value?.type, 'stdio');
  assert.deepEqual(
    issues.map((i) => [i.code, i.server]),
    [
      ['invalid-value', 't'],
      ['unknown-input', 'i'],
    ],
  );
});

test('roots: paths become file:// URIs, .. collapses, other schemes are virtual roots, malformed ones are errors', () => {
  verifies('ROOTS-URI-FILE');
  const s = sandbox();
  try {
    s.write(
      'parley.json',
      JSON.stringify({
        roots: [
          'data',
          '~/notes',
          { uri: 'file:///srv/a/../b', name: 'b' },
          'https://example.com/x',
          { uri: '${input:dir}' },
          'file://remote-host/x',
          { uri: 'postgres://Sales-DB', name: 'sales' },
          'chart://monthly/../revenue',
          'sales://h/x%zz',
        ],
      }),
    );
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.deepEqual(config.roots, [
      { uri: `file://${s.cwd}/data` },
      { uri: `file://${s.home}/notes` },
      { uri: 'file:///srv/b', name: 'b' },
      { uri: 'https://example.com/x' },
      { uri: 'postgres://sales-db', name: 'sales' },
      { uri: 'chart://monthly/revenue' },
    ]);
    assert.deepEqual(
      issues.map((i) => [i.code, i.path]),
      [
        ['bad-variable', '/roots/4/uri'],
        ['invalid-value', '/roots/5'],
        ['invalid-value', '/roots/8'],
      ],
    );
    assert.match(issues[1].message, /file:\/\/ URI with an empty host/);
  } finally {
    s.cleanup();
  }
});

test('deadlines longer than the longest timer (2^31-1 ms) are clamped when read, with a warning naming the field', () => {
  const { config, issues } = load(
    'parley.json',
    '{"servers": {"slow": {"command": "x", "timeouts": {"toolCallMs": 5000000000, "maxTotalMs": 2147483647}}}, "gateway": {"users": {}, "sessionIdleMs": 9999999999}}',
  );
  assert.deepEqual(config.servers.slow.timeouts, { toolCallMs: 2 ** 31 - 1, maxTotalMs: 2 ** 31 - 1 });
  assert.equal(config.gateway?.sessionIdleMs, 2 ** 31 - 1);
  assert.deepEqual(
    issues.map((i) => [i.code, i.severity, i.path]),
    [
      ['clamped', 'warning', '/servers/slow/timeouts/toolCallMs'],
      ['clamped', 'warning', '/gateway/sessionIdleMs'],
    ],
  );
  assert.match(issues[0].message, /5000000000 ms .* 2147483647 ms/);
});

test('timeouts.probeMs is read like the other timeouts; a bad one names its pointer', () => {
  const { config, issues } = load(
    'parley.json',
    '{"servers": {"npx": {"command": "npx", "timeouts": {"probeMs": 45000}}, "bad": {"command": "x", "timeouts": {"probeMs": 0}}}}',
  );
  assert.deepEqual(config.servers.npx.timeouts, { probeMs: 45000 });
  assert.deepEqual(
    issues.map((i) => [i.path, i.severity]),
    [['/servers/bad/timeouts/probeMs', 'error']],
  );
  assert.match(issues[0].message, /positive number of milliseconds/);
});

test('shape checks stay linear in the number of bad items, and report each finding once', () => {
  // Every item is bad: a server (wrong type + unknown key), a route (empty match, a number as server),
  // a root (a number) and a user (a malformed hash). Locating each finding used to rescan the file
  // (quadratic: 3000 items took ~20 s); the time per item must stay flat from 500 to 5000 items.
  const ctx = { cwd: '/p', home: '/h', env: {} };
  const doc = (n: number) =>
    JSON.stringify({
      mcpServers: Object.fromEntries(Array.from({ length: n }, (_, i) => [`s${i}`, { command: i, extra: 1 }])),
      routes: Array.from({ length: n }, (_, i) => ({ match: '', servers: [i] })),
      roots: Array.from({ length: n }, () => 5),
      gateway: { users: Object.fromEntries(Array.from({ length: n }, (_, i) => [`u${i}`, { tokenSha256: 'x' }])) },
    });
  /** ms per item of one load of `text` (n items), and its findings. */
  const perItem = (text: string, n: number) => {
    const t0 = performance.now();
    const r = loadConfigValue(text, ctx, '<big>');
    mergeLayers([r.layer!]);
    return { ms: (performance.now() - t0) / n, issues: r.issues };
  };
  perItem(doc(100), 100); // warm-up
  // The best of three each, the sizes alternating: a run descheduled or caught by a GC pause on a loaded
  // machine must not count, and a slow stretch slows both sizes alike.
  const [smallText, bigText] = [doc(500), doc(5000)];
  let small = perItem(smallText, 500);
  let big = perItem(bigText, 5000);
  for (let run = 1; run < 3; run++) {
    const s = perItem(smallText, 500);
    const b = perItem(bigText, 5000);
    if (s.ms < small.ms) small = s;
    if (b.ms < big.ms) big = b;
  }
  assert.equal(big.issues.length, 5000 * 6, 'six findings per item, none repeated by a later pass');
  assert.equal(new Set(big.issues.map((i) => `${i.path} ${i.code}`)).size, big.issues.length);
  assert.ok(
    big.issues.every((i) => i.line !== undefined),
    'every finding has its line:column',
  );
  assert.ok(big.ms <= 4 * small.ms, `time per item grew ${(big.ms / small.ms).toFixed(1)}× from 500 to 5000 items`);
});
