import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runParley } from './helpers/cli.js';
import { vector } from './helpers/vectors.js';
import { verifies } from './helpers/verifies.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-lint-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, body: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, typeof body === 'string' ? body : JSON.stringify(body));
  return p;
};

test('parley lint: errors exit 1 with JSON pointers, then the repairs', async () => {
  const s8 = vector('schemas', 'S8-sensitive-field').input;
  const r = await runParley(['lint', file('s8.json', { ...s8, properties: { ...s8.properties, addr: { type: 'object' } } })], {
    env: { NO_COLOR: '1' },
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /warning \/properties\/apiKey\s+field "apiKey" looks like a request for a secret/);
  assert.match(r.stdout, /error\s+\/properties\/addr\s+property "addr" is a nested object/);
  assert.match(r.stdout, /1 error\(s\), 1 warning\(s\)/);
  assert.doesNotMatch(r.stdout, /\x1b\[/, 'NO_COLOR: no escape codes');
});

test('parley lint: a whole elicitation/create message and warnings only → exit 0 with repairs listed', async () => {
  const r = await runParley([
    'lint',
    file('s2.json', {
      jsonrpc: '2.0',
      id: 1,
      method: 'elicitation/create',
      params: { message: 'x', requestedSchema: vector('schemas', 'S2-root-title').input },
    }),
  ]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /warning \/params\/requestedSchema\/title/);
  assert.match(r.stdout, /the host would repair:\n\s+\/params\/requestedSchema\/title\s+dropped root key "title"/);
});

test('parley lint --json on an input_required result, per revision', async () => {
  const p = new URL('./fixtures/lint/input-required.json', import.meta.url).pathname;
  const modern = JSON.parse((await runParley(['lint', p, '--json'])).stdout);
  assert.equal(modern.kind, 'input_required');
  assert.deepEqual(
    modern.schemas.map((s: any) => [s.path, s.mode]),
    [
      ['/result/inputRequests/login/params', 'url'],
      ['/result/inputRequests/cfg/params/requestedSchema', 'form'],
    ],
  );
  assert.equal(modern.errors, 0);
  assert.deepEqual(
    modern.schemas[1].repairs.map((r: any) => r.code),
    ['items-type-added'],
  );
  const old = await runParley(['lint', p, '--json', '--revision', '2025-06-18']);
  assert.equal(old.code, 1);
  assert.ok(JSON.parse(old.stdout).schemas[1].issues.some((i: any) => i.code === 'revision'));
});

test('parley lint: unreadable input exits 2 with one clear line', async () => {
  for (const [args, pattern] of [
    [['lint', join(dir, 'missing.json')], /cannot read the file \(ENOENT\)/],
    [['lint', file('bad.json', '{nope')], /bad\.json: not valid JSON \(line 1, column 2: /],
    // Where the mistake is, as an editor counts: a trailing comma on line 3.
    [['lint', file('comma.json', '{\n  "type": "object",\n  "properties": {},\n}\n')], /comma\.json: not valid JSON \(line 4, column 1: /],
    [['lint', file('odd.json', { hello: 1 })], /no requestedSchema found/],
    [['lint', file('ok.json', { type: 'object', properties: {} }), '--revision', '1999-01-01'], /--revision must be one of/],
  ] as const) {
    const r = await runParley([...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, pattern);
    assert.equal(r.stderr.trim().split('\n').length, 1, 'one line, no stack trace');
  }
});

test('parley --help and lint --help describe the command without colour in a pipe', async () => {
  const r = await runParley(['lint', '--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /USAGE parley lint/);
  assert.match(r.stdout, /--revision/);
  assert.doesNotMatch(r.stdout, /\x1b\[/);
});

test('parley lint reads what editors write and refuses what it cannot trust', async () => {
  const bom = join(dir, 'bom.json');
  writeFileSync(
    bom,
    Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(JSON.stringify({ type: 'object', properties: { a: { type: 'string' } } })),
    ]),
  );
  assert.equal((await runParley(['lint', bom])).code, 0, 'a UTF-8 BOM is fine');
  const latin1 = join(dir, 'latin1.json');
  writeFileSync(latin1, Buffer.from('{"type":"object","properties":{"a":{"type":"string","title":"caf\xe9"}}}', 'latin1'));
  const r = await runParley(['lint', latin1]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /not UTF-8 text/);
  const typo = await runParley(['lint', bom, '--jsn']);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /unknown option --jsn/);
  assert.equal((await runParley(['lint', bom, bom])).code, 2, 'one file at a time');
});

test('parley lint checks the request envelope per revision: URL mode, elicitationId, empty input_required', async () => {
  verifies(['ELIC-1125-URL-ID', 'ELIC-2607-URL-NO-ID']);
  const url = file('url.json', {
    jsonrpc: '2.0',
    id: 1,
    method: 'elicitation/create',
    params: { mode: 'url', message: 'Sign in', url: 'not a url' },
  });
  const r1125 = JSON.parse((await runParley(['lint', url, '--json', '--revision', '2025-11-25'])).stdout);
  assert.deepEqual(
    r1125.schemas[0].issues.map((i: any) => [i.code, i.path]),
    [
      ['url', '/params/url'],
      ['elicitation-id', '/params/elicitationId'],
    ],
  );
  const r0618 = JSON.parse((await runParley(['lint', url, '--json', '--revision', '2025-06-18'])).stdout);
  assert.ok(r0618.schemas[0].issues.some((i: any) => i.code === 'revision'));
  const good = file('url-ok.json', {
    method: 'elicitation/create',
    params: { mode: 'url', message: 'Sign in', url: 'https://example.com/login', elicitationId: 'e1' },
  });
  assert.equal((await runParley(['lint', good, '--revision', '2025-11-25'])).code, 0);
  const modern = JSON.parse((await runParley(['lint', good, '--json'])).stdout);
  assert.deepEqual(
    modern.schemas[0].issues.map((i: any) => [i.code, i.severity]),
    [['elicitation-id', 'warning']],
  );
  const empty = await runParley(['lint', file('empty.json', { resultType: 'input_required' }), '--json']);
  assert.equal(empty.code, 1);
  assert.deepEqual(
    JSON.parse(empty.stdout).issues.map((i: any) => i.code),
    ['input-required-empty'],
  );
});

test('a misspelt type says "did you mean": parley lint (field types) and parley config check (server types)', async () => {
  const r = await runParley(
    [
      'lint',
      file('typos.json', {
        type: 'object',
        properties: { name: { type: 'strng' }, age: { type: 'Integr' }, ok: { type: 'bool' }, n: { type: 'nmber' }, x: { type: 'blob' } },
      }),
    ],
    { env: { NO_COLOR: '1' } },
  );
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /\/properties\/name\/type\s+property "name" has type "strng": did you mean "string"\?/);
  assert.match(r.stdout, /fix: use "type": "string"/);
  assert.match(r.stdout, /property "age" has type "Integr": did you mean "integer"\?/);
  assert.match(r.stdout, /property "ok" has type "bool": did you mean "boolean"\?/);
  assert.match(r.stdout, /property "n" has type "nmber": did you mean "number"\?/);
  // Nothing close: no guess, the list of allowed types.
  assert.match(r.stdout, /property "x" has type "blob"; allowed: string, number, integer, boolean/);

  const cfg = file('parley.json', {
    mcpServers: { db: { type: 'stido', command: 'x' }, far: { type: 'websocket', url: 'http://127.0.0.1:1/' } },
  });
  const c = await runParley(['config', 'check', cfg]);
  assert.equal(c.code, 1, c.stdout + c.stderr);
  const out = c.stdout + c.stderr;
  assert.match(
    out,
    /parley\.json:\d+:\d+ db \/mcpServers\/db\/type: error: unknown server type "stido": did you mean "stdio"\? \(use "stdio"\)/,
  );
  assert.match(out, /unknown server type "websocket"(?!: did you mean)/);
});
