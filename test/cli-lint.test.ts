import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runParley } from './helpers/cli.js';
import { vector } from './helpers/vectors.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-lint-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, body: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, typeof body === 'string' ? body : JSON.stringify(body));
  return p;
};

test('parley lint: errors exit 1 with JSON pointers, then the repairs', async () => {
  const r = await runParley(['lint', file('s8.json', vector('schemas', 'S8-sensitive-field').input)], { env: { NO_COLOR: '1' } });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /error\s+\/properties\/apiKey\s+field "apiKey" looks like a request for a secret/);
  assert.match(r.stdout, /1 error\(s\), 0 warning\(s\)/);
  assert.doesNotMatch(r.stdout, /\x1b\[/, 'NO_COLOR: no escape codes');
});

test('parley lint: a whole elicitation/create message and warnings only → exit 0 with repairs listed', async () => {
  const r = await runParley(['lint', file('s2.json', { jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: { message: 'x', requestedSchema: vector('schemas', 'S2-root-title').input } })]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /warning \/params\/requestedSchema\/title/);
  assert.match(r.stdout, /the host would repair:\n\s+\/params\/requestedSchema\/title\s+dropped root key "title"/);
});

test('parley lint --json on an input_required result, per revision', async () => {
  const p = new URL('./fixtures/lint/input-required.json', import.meta.url).pathname;
  const modern = JSON.parse((await runParley(['lint', p, '--json'])).stdout);
  assert.equal(modern.kind, 'input_required');
  assert.deepEqual(modern.schemas.map((s: any) => [s.path, s.mode]), [['/result/inputRequests/login/params', 'url'], ['/result/inputRequests/cfg/params/requestedSchema', 'form']]);
  assert.equal(modern.errors, 0);
  assert.deepEqual(modern.schemas[1].repairs.map((r: any) => r.code), ['items-type-added']);
  const old = await runParley(['lint', p, '--json', '--revision', '2025-06-18']);
  assert.equal(old.code, 1);
  assert.ok(JSON.parse(old.stdout).schemas[1].issues.some((i: any) => i.code === 'revision'));
});

test('parley lint: unreadable input exits 2 with one clear line', async () => {
  for (const [args, pattern] of [
    [['lint', join(dir, 'missing.json')], /cannot read the file \(ENOENT\)/],
    [['lint', file('bad.json', '{nope')], /not valid JSON/],
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
