// Regressions from the first outside review of the schema core: each test stands for a kind of fault.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod';
import {
  applyDefaults,
  coerceFormValues,
  detectSensitiveFields,
  lintRequestedSchema,
  normalizeRequestedSchema,
  readElicitResult,
  schemaHash,
  toRequestedSchema,
  UnsupportedSchemaError,
  validateContent,
  type RequestedSchema,
} from '../src/schema/index.js';

const S = (properties: Record<string, unknown>, required?: string[]) =>
  ({ type: 'object', properties, ...(required ? { required } : {}) }) as RequestedSchema;

test('field names that are Object.prototype keys are ordinary names; __proto__ is refused as a reserved name', () => {
  const withProto = JSON.parse(
    '{"type":"object","properties":{"__proto__":{"type":"string"},"b":{"type":"string"}},"required":["__proto__"]}',
  );
  assert.deepEqual(
    lintRequestedSchema(withProto).map((i) => [i.code, i.path]),
    [['reserved-name', '/properties/__proto__']],
  );
  const refused = normalizeRequestedSchema(withProto);
  assert.ok(!refused.ok && refused.issues[0].code === 'reserved-name');
  assert.throws(
    () => toRequestedSchema(z.object({ ['__proto__']: z.string() })),
    (e: any) => e instanceof UnsupportedSchemaError && e.path === '/properties/__proto__',
  );
  const n = normalizeRequestedSchema(
    S({ constructor: { type: 'string', default: 'd' }, toString: { type: 'integer' }, b: { type: 'string' } }, ['constructor', 'toString']),
  );
  assert.ok(n.ok);
  assert.deepEqual(Object.keys(n.schema.properties), ['constructor', 'toString', 'b']);
  assert.equal(Object.getPrototypeOf(n.schema.properties), Object.prototype, 'no prototype change');
  assert.ok(!validateContent(n.schema, {}).ok, 'inherited constructor/toString never satisfy required');
  assert.ok(validateContent(n.schema, { constructor: 'x', toString: 3 }).ok);
  const filled = applyDefaults(n.schema, {});
  assert.equal(Object.getOwnPropertyDescriptor(filled, 'constructor')?.value, 'd');
  assert.ok(!readElicitResult({ action: 'accept', content: {} }, S({ a: { type: 'string' } }, ['constructor'])).ok);
  assert.ok(lintRequestedSchema(S({ a: { type: 'string' } }, ['constructor'])).some((i) => i.code === 'required-missing'));
  const c = coerceFormValues(n.schema, { toString: '4', valueOf: 'x' });
  assert.ok(!c.ok && c.issues.some((i) => i.path === '/valueOf' && i.code === 'unknown-field'));
});

test('hostile values never make the core throw: deep nesting, BigInt, cycles', () => {
  const deep = JSON.parse('{"type":"object","properties":{"a":{"type":' + '['.repeat(5000) + ']'.repeat(5000) + '}}}');
  assert.equal(lintRequestedSchema(deep)[0].code, 'too-deep');
  assert.equal((normalizeRequestedSchema(deep) as any).issues[0].code, 'too-deep');
  assert.equal((validateContent(deep, {}) as any).issues[0].code, 'too-deep');
  assert.ok(!readElicitResult(JSON.parse('{"action":"accept","content":' + '['.repeat(5000) + ']'.repeat(5000) + '}')).ok);
  const cyc: any = { type: 'object', properties: { a: { type: 'string' } } };
  cyc.properties.a.default = cyc;
  assert.ok(Array.isArray(lintRequestedSchema(cyc)));
  assert.equal(typeof schemaHash(cyc), 'string');
  assert.equal(typeof schemaHash(10n), 'string');
  assert.notEqual(schemaHash(new Date(1)), schemaHash(new Date(2)));
  assert.ok(lintRequestedSchema(S({ a: { type: 'integer', default: 10n } })).some((i) => i.code === 'default-invalid'));
});

test('toRequestedSchema refuses every zod check the wire cannot carry instead of dropping it', () => {
  const refused: Array<[z.ZodType, string]> = [
    [z.email().regex(/@corp\.com$/), 'regex'],
    [z.literal('x'), 'keyword'],
    [z.number().multipleOf(5), 'keyword'],
    [z.nativeEnum({ A: 1, B: 2 }), 'type'],
    [z.iso.datetime(), 'datetime-offset'],
    [z.string().startsWith('a'), 'regex'],
  ];
  for (const [schema, code] of refused)
    assert.throws(
      () => toRequestedSchema(z.object({ x: schema })),
      (e: any) => e instanceof UnsupportedSchemaError && e.code === code && e.path === '/properties/x',
      code,
    );
  assert.deepEqual(toRequestedSchema(z.object({ t: z.iso.datetime({ offset: true }) })).properties.t, {
    type: 'string',
    format: 'date-time',
  });
});

test('date-time is strict RFC 3339; NaN and Infinity are not numbers', () => {
  const s = S({ t: { type: 'string', format: 'date-time' }, n: { type: 'number' }, i: { type: 'integer' } });
  for (const t of [
    '2025-01-01 00:00:00Z',
    '2025-01-01T00:00:00+01',
    '2025-01-01T00:00:00+0100',
    '2025-01-01T24:00:00Z',
    '2016-12-31T22:59:60Z',
  ])
    assert.ok(!validateContent(s, { t }).ok, t);
  for (const t of ['2025-01-01T00:00:00+01:00', '2016-12-31T23:59:60Z', '2024-02-29t12:00:00.123z'])
    assert.ok(validateContent(s, { t }).ok, t);
  for (const v of [NaN, Infinity, -Infinity]) {
    assert.ok(!validateContent(s, { n: v }).ok, String(v));
    assert.ok(!validateContent(s, { i: v }).ok, String(v));
  }
  assert.ok(!readElicitResult({ action: 'accept', content: { a: Infinity } }).ok);
  assert.ok(!coerceFormValues(s, { n: NaN }).ok);
});

test('the normaliser output always lints clean: bounds, titles and items keys are repaired and listed', () => {
  const n = normalizeRequestedSchema({
    type: 'object',
    properties: {
      r: { type: 'integer', minimum: 5, maximum: 1 },
      l: { type: 'string', minLength: 5, maxLength: 1 },
      m: { type: 'array', minItems: 3, items: { type: 'string', enum: ['a', 'b'], uniqueItems: true } },
      t: { type: 'string', oneOf: [{ const: 'x' }, { const: 'y', title: 'Y', description: 'd' }] },
      tm: { type: 'array', items: { type: 'string', anyOf: [{ const: 'p', title: 'P' }] } },
    },
  });
  assert.ok(n.ok);
  assert.deepEqual(
    lintRequestedSchema(n.schema).filter((i) => i.severity === 'error'),
    [],
  );
  assert.deepEqual(
    n.repairs.map((r) => [r.code, r.path]),
    [
      ['bounds-dropped', '/properties/r/minimum'],
      ['bounds-dropped', '/properties/l/minLength'],
      ['keyword-dropped', '/properties/m/items/uniqueItems'],
      ['bounds-dropped', '/properties/m/minItems'],
      ['option-title-added', '/properties/t/oneOf/0'],
      ['keyword-dropped', '/properties/t/oneOf/1'],
      ['keyword-dropped', '/properties/tm/items/type'],
    ],
  );
  assert.deepEqual((n.schema.properties.t as any).oneOf, [
    { const: 'x', title: 'x' },
    { const: 'y', title: 'Y' },
  ]);
  const bad = normalizeRequestedSchema(S({ n: { type: 'integer', enum: [1, 2] } }));
  assert.ok(!bad.ok && bad.issues[0].code === 'enum-values', 'a numeric enum is refused, not silently widened');
});

test('form input: decimal numbers only, no objects in text fields, whole option labels before comma splitting, [] kept', () => {
  const s = S(
    { n: { type: 'number' }, s: { type: 'string' }, m: { type: 'array', items: { type: 'string', enum: ['Smith, J', 'Doe'] } } },
    ['m'],
  );
  const bad = coerceFormValues(s, { n: '0x10', s: { a: 1 } as any });
  assert.ok(!bad.ok);
  assert.deepEqual(
    bad.issues.map((i) => [i.path, i.code]),
    [
      ['/n', 'not-a-number'],
      ['/s', 'not-text'],
    ],
  );
  assert.ok(!coerceFormValues(s, { n: '0b11' }).ok);
  assert.deepEqual(coerceFormValues(s, { n: '-1.5e3', m: 'Smith, J' }), { ok: true, value: { n: -1500, m: ['Smith, J'] } });
  const empty = coerceFormValues(s, { m: [] });
  assert.deepEqual(empty, { ok: true, value: { m: [] } });
});

test("sensitive fields: the review's misses are caught and its false positives are not", () => {
  const props = (o: Record<string, unknown>) => detectSensitiveFields({ type: 'object', properties: o }).map((h) => h.field);
  const hits = {
    a: { type: 'string', title: '密碼' },
    b: { type: 'string', title: '驗證碼' },
    c: { type: 'string', title: '密鑰' },
    d: { type: 'string', title: 'PIN码' },
    e: { type: 'string', title: 'CVV码' },
    f: { type: 'string', title: '安全码' },
    g: { type: 'string', title: '授权码' },
    h: { type: 'string', title: '助记词' },
    i: { type: 'string', title: '短信码' },
    bearer: { type: 'string' },
    jwt: { type: 'string' },
    j: { type: 'string', title: 'Authorization header' },
    sessionCookie: { type: 'string' },
    k: { type: 'string', title: 'Recovery code' },
    backupCodes: { type: 'string' },
    l: { type: 'string', title: 'Seed phrase' },
    mnemonic: { type: 'string' },
    connectionString: { type: 'string' },
    pinCode: { type: 'integer' },
  };
  assert.deepEqual(props(hits), Object.keys(hits));
  const misses = {
    a: { type: 'integer', title: '令牌数量' },
    pwd: { type: 'string', title: 'Working directory' },
    username: { type: 'string', description: 'We will never ask for your password.' },
    m: { type: 'integer', title: 'Minimum password length' },
    pin: { type: 'boolean', title: 'Pin this message?' },
    tokenType: { type: 'string' },
    designToken: { type: 'string' },
    secretSanta: { type: 'string' },
    passport: { type: 'string', title: 'Passport number' },
    mode: { type: 'string', enum: ['password', 'oauth'] },
  };
  assert.deepEqual(props(misses), []);
});

test('sensitive fields from the second review: format password, session ids, bank accounts', () => {
  const hits = detectSensitiveFields({
    type: 'object',
    properties: {
      p: { type: 'string', format: 'password' },
      session_id: { type: 'string' },
      iban: { type: 'string' },
      acct: { type: 'string', title: 'Bank account number' },
    },
  });
  assert.deepEqual(
    hits.map((h) => [h.field, h.rule]),
    [
      ['p', 'password'],
      ['session_id', 'credential'],
      ['iban', 'bank-account'],
      ['acct', 'bank-account'],
    ],
  );
});

test('setOwn: any key becomes an own, enumerable data property; __proto__ and inherited names included, no setter runs', async () => {
  const { setOwn } = await import('../src/schema/safe.js');
  const o: Record<string, unknown> = {};
  for (const k of ['name', '__proto__', 'constructor', 'toString', 'hasOwnProperty']) setOwn(o, k, `v-${k}`);
  for (const k of ['name', '__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    const d = Object.getOwnPropertyDescriptor(o, k);
    assert.deepEqual(d, { value: `v-${k}`, enumerable: true, writable: true, configurable: true }, `own data property ${k}`);
  }
  assert.equal(Object.getPrototypeOf(o), Object.prototype, 'the prototype was not replaced');
  setOwn(o, 'name', 'again');
  assert.equal(o.name, 'again', 'an own key is overwritten');
  let ran = 0;
  const proto = {
    set trap(_v: unknown) {
      ran++;
    },
  };
  const child = Object.create(proto) as Record<string, unknown>;
  setOwn(child, 'trap', 1);
  assert.equal(ran, 0, 'an inherited setter is not called');
  assert.equal(Object.getOwnPropertyDescriptor(child, 'trap')?.value, 1);
});

test('sensitive-field verdicts are memoised per text: repeats, evictions and long texts give the same hits as the first time', async () => {
  const { MEMO_SIZE, MEMO_TEXT_MAX } = await import('../src/schema/sensitive.js');
  const long = `Your account ${'and more words '.repeat(MEMO_TEXT_MAX / 10)} password`;
  const schema = {
    type: 'object',
    properties: {
      apiKey: { type: 'string' },
      note: { type: 'string', description: 'we never ask for your password' },
      essay: { type: 'string', description: long },
      city: { type: 'string', title: 'City' },
    },
  };
  const first = detectSensitiveFields(schema);
  assert.deepEqual(
    first.map((h) => [h.field, h.rule, h.where]),
    [
      ['apiKey', 'api-key', 'name'],
      ['essay', 'password', 'description'],
    ],
  );
  first[0].rule = 'changed by a caller';
  assert.deepEqual(
    detectSensitiveFields(schema),
    detectSensitiveFields(JSON.parse(JSON.stringify(schema))),
    'a repeat equals a fresh copy',
  );
  assert.equal(detectSensitiveFields(schema)[0].rule, 'api-key', 'a caller changing a hit changes no later result');
  // More distinct texts than the memo holds: the first ones are forgotten and judged again, alike.
  for (let i = 0; i <= MEMO_SIZE; i++) detectSensitiveFields({ type: 'object', properties: { [`field${i}`]: { type: 'string' } } });
  assert.deepEqual(
    detectSensitiveFields(schema).map((h) => [h.field, h.rule]),
    [
      ['apiKey', 'api-key'],
      ['essay', 'password'],
    ],
  );
});
