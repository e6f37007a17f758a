// The broker's per-form cache (src/host/broker/form-cache.ts): a repeat of the same form reuses the
// checks, different forms (and revisions) never share them, cached checks equal the uncached schema
// core on every vector, and anything a JSON text does not describe exactly is never cached.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { checkForm, faithfulText, formCacheSize, FORM_CACHE_SIZE, MAX_CACHED_TEXT } from '../src/host/broker/form-cache.js';
import { ElicitationBroker } from '../src/host/broker/index.js';
import type { InputRequestView } from '../src/host/presenter.js';
import {
  checkSchemaLimits,
  detectSensitiveFields,
  lintRequestedSchema,
  normalizeRequestedSchema,
  schemaHash,
  type Revision,
} from '../src/schema/index.js';
import { ctx } from './fixtures/broker/ctx.js';

// Every assert.ok here carries a message: without one, a failing assert.ok re-reads the (tsx-compiled)
// source to quote the expression, which can hang the runner.

const REVISIONS: Revision[] = ['2025-06-18', '2025-11-25', '2026-07-28'];
const FORM = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 1 },
    plan: { type: 'string', enum: ['free', 'pro'] },
    password: { type: 'string', title: 'Password' },
  },
  required: ['name'],
};
const fresh = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** What the broker computed before the cache, on the value itself. */
function direct(schema: unknown, revision: Revision) {
  const over = checkSchemaLimits(schema);
  if (over.length) return { normalized: { ok: false, issues: over }, lint: [], sensitive: [] };
  const normalized = normalizeRequestedSchema(schema, { revision });
  if (!normalized.ok) return { normalized, lint: [], sensitive: [] };
  const marked = detectSensitiveFields(schema).filter((h) => h.field in normalized.schema.properties);
  return {
    normalized,
    lint: lintRequestedSchema(schema, { revision }),
    sensitive: [...new Set([...detectSensitiveFields(normalized.schema), ...marked].map((f) => f.field))],
  };
}
const view = (c: ReturnType<typeof checkForm>) => ({ normalized: c.normalized, lint: c.lint, sensitive: c.sensitive });

test('a repeat of the same form (a fresh object with the same JSON) gets the cached checks', () => {
  const form = { ...fresh(FORM), description: 'repeat test' };
  const before = formCacheSize();
  const a = checkForm(fresh(form), '2025-11-25');
  const b = checkForm(fresh(form), '2025-11-25');
  assert.equal(b, a, "the second request reuses the first one's checks");
  assert.equal(formCacheSize(), Math.min(before + 1, FORM_CACHE_SIZE));
  assert.deepEqual(view(a), direct(form, '2025-11-25'));
  assert.deepEqual(a.sensitive, ['password']);
});

test('different forms never share checks; a mutated copy with different JSON gets its own entry', () => {
  const base = { ...fresh(FORM), description: 'mutation test' };
  const a = checkForm(fresh(base), '2025-11-25');
  const changed = fresh(base);
  changed.properties.plan.enum.push('team');
  changed.properties.name.title = 'Full name';
  const b = checkForm(changed, '2025-11-25');
  assert.notEqual(b, a);
  assert.ok(b.normalized.ok && a.normalized.ok, 'both forms are valid');
  assert.deepEqual((b.normalized.schema.properties.plan as { enum: string[] }).enum, ['free', 'pro', 'team']);
  assert.equal(b.normalized.schema.properties.name.title, 'Full name');
  assert.deepEqual((a.normalized.schema.properties.plan as { enum: string[] }).enum, ['free', 'pro'], 'the first entry is untouched');
  assert.notEqual(a.hash(), b.hash());
  // Same content in another key order: another text, so another entry, with equal checks.
  const reordered = { required: base.required, properties: base.properties, type: base.type, description: base.description };
  const c = checkForm(fresh(reordered), '2025-11-25');
  assert.notEqual(c, a);
  assert.deepEqual(c.normalized, direct(reordered, '2025-11-25').normalized);
});

test('the same text under another revision gets checks for that revision', () => {
  const form = { $schema: 'https://json-schema.org/draft/2020-12/schema', ...fresh(FORM), description: 'revision test' };
  const checks = REVISIONS.map((r) => checkForm(fresh(form), r));
  assert.equal(new Set(checks).size, 3);
  REVISIONS.forEach((r, i) => assert.deepEqual(view(checks[i]), direct(form, r), r));
  // $schema is a root key only from 2025-11-25 on: 2025-06-18 warns about it.
  assert.ok(
    checks[0].lint.some((i) => i.path === '/$schema'),
    '2025-06-18 lint notes $schema',
  );
  assert.ok(!checks[1].lint.some((i) => i.path === '/$schema'), '2025-11-25 lint accepts $schema');
});

/** Near-miss shapes real servers send (each exercises a kind of repair or refusal). */
const EXTRA: unknown[] = [
  { type: 'object', $defs: { C: { type: 'string', enum: ['r', 'g'] } }, properties: { c: { $ref: '#/$defs/C' } } },
  {
    type: 'object',
    properties: {
      n: { anyOf: [{ type: 'integer', minimum: 5, maximum: 1 }, { type: 'null' }] },
      s: { type: ['string', 'null'], format: 'hostname' },
    },
  },
  { type: 'object', properties: { m: { type: 'array', items: { oneOf: [{ const: 'a', title: 'A' }, { const: 'b' }] }, minItems: 3 } } },
  {
    type: 'object',
    properties: { l: { type: 'string', enum: ['x', 'y'], enumNames: ['X'] }, d: { type: 'string', format: 'email', default: 'nope' } },
    required: ['l', 'l', 'gone', 3],
  },
  { type: 'object', properties: { k: { type: 'string', description: 'your API key' }, t: { type: 'integer', title: 'Token count' } } },
  { type: 'object', properties: { o: { type: 'object', properties: {} } } },
  { type: 'object', properties: { r: { $ref: '#/$defs/missing' } } },
  { properties: { p: { type: 'boolean', default: 'yes' } }, title: 'Root title' },
  'not an object',
  null,
  [],
];

function vectorSchemas(): unknown[] {
  const vectors = JSON.parse(readFileSync(new URL('./vectors/schemas.json', import.meta.url), 'utf8')) as Array<{ input: unknown }>;
  return [
    ...vectors.map((v) =>
      v.input && typeof v.input === 'object' && 'requestedSchema' in v.input
        ? (v.input as { requestedSchema: unknown }).requestedSchema
        : v.input,
    ),
    ...EXTRA,
    FORM,
  ];
}

test('cached checks equal the uncached schema core for every schema vector and near-miss shape, on every revision, first call and repeat', () => {
  const schemas = vectorSchemas();
  assert.ok(schemas.length >= 20, `read ${schemas.length} schemas`);
  for (const s of schemas) {
    for (const r of REVISIONS) {
      const want = direct(s, r);
      assert.deepEqual(view(checkForm(fresh(s), r)), want, `${JSON.stringify(s).slice(0, 80)} @ ${r}`);
      assert.deepEqual(view(checkForm(fresh(s), r)), want, `repeat: ${JSON.stringify(s).slice(0, 80)} @ ${r}`);
    }
  }
});

test('cached checks equal the uncached schema core for generated JSON values', () => {
  const prop = fc.dictionary(
    fc.constantFrom('type', 'title', 'enum', 'oneOf', 'anyOf', 'items', 'default', 'format', 'minimum', 'minLength', 'x'),
    fc.jsonValue({ maxDepth: 2 }),
    { maxKeys: 4 },
  );
  const schema = fc.record(
    {
      type: fc.constantFrom('object', 'string', undefined),
      properties: fc.dictionary(fc.string({ maxLength: 8 }), prop, { maxKeys: 4 }),
      required: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
    },
    { requiredKeys: [] },
  );
  fc.assert(
    fc.property(schema, fc.constantFrom(...REVISIONS), (s, r) => {
      const json = fresh(s); // the wire form: no undefined members
      assert.deepEqual(view(checkForm(json, r)), direct(json, r));
      assert.deepEqual(view(checkForm(fresh(json), r)), direct(json, r));
    }),
    { numRuns: Number(process.env.PARLEY_FC_RUNS ?? 200) },
  );
});

test('values a JSON text does not describe exactly are checked directly and never cached', () => {
  const nonEnumerable = { properties: { a: { type: 'string' } } };
  Object.defineProperty(nonEnumerable, 'type', { value: 'object', enumerable: false });
  const symbolKey = { ...fresh(FORM), [Symbol('x')]: 1 };
  const nullProto = Object.assign(Object.create(null) as object, fresh(FORM));
  // biome-ignore lint/suspicious/noSparseArray: the hole is what this case checks
  const sparse = { ...fresh(FORM), required: ['name', , 'plan'] };
  const extraArrayKey = fresh(FORM);
  (extraArrayKey.required as string[] & { note?: string }).note = 'x';
  class Props {
    a = { type: 'string' };
  }
  const cyclic: Record<string, unknown> = { type: 'object', properties: {} };
  (cyclic.properties as Record<string, unknown>).self = cyclic;
  const big = {
    type: 'object',
    properties: Object.fromEntries(
      Array.from({ length: 90 }, (_, i) => [
        `field${i}`,
        { type: 'string', title: `Field number ${i}`, description: `About field ${i}: ${'some words '.repeat(20)}` },
      ]),
    ),
  };
  let deep: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 20; i++) deep = { type: 'object', properties: { x: deep } };
  const cases: Array<[string, unknown]> = [
    ['an undefined member', { type: 'object', properties: { a: { type: 'string', minLength: undefined } } }],
    ['NaN', { type: 'object', properties: { a: { type: 'number', minimum: NaN } } }],
    ['Infinity', { type: 'object', properties: { a: { type: 'number', maximum: Infinity } } }],
    ['-0', { type: 'object', properties: { a: { type: 'number', minimum: -0 } } }],
    ['a Date', { type: 'object', properties: { a: { type: 'string', default: new Date(0) } } }],
    ['a function', { type: 'object', properties: { a: { type: 'string', title: () => 'x' } } }],
    ['a bigint', { type: 'object', properties: { a: { type: 'integer', minimum: 1n } } }],
    ['a non-enumerable key', nonEnumerable],
    ['a symbol key', symbolKey],
    ['a null-prototype object', nullProto],
    ['a class instance', { type: 'object', properties: new Props() }],
    ['a sparse array', sparse],
    ['an array with an extra key', extraArrayKey],
    ['a cycle', cyclic],
    ['a text above MAX_CACHED_TEXT', big],
    ['nesting deeper than the cache walks', deep],
    ['undefined', undefined],
  ];
  assert.ok(JSON.stringify(big).length > MAX_CACHED_TEXT, 'the big case is above the text bound');
  for (const [what, value] of cases) {
    assert.equal(faithfulText(value), undefined, what);
    const before = formCacheSize();
    const got = checkForm(value, '2025-11-25');
    assert.equal(formCacheSize(), before, `${what}: not cached`);
    assert.deepEqual(view(got), direct(value, '2025-11-25'), what);
    assert.notEqual(checkForm(value, '2025-11-25'), got, `${what}: computed again`);
  }
  // Why: these two give other checks than their JSON text does.
  const codes = (v: unknown) => {
    const n = checkForm(v, '2025-11-25').normalized;
    return n.ok ? n.repairs.map((r) => r.code) : n.issues.map((i) => i.code);
  };
  assert.deepEqual([codes(cases[0][1]), codes(fresh(cases[0][1]))], [['bound-dropped'], []]);
  const n1 = checkForm(nonEnumerable, '2025-11-25').normalized;
  const n2 = checkForm(fresh(nonEnumerable), '2025-11-25').normalized;
  assert.ok(n1.ok && n2.ok, 'both normalise');
  assert.deepEqual([n1.repairs.map((r) => r.code), n2.repairs.map((r) => r.code)], [[], ['root-type-added']]);
});

test("cached checks are frozen and share nothing with the caller's object", () => {
  const sent = { ...fresh(FORM), description: 'freeze test' };
  const c = checkForm(sent, '2025-11-25');
  assert.ok(c.normalized.ok, 'valid form');
  assert.ok(
    Object.isFrozen(c.normalized.schema) &&
      Object.isFrozen(c.normalized.schema.properties.plan) &&
      Object.isFrozen((c.normalized.schema.properties.plan as { enum: string[] }).enum),
    'the normalised schema is deep-frozen',
  );
  assert.ok(
    Object.isFrozen(c.normalized.repairs) && Object.isFrozen(c.lint) && Object.isFrozen(c.sensitive),
    'repairs, lint and sensitive are frozen',
  );
  assert.ok(
    c.lint.every((i) => Object.isFrozen(i)),
    'each lint issue is frozen',
  );
  assert.throws(() => (c.sensitive as string[]).push('x'), TypeError);
  assert.ok(!Object.isFrozen(sent) && !Object.isFrozen(sent.properties.plan.enum), "the caller's object is left as it was");
  sent.properties.plan.enum.push('team');
  assert.deepEqual(
    (c.normalized.schema.properties.plan as { enum: string[] }).enum,
    ['free', 'pro'],
    'a later change to the sent object does not reach the cache',
  );
});

test('hash() is schemaHash of the normalised schema, works detached, and is empty for a refused form', () => {
  const c = checkForm(fresh({ ...FORM, description: 'hash test' }), '2026-07-28');
  assert.ok(c.normalized.ok, 'valid form');
  const hash = c.hash;
  assert.equal(hash(), schemaHash(c.normalized.schema));
  assert.equal(c.hash(), hash());
  const bad = checkForm({ type: 'object', properties: { nested: { type: 'object', properties: {} } } }, '2026-07-28');
  assert.equal(bad.normalized.ok, false);
  assert.deepEqual([bad.lint, bad.sensitive, bad.hash()], [[], [], '']);
});

test('the cache is bounded', () => {
  for (let i = 0; i < FORM_CACHE_SIZE + 20; i++) checkForm({ type: 'object', properties: { [`f${i}`]: { type: 'string' } } }, '2025-11-25');
  assert.equal(formCacheSize(), FORM_CACHE_SIZE);
});

test('broker: two requests with the same form get the same frozen schema; a changed form gets its own', async () => {
  const seen: InputRequestView[] = [];
  const presenter = {
    interactive: false,
    present: async (p: InputRequestView) => (seen.push(p), { action: 'accept' as const, content: { name: 'Ada' } }),
    notify: () => {},
  };
  const broker = new ElicitationBroker({ presenter, policy: { sensitiveFields: 'allow' } });
  const form = { ...fresh(FORM), description: 'broker test' };
  await broker.elicit({ message: 'one', requestedSchema: fresh(form) }, ctx());
  await broker.elicit({ message: 'two', requestedSchema: fresh(form) }, ctx());
  const changed = fresh(form);
  changed.properties.name.minLength = 2;
  await broker.elicit({ message: 'three', requestedSchema: changed }, ctx());
  assert.equal(seen.length, 3);
  assert.equal(seen[1].schema, seen[0].schema);
  assert.ok(Object.isFrozen(seen[0].schema), 'the prompt schema is frozen');
  assert.notEqual(seen[2].schema, seen[0].schema);
  assert.equal((seen[2].schema!.properties.name as { minLength?: number }).minLength, 2);
  assert.deepEqual(
    seen.map((p) => [p.message, p.sensitiveFields, p.warnings]),
    [
      ['one', ['password'], ['sensitive:password']],
      ['two', ['password'], ['sensitive:password']],
      ['three', ['password'], ['sensitive:password']],
    ],
  );
  assert.deepEqual(Object.keys(seen[0]), [
    'id',
    'server',
    'message',
    'mode',
    'repairs',
    'lint',
    'warnings',
    'warningDetails',
    'sensitiveFields',
    'round',
    'schema',
    'prefill',
    'prefillSources',
  ]);
});
