// Interpolation: every expansion form in every string field (vector C3 kind), `~`, ${workspaceFolder}.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadHostConfig, expand } from '../src/host/config/index.js';
import type { StdioServerDef, HttpServerDef } from '../src/host/config/index.js';
import { sandbox } from './fixtures/config/tmp.js';

const ctx = { env: { A: 'alpha', EMPTY: '' }, home: '/home/u', workspaceFolder: '/proj' };

test('expand: the supported forms', () => {
  const cases: Array<[string, string, boolean?]> = [
    ['${A}', 'alpha'],
    ['${env:A}', 'alpha'],
    ['x-${A}-y', 'x-alpha-y'],
    ['${MISSING:-fallback}', 'fallback'],
    ['${env:MISSING:-fb}', 'fb'],
    ['${EMPTY:-fb}', 'fb'],
    ['${EMPTY}', ''],
    ['${A:-unused}', 'alpha'],
    ['${MISSING:-}', ''],
    ['${MISSING:-a:b/c d}', 'a:b/c d'],
    ['${workspaceFolder}/src', '/proj/src'],
    ['${userHome}/x', '/home/u/x'],
    ['$A and $LITERAL', '$A and $LITERAL'],
    ['~/data', '/home/u/data', true],
    ['~', '/home/u', true],
    ['~/data', '~/data', false],
    ['a~/b', 'a~/b', true],
    ['~user/x', '~user/x', true],
    ['${input:key}', '${input:key}'],
  ];
  for (const [raw, want, tilde] of cases) {
    const r = expand(raw, ctx, { tilde });
    assert.ok(r.ok, raw);
    assert.equal(r.value, want, raw);
  }
  const single = expand('${A}', { ...ctx, env: { A: '${B}', B: 'no' } });
  assert.ok(single.ok && single.value === '${B}', 'replaced text is not expanded again');
  const refs = expand('${input:a}-${input:b}-${input:a}', ctx);
  assert.ok(refs.ok);
  assert.deepEqual(refs.inputRefs, ['a', 'b']);
});

test('expand: unset and malformed references are errors', () => {
  for (const [raw, code] of [
    ['${MISSING}', 'unset-variable'],
    ['${env:MISSING}', 'unset-variable'],
    ['pre-${MISSING}-post', 'unset-variable'],
    ['${A-default}', 'bad-variable'],
    ['${}', 'bad-variable'],
    ['${input:}', 'bad-variable'],
    ['${config:foo}', 'bad-variable'],
    ['${A', 'bad-variable'],
  ] as const) {
    const r = expand(raw, ctx);
    assert.equal(r.ok, false, raw);
    if (!r.ok) assert.equal(r.problems[0].code, code, raw);
  }
  const two = expand('${X1}${X2}', ctx);
  assert.ok(!two.ok && two.problems.length === 2, 'every unset variable is reported');
});

/** Each string field of a server, with a value using `form`. */
function entries(form: string) {
  return {
    command: { command: form, args: [] },
    'args/1': { command: 'node', args: ['a', form] },
    'env/K': { command: 'node', env: { K: form } },
    cwd: { command: 'node', cwd: form },
    envFile: { command: 'node', envFile: form },
    url: { url: `${form}` },
    'headers/Authorization': { url: 'https://h.example/mcp', headers: { Authorization: form } },
  } as Record<string, Record<string, unknown>>;
}

test('C3 kind: ${NAME}, ${NAME:-default} and ${env:NAME} expand in every string field', () => {
  const s = sandbox();
  try {
    s.write('v.env', 'X=1\n');
    const value = (field: string) =>
      field === 'url' ? 'https://h.example/mcp' : field === 'envFile' ? `${s.cwd}/v.env` : field === 'cwd' ? '/srv/app' : 'VALUE';
    for (const field of Object.keys(entries(''))) {
      for (const form of ['${V}', '${env:V}', '${UNSET:-@}', '${env:UNSET:-@}']) {
        const v = value(field);
        const env = { V: v };
        const raw = form.includes('UNSET') ? form.replace('@', v) : form;
        s.write('.mcp.json', JSON.stringify({ mcpServers: { s: entries(raw)[field] } }));
        const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env });
        assert.deepEqual(
          issues.filter((i) => i.severity === 'error'),
          [],
          `${field} ${form}`,
        );
        const def = config.servers.s as unknown as StdioServerDef & Omit<HttpServerDef, 'type'>;
        const got =
          field === 'args/1'
            ? def.args[1]
            : field === 'env/K'
              ? def.env.K
              : field === 'headers/Authorization'
                ? def.headers.Authorization
                : (def as unknown as Record<string, string>)[field];
        assert.equal(got, v, `${field} ${form}`);
      }
    }
  } finally {
    s.cleanup();
  }
});

test('C3 kind: an unset ${NAME} in any field is an error naming file, server, pointer and line:column', () => {
  const s = sandbox();
  try {
    for (const [field, entry] of Object.entries(entries('${NOPE}'))) {
      for (const [rel, key] of [
        ['.mcp.json', 'mcpServers'],
        ['.vscode/mcp.json', 'servers'],
      ] as const) {
        const text = JSON.stringify({ [key]: { ok: { command: 'node' }, bad: entry } }, null, 2);
        const file = s.write(rel, text);
        const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
        s.write(rel, '{}');
        assert.equal(config.servers.bad, undefined, field);
        assert.ok(config.servers.ok, 'other servers still load');
        assert.ok(config.invalidServers?.includes('bad'));
        const e = issues.find((i) => i.code === 'unset-variable');
        assert.ok(e, `${field} in ${rel}`);
        assert.equal(e.file, file);
        assert.equal(e.server, 'bad');
        assert.equal(e.path, `/${key}/bad/${field}`);
        const lines = text.split('\n');
        const line = lines.findIndex((l, i) => i > lines.findIndex((x) => x.includes('"bad"')) && l.includes('"${NOPE}"')) + 1;
        assert.equal(e.line, line, field);
        assert.equal(e.column, lines[line - 1].indexOf('"${NOPE}"') + 1, field);
        assert.match(e.message, /NOPE/);
      }
    }
  } finally {
    s.cleanup();
  }
});

test('~ and ${workspaceFolder} in path-like fields; relative cwd resolves against the project', () => {
  const s = sandbox();
  try {
    s.write(
      '.mcp.json',
      JSON.stringify({
        mcpServers: {
          a: { command: '~/bin/tool', args: ['~/data', '${workspaceFolder}/x', 'not~/here'], cwd: 'sub', env: { P: '~/p' } },
          b: { url: 'https://h.example/~/x', headers: { H: '~/kept' } },
        },
      }),
    );
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.deepEqual(issues, []);
    const a = config.servers.a as StdioServerDef;
    assert.equal(a.command, `${s.home}/bin/tool`);
    assert.deepEqual(a.args, [`${s.home}/data`, `${s.cwd}/x`, 'not~/here']);
    assert.equal(a.cwd, `${s.cwd}/sub`);
    assert.equal(a.env.P, `${s.home}/p`);
    const b = config.servers.b as HttpServerDef;
    assert.equal(b.headers.H, '~/kept');
  } finally {
    s.cleanup();
  }
});

test('properties: text without "${" is unchanged; a variable value is inserted verbatim, never re-expanded', async () => {
  const fc = (await import('fast-check')).default;
  fc.assert(
    fc.property(
      fc.string().filter((s) => !s.includes('${')),
      (s) => {
        const r = expand(s, ctx);
        return r.ok && r.value === s;
      },
    ),
  );
  fc.assert(
    fc.property(fc.string(), fc.string(), (value, around) => {
      const safe = around.replace(/\$/g, '');
      const r = expand(`${safe}\${V}${safe}`, { ...ctx, env: { V: value } });
      return r.ok && r.value === `${safe}${value}${safe}`;
    }),
  );
});
