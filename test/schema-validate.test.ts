import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod';
import {
  applyDefaults,
  coerceFormValues,
  detectSensitiveFields,
  parseAccepted,
  schemaHash,
  toRequestedSchema,
  UnsupportedSchemaError,
  validateContent,
  type RequestedSchema,
} from '../src/schema/index.js';
import { verifies } from './helpers/verifies.js';

const S = (properties: Record<string, unknown>, required?: string[]) =>
  ({ type: 'object', properties, ...(required ? { required } : {}) }) as RequestedSchema;

test('formats are strict: RFC 3339 dates (no Feb 30, time zone required), email, uri', () => {
  verifies('ELIC-VALIDATE-BOTH-SIDES');
  const s = S({
    d: { type: 'string', format: 'date' },
    t: { type: 'string', format: 'date-time' },
    e: { type: 'string', format: 'email' },
    u: { type: 'string', format: 'uri' },
  });
  const ok = (c: object) => validateContent(s, c).ok;
  assert.ok(ok({ d: '2024-02-29', t: '2024-01-01T10:00:00Z', e: 'ada@example.com', u: 'https://example.com/x' }));
  assert.ok(ok({ t: '2024-01-01T10:00:00.5+08:00' }));
  for (const bad of [
    { d: '2024-02-30' },
    { d: '2023-02-29' },
    { d: '2024-1-1' },
    { t: '2024-01-01T10:00:00' },
    { t: '2024-01-01' },
    { e: 'ada' },
    { e: 'ada@' },
    { u: 'not a uri' },
    { u: '/relative' },
  ]) {
    const r = validateContent(s, bad);
    assert.ok(!r.ok, JSON.stringify(bad));
    assert.equal(r.issues[0].code, 'format');
    assert.equal(r.issues[0].path, '/' + Object.keys(bad)[0]);
  }
});

test('no coercion, no extra fields, integers are integers, multi-select items unique', () => {
  const s = S({
    b: { type: 'boolean' },
    n: { type: 'number' },
    i: { type: 'integer' },
    m: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
  });
  for (const bad of [{ b: 'true' }, { n: '1' }, { i: 1.5 }, { i: '2' }, { m: 'a' }, { m: ['a', 'a'] }, { m: ['c'] }, { x: 1 }])
    assert.ok(!validateContent(s, bad).ok, JSON.stringify(bad));
  assert.ok(validateContent(s, { b: false, n: 95.5, i: -3, m: ['b', 'a'] }).ok);
  assert.ok(!validateContent(s, null).ok);
  assert.ok(!validateContent(s, [1]).ok);
});

test('title, description and enumNames never break validation; titled consts validate by const', () => {
  const s = S({
    t: { type: 'string', title: 'T', description: 'D', enum: ['a'], enumNames: ['A'] },
    o: { type: 'string', oneOf: [{ const: 'x', title: 'X' }] },
    m: { type: 'array', items: { anyOf: [{ const: 'p', title: 'P' }] } },
  });
  assert.ok(validateContent(s, { t: 'a', o: 'x', m: ['p'] }).ok);
  assert.ok(!validateContent(s, { o: 'X' }).ok);
});

test('validators are cached by a stable hash: key order does not matter, equal schemas share one compile', () => {
  const a = S({ x: { type: 'string', minLength: 1 }, y: { type: 'integer' } }, ['x']);
  const b = {
    required: ['x'],
    properties: { y: { type: 'integer' }, x: { minLength: 1, type: 'string' } },
    type: 'object',
  } as RequestedSchema;
  assert.equal(schemaHash(a), schemaHash(b));
  assert.notEqual(schemaHash(a), schemaHash(S({ x: { type: 'string', minLength: 2 } }, ['x'])));
  assert.deepEqual(validateContent(a, { y: 1 }), validateContent(b, { y: 1 }));
});

test('applyDefaults fills only missing fields; coerceFormValues turns typed text into typed values', () => {
  const s = S({
    name: { type: 'string', default: 'Ada' },
    n: { type: 'integer', default: 3 },
    ok: { type: 'boolean', default: false },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['a'] },
    t: {
      type: 'string',
      oneOf: [
        { const: 'lo', title: 'Low' },
        { const: 'hi', title: 'High' },
      ],
    },
  });
  const filled = applyDefaults(s, { name: 'Bob' });
  assert.deepEqual(filled, { name: 'Bob', n: 3, ok: false, tags: ['a'] });
  (filled.tags as string[]).push('b');
  assert.deepEqual((s.properties.tags as any).default, ['a'], 'defaults are copied, not shared');
  const c = coerceFormValues(s, { name: 'x', n: ' 42 ', ok: 'yes', tags: 'a, b', t: 'high' });
  assert.deepEqual(c, { ok: true, value: { name: 'x', n: 42, ok: true, tags: ['a', 'b'], t: 'hi' } });
  assert.deepEqual(coerceFormValues(s, { n: '', name: '' }), { ok: true, value: {} });
  const bad = coerceFormValues(s, { n: '4.5', ok: 'maybe', t: 'mid', tags: ['c'], zz: 1 });
  assert.ok(!bad.ok);
  assert.deepEqual(
    bad.issues.map((i) => [i.code, i.path]),
    [
      ['not-an-integer', '/n'],
      ['not-a-boolean', '/ok'],
      ['not-an-option', '/t'],
      ['not-an-option', '/tags'],
      ['unknown-field', '/zz'],
    ],
  );
});

test('sensitive fields: English and Chinese hits name the rule; ordinary fields give none', () => {
  verifies('ELIC-NO-SENSITIVE-FORM');
  const hits = (props: Record<string, unknown>) =>
    detectSensitiveFields({ type: 'object', properties: props }).map((h) => [h.field, h.rule]);
  const positives: Record<string, unknown> = {
    password: { type: 'string' },
    userPassphrase: { type: 'string' },
    client_secret: { type: 'string' },
    accessToken: { type: 'string' },
    refresh_token: { type: 'string' },
    apiToken: { type: 'string' },
    apiKey: { type: 'string' },
    privateKey: { type: 'string' },
    cardNumber: { type: 'string' },
    cvv: { type: 'string' },
    pin: { type: 'string' },
    otp: { type: 'string', title: 'One-time code' },
    ssn: { type: 'string' },
    token: { type: 'string' },
    a1: { type: 'string', title: '密码' },
    a2: { type: 'string', title: '口令' },
    a3: { type: 'string', description: '请输入密钥' },
    a4: { type: 'string', title: '访问令牌' },
    a5: { type: 'string', title: '验证码' },
    a6: { type: 'string', title: '身份证号' },
    a7: { type: 'string', title: '银行卡号' },
    x: { type: 'string', title: 'Your API key' },
  };
  const got = hits(positives);
  assert.deepEqual(
    got.map(([f]) => f),
    Object.keys(positives),
    'every positive field is flagged',
  );
  assert.deepEqual(Object.fromEntries(got), {
    password: 'password',
    userPassphrase: 'passphrase',
    client_secret: 'secret',
    accessToken: 'access-token',
    refresh_token: 'access-token',
    apiToken: 'access-token',
    apiKey: 'api-key',
    privateKey: 'private-key',
    cardNumber: 'card-number',
    cvv: 'cvv',
    pin: 'pin',
    otp: 'one-time-code',
    ssn: 'ssn',
    token: 'token',
    a1: 'zh-password',
    a2: 'zh-password',
    a3: 'zh-secret-key',
    a4: 'zh-token',
    a5: 'zh-one-time-code',
    a6: 'zh-id-number',
    a7: 'zh-card-number',
    x: 'api-key',
  });
  const negatives = {
    name: {},
    email: {},
    username: {},
    userName: {},
    maxTokens: {},
    tokenCount: {},
    token_limit: {},
    tokens: {},
    spinRate: {},
    pinned: {},
    passport_country: {},
    description: { title: 'Description' },
    city: { title: '城市' },
    姓名: {},
    secretary: {},
  };
  assert.deepEqual(hits(negatives), []);
});

test('toRequestedSchema: zod → the wire subset per revision, strict about what the wire cannot carry', () => {
  const zs = z.object({
    name: z.string().min(1).default('Ada').describe('Your name'),
    email: z.email(),
    when: z.iso.date().optional(),
    age: z.number().int().min(0).max(150),
    ok: z.boolean().default(true),
    colour: z.enum(['r', 'g']).meta({ title: 'Colour' }),
    level: z.union([z.literal('lo').meta({ title: 'Low' }), z.literal('hi').meta({ title: 'High' })]),
    tags: z
      .array(z.enum(['a', 'b']))
      .min(1)
      .max(2),
  });
  const s = toRequestedSchema(zs, { revision: '2025-11-25' });
  assert.deepEqual(s, {
    type: 'object',
    properties: {
      name: { description: 'Your name', type: 'string', minLength: 1, default: 'Ada' },
      email: { type: 'string', format: 'email' },
      when: { type: 'string', format: 'date' },
      age: { type: 'integer', minimum: 0, maximum: 150 },
      ok: { type: 'boolean', default: true },
      colour: { title: 'Colour', type: 'string', enum: ['r', 'g'] },
      level: {
        type: 'string',
        oneOf: [
          { const: 'lo', title: 'Low' },
          { const: 'hi', title: 'High' },
        ],
      },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, minItems: 1, maxItems: 2 },
    },
    required: ['email', 'age', 'colour', 'level', 'tags'],
  });
  const old = toRequestedSchema(z.object({ name: z.string().default('x'), ok: z.boolean().default(false) }), { revision: '2025-06-18' });
  assert.deepEqual(
    old.properties,
    { name: { type: 'string' }, ok: { type: 'boolean', default: false } },
    '2025-06-18 keeps only boolean defaults',
  );
  // 2025-06-18 has no titled options: a union of literals goes as that revision's enum (+ enumNames).
  const choice = z.union([z.literal('lo').meta({ title: 'Low' }), z.literal('hi').meta({ title: 'High' })]);
  assert.deepEqual(toRequestedSchema(z.object({ level: choice }), { revision: '2025-06-18' }).properties.level, {
    type: 'string',
    enum: ['lo', 'hi'],
    enumNames: ['Low', 'High'],
  });
  assert.deepEqual(
    toRequestedSchema(z.object({ level: z.union([z.literal('lo'), z.literal('hi')]) }), { revision: '2025-06-18' }).properties.level,
    { type: 'string', enum: ['lo', 'hi'] },
  );
  assert.equal(
    (toRequestedSchema(z.object({ level: choice }), { revision: '2025-11-25' }).properties.level as { oneOf?: unknown }).oneOf !==
      undefined,
    true,
    'later revisions keep titled options',
  );
  const refuse: Array<[z.ZodType, string, string]> = [
    [z.object({ addr: z.object({ city: z.string() }) }), 'nested-object', '/properties/addr'],
    [z.object({ code: z.string().regex(/^[A-Z]+$/) }), 'regex', '/properties/code'],
    [z.object({ n: z.number().positive() }), 'exclusive-bound', '/properties/n'],
    [z.object({ n: z.string().nullable() }), 'nullable', '/properties/n'],
    [z.object({ xs: z.array(z.number()) }), 'array-not-enum', '/properties/xs'],
    [z.object({ u: z.union([z.string(), z.number()]) }), 'union', '/properties/u'],
    [z.object({ u: z.union([z.literal('a'), z.object({})]) }), 'union', '/properties/u/anyOf/1'],
    [z.string(), 'not-object', ''],
    [z.object({ d: z.date() }), 'type', '/properties/d'],
  ];
  for (const [schema, code, path] of refuse) {
    assert.throws(
      () => toRequestedSchema(schema),
      (e: any) => {
        assert.ok(e instanceof UnsupportedSchemaError, String(e));
        assert.deepEqual([e.code, e.path], [code, path], e.message);
        return true;
      },
    );
  }
  assert.deepEqual(parseAccepted(zs, { email: 'a@b.co', age: 3, colour: 'r', level: 'hi', tags: ['a'] }), {
    ok: true,
    value: { name: 'Ada', email: 'a@b.co', age: 3, ok: true, colour: 'r', level: 'hi', tags: ['a'] },
  });
  const bad = parseAccepted(zs, { email: 'x', age: 1.5, colour: 'r', level: 'hi', tags: [] });
  assert.ok(!bad.ok);
  assert.deepEqual(bad.issues.map((i) => i.path).sort(), ['/age', '/email', '/tags']);
});

test('an error inside a multi-select answer names the item, on both enum shapes', () => {
  const schema = {
    type: 'object',
    properties: {
      tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['a', 'b'] } },
      t2: { type: 'array', items: { anyOf: [{ const: 'x', title: 'X' }] } },
    },
  } as const;
  const r = validateContent(schema as never, { tags: ['a', 'zzz'], t2: ['q'] });
  assert.ok(!r.ok);
  assert.deepEqual(
    r.issues.map((i) => [i.path, i.message]),
    [
      ['/tags/1', '"tags" (Tags), item 2: must be one of ["a","b"]'],
      ['/t2/0', '"t2", item 1: must be one of ["x"]'],
    ],
  );
});

test('validation messages are for people: no validator keyword or wording, the rule in code and the pointer in path', () => {
  const schema = {
    type: 'object',
    properties: {
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, minItems: 1, maxItems: 1 },
      name: { type: 'string', minLength: 2, maxLength: 3 },
      n: { type: 'integer', minimum: 1, maximum: 9 },
    },
  } as const;
  const few = validateContent(schema as never, { tags: [], name: 'x', n: 0 });
  const many = validateContent(schema as never, { tags: ['a', 'b'], name: 'xxxx', n: 10 });
  assert.ok(!few.ok && !many.ok);
  assert.deepEqual(
    [...few.issues, ...many.issues].map((i) => [i.code, i.path, i.message]),
    [
      ['minItems', '/tags', '"tags": choose at least 1 item'],
      ['minLength', '/name', '"name" must be at least 2 characters long'],
      ['minimum', '/n', '"n" must be at least 1'],
      ['maxItems', '/tags', '"tags": choose at most 1 item'],
      ['maxLength', '/name', '"name" must be at most 3 characters long'],
      ['maximum', '/n', '"n" must be at most 9'],
    ],
  );
  for (const i of [...few.issues, ...many.issues])
    assert.doesNotMatch(i.message, /must NOT|\((minItems|maxItems|minLength|maxLength|minimum|maximum)\)/);
});

test('the validator cache is bounded (VALIDATOR_CACHE_SIZE, least recently used evicted) and results stay right across evictions', async () => {
  const { VALIDATOR_CACHE_SIZE } = await import('../src/schema/validate.js');
  const schemaOf = (i: number) =>
    ({ type: 'object', properties: { [`f${i}`]: { type: 'integer', minimum: i } }, required: [`f${i}`] }) as never;
  const first = schemaOf(0);
  for (let i = 0; i <= VALIDATOR_CACHE_SIZE + 10; i++) {
    const s = i % 2 ? schemaOf(i) : JSON.parse(JSON.stringify(schemaOf(i))); // new objects: text and hash levels
    assert.equal(validateContent(s, { [`f${i}`]: i }).ok, true);
    assert.equal(validateContent(s, { [`f${i}`]: i - 1 }).ok, false);
  }
  assert.equal(validateContent(JSON.parse(JSON.stringify(first)), { f0: 0 }).ok, true, 'an evicted schema compiles again, alike');
  assert.equal(validateContent(JSON.parse(JSON.stringify(first)), { f0: 'x' }).ok, false);
});
