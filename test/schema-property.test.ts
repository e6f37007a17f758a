// Property-based tests: generated valid schemas lint clean and validate their generated valid
// content; generated invalid schemas and content give issues and never throw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  applyDefaults,
  coerceFormValues,
  detectSensitiveFields,
  lintRequestedSchema,
  normalizeRequestedSchema,
  readElicitResult,
  validateContent,
  type RequestedSchema,
} from '../src/schema/index.js';

const RUNS = Number(process.env.PARLEY_FC_RUNS ?? 300);
const title = fc.constantFrom('Name', 'Colour', 'Amount', 'When', 'Choice', '城市', 'Région');
const word = fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/);
const uniqueWords = fc.uniqueArray(word, { minLength: 1, maxLength: 5 });
const meta = fc.record({ title, description: title }, { requiredKeys: [] });

type Gen = { prop: Record<string, unknown>; value: fc.Arbitrary<unknown> };
const dateArb = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true });
const formatValue: Record<string, fc.Arbitrary<string>> = {
  email: fc.tuple(word, word, fc.constantFrom('com', 'org', 'cn')).map(([a, b, t]) => `${a}@${b}.${t}`),
  uri: fc.tuple(word, word).map(([h, p]) => `https://${h}.example/${p}`),
  date: dateArb.map((d) => d.toISOString().slice(0, 10)),
  'date-time': dateArb.map((d) => d.toISOString()),
};

const stringGen: fc.Arbitrary<Gen> = fc.oneof(
  fc.tuple(meta, fc.nat(5), fc.nat(10)).map(([m, min, extra]) => ({
    prop: { type: 'string', ...m, minLength: min, maxLength: min + extra },
    value: fc.string({ minLength: min, maxLength: min + extra }),
  })),
  fc
    .tuple(meta, fc.constantFrom('email', 'uri', 'date', 'date-time'))
    .map(([m, f]) => ({ prop: { type: 'string', ...m, format: f }, value: formatValue[f] })),
);
const numberGen: fc.Arbitrary<Gen> = fc
  .tuple(meta, fc.constantFrom('number', 'integer'), fc.integer({ min: -1000, max: 1000 }), fc.nat(1000))
  .map(([m, t, min, span]) => ({
    prop: { type: t, ...m, minimum: min, maximum: min + span },
    value: t === 'integer' ? fc.integer({ min, max: min + span }) : fc.double({ min, max: min + span, noNaN: true }),
  }));
const boolGen: fc.Arbitrary<Gen> = fc
  .tuple(meta, fc.option(fc.boolean(), { nil: undefined }))
  .map(([m, d]) => ({ prop: { type: 'boolean', ...m, ...(d === undefined ? {} : { default: d }) }, value: fc.boolean() }));
const enumGen: fc.Arbitrary<Gen> = fc.tuple(meta, uniqueWords, fc.constantFrom('plain', 'legacy', 'titled')).map(([m, vals, shape]) => ({
  prop:
    shape === 'titled'
      ? { type: 'string', ...m, oneOf: vals.map((v) => ({ const: v, title: v.toUpperCase() })) }
      : { type: 'string', ...m, enum: vals, ...(shape === 'legacy' ? { enumNames: vals.map((v) => v.toUpperCase()) } : {}) },
  value: fc.constantFrom(...vals),
}));
const multiGen: fc.Arbitrary<Gen> = fc.tuple(meta, uniqueWords, fc.boolean()).chain(([m, vals, titled]) =>
  fc.tuple(fc.nat(vals.length), fc.nat(vals.length)).map(([a, b]) => {
    const [minItems, maxItems] = [Math.min(a, b), Math.max(a, b)];
    return {
      prop: {
        type: 'array',
        ...m,
        minItems,
        maxItems,
        items: titled ? { anyOf: vals.map((v) => ({ const: v, title: v })) } : { type: 'string', enum: vals },
      },
      value: fc.shuffledSubarray(vals, { minLength: minItems, maxLength: maxItems }),
    };
  }),
);

const schemaWithContent = fc
  .array(fc.oneof(stringGen, numberGen, boolGen, enumGen, multiGen), { minLength: 1, maxLength: 6 })
  .chain((gens) =>
    fc.tuple(
      fc.constant(gens),
      fc.array(fc.boolean(), { minLength: gens.length, maxLength: gens.length }),
      fc.tuple(...gens.map((g) => fc.option(g.value, { nil: undefined }))),
    ),
  )
  .map(([gens, req, values]) => {
    const schema: RequestedSchema = { type: 'object', properties: {} };
    const required: string[] = [];
    const content: Record<string, unknown> = {};
    gens.forEach((g, i) => {
      const name = `f${i}`;
      (schema.properties as any)[name] = g.prop;
      if (req[i]) required.push(name);
      if (values[i] !== undefined) content[name] = values[i];
    });
    if (required.length) schema.required = required;
    return { schema, content };
  });

test('generated valid schemas lint clean (2025-11-25, 2026-07-28) and accept their generated valid content', () => {
  fc.assert(
    fc.property(schemaWithContent, ({ schema, content }) => {
      for (const revision of ['2025-11-25', '2026-07-28'] as const)
        assert.deepEqual(
          lintRequestedSchema(schema, { revision }).filter((i) => i.severity === 'error'),
          [],
        );
      const n = normalizeRequestedSchema(schema);
      assert.ok(n.ok);
      assert.deepEqual(n.repairs, [], 'a valid schema needs no repair');
      // required fields that the generator left empty are filled only when they have a value
      const complete = Object.fromEntries(Object.entries(content).filter(([k]) => k in schema.properties));
      const missing = (schema.required ?? []).filter((r) => !(r in complete));
      const v = validateContent(schema, complete);
      if (missing.length === 0) assert.ok(v.ok, JSON.stringify(v));
      else assert.ok(!v.ok && missing.every((m) => v.issues.some((i) => i.code === 'required' && i.path === '/' + m)));
      assert.deepEqual(detectSensitiveFields(schema), []);
    }),
    { numRuns: RUNS },
  );
});

test('content a person types as text round-trips through coerceFormValues', () => {
  fc.assert(
    fc.property(schemaWithContent, ({ schema, content }) => {
      const typed = Object.fromEntries(Object.entries(content).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]));
      const c = coerceFormValues(schema, typed);
      assert.ok(c.ok, JSON.stringify(c));
      for (const [k, v] of Object.entries(content)) {
        if (typeof v === 'string' && v === '') continue; // empty text means "not provided"
        if (Array.isArray(v) && v.length === 0) continue;
        if (typeof v === 'number') assert.equal(c.value[k], Number(String(v)));
        else assert.deepEqual(c.value[k], v);
      }
    }),
    { numRuns: RUNS },
  );
});

const junk = fc.oneof(
  fc.anything(),
  fc.jsonValue(),
  fc.record({ type: fc.anything(), properties: fc.dictionary(fc.string(), fc.anything()), required: fc.anything() }, { requiredKeys: [] }),
  fc.record({
    type: fc.constant('object'),
    properties: fc.dictionary(
      word,
      fc.record(
        {
          type: fc.constantFrom('string', 'array', 'object', 'integer', undefined, 7),
          enum: fc.anything(),
          oneOf: fc.anything(),
          items: fc.anything(),
          minLength: fc.anything(),
          maxLength: fc.anything(),
          minimum: fc.anything(),
          maximum: fc.anything(),
          minItems: fc.anything(),
          maxItems: fc.anything(),
          default: fc.anything(),
          format: fc.anything(),
          enumNames: fc.anything(),
          anyOf: fc.anything(),
        },
        { requiredKeys: [] },
      ),
    ),
    required: fc.array(fc.oneof(word, fc.constantFrom('constructor', 'toString', '__proto__'))),
  }),
);

test('junk schemas and junk content give issues and never throw', () => {
  fc.assert(
    fc.property(junk, fc.anything(), (schema, content) => {
      for (const revision of ['2025-06-18', '2025-11-25', '2026-07-28'] as const)
        assert.ok(Array.isArray(lintRequestedSchema(schema, { revision })));
      const n = normalizeRequestedSchema(schema);
      if (n.ok) {
        assert.deepEqual(
          lintRequestedSchema(n.schema).filter((i) => i.severity === 'error'),
          [],
          'normalised output always lints clean',
        );
        const v = validateContent(n.schema, content);
        assert.ok(v.ok || v.issues.length > 0);
        applyDefaults(n.schema, {});
        coerceFormValues(n.schema, typeof content === 'object' && content !== null ? (content as Record<string, unknown>) : {});
      } else assert.ok(n.issues.length > 0);
      const v = validateContent(schema as RequestedSchema, content);
      assert.ok(v.ok || v.issues.length > 0);
      const r = readElicitResult(content, n.ok ? n.schema : undefined);
      assert.ok(r.ok || (r.code === -32602 && r.message.length > 0));
      detectSensitiveFields(schema);
    }),
    { numRuns: RUNS },
  );
});
