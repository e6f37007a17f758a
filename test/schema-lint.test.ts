// One row per lint rule: the input, the revision, and the exact (code, path, severity) expected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lintRequestedSchema, normalizeRequestedSchema, type Revision } from '../src/schema/index.js';
import { verifies } from './helpers/verifies.js';

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });
type Row = [
  name: string,
  schema: unknown,
  revision: Revision,
  expected: Array<[code: string, path: string, severity: 'error' | 'warning']>,
];

const ROWS: Row[] = [
  ['not an object', 'x', '2025-11-25', [['not-object', '', 'error']]],
  ['array root', [], '2025-11-25', [['not-object', '', 'error']]],
  [
    'root type',
    { type: 'string', properties: {} },
    '2025-11-25',
    [
      ['root-type', '/type', 'error'],
      ['empty-properties', '/properties', 'warning'],
    ],
  ],
  ['properties missing', { type: 'object' }, '2025-11-25', [['properties-missing', '/properties', 'error']]],
  ['properties not object', { type: 'object', properties: [] }, '2025-11-25', [['properties-type', '/properties', 'error']]],
  ['root key outside spec', obj({ a: { type: 'string' } }, { title: 'T' }), '2025-11-25', [['root-key', '/title', 'warning']]],
  [
    '$schema on 2025-06-18',
    obj({ a: { type: 'string' } }, { $schema: 'https://json-schema.org/draft/2020-12/schema' }),
    '2025-06-18',
    [['root-key', '/$schema', 'warning']],
  ],
  [
    '$schema 2020-12 on 2025-11-25',
    obj({ a: { type: 'string' } }, { $schema: 'https://json-schema.org/draft/2020-12/schema' }),
    '2025-11-25',
    [],
  ],
  [
    'unsupported dialect',
    obj({ a: { type: 'string' } }, { $schema: 'http://json-schema.org/draft-07/schema#' }),
    '2025-11-25',
    [['dialect', '/$schema', 'error']],
  ],
  [
    '$defs at root',
    obj({ a: { $ref: '#/$defs/A' } }, { $defs: { A: { type: 'string' } } }),
    '2025-11-25',
    [
      ['ref', '/$defs', 'error'],
      ['ref', '/properties/a/$ref', 'error'],
    ],
  ],
  [
    'nested object',
    obj({ addr: { type: 'object', properties: { city: { type: 'string' } } } }),
    '2025-11-25',
    [['nested-object', '/properties/addr', 'error']],
  ],
  [
    'array of objects',
    obj({ xs: { type: 'array', items: { type: 'object' } } }),
    '2025-11-25',
    [['array-not-enum', '/properties/xs', 'error']],
  ],
  [
    'array of numbers',
    obj({ xs: { type: 'array', items: { type: 'number' } } }),
    '2025-11-25',
    [['array-not-enum', '/properties/xs', 'error']],
  ],
  ['null type', obj({ x: { type: 'null' } }), '2025-11-25', [['property-type', '/properties/x/type', 'error']]],
  ['no type', obj({ x: { title: 'X' } }), '2025-11-25', [['missing-type', '/properties/x/type', 'error']]],
  [
    'required names missing property',
    obj({ a: { type: 'string' } }, { required: ['a', 'b'] }),
    '2025-11-25',
    [['required-missing', '/required/1', 'error']],
  ],
  ['required not array', obj({ a: { type: 'string' } }, { required: 'a' }), '2025-11-25', [['required-type', '/required', 'error']]],
  [
    'minLength > maxLength',
    obj({ a: { type: 'string', minLength: 5, maxLength: 2 } }),
    '2025-11-25',
    [['bounds', '/properties/a', 'error']],
  ],
  ['negative minLength', obj({ a: { type: 'string', minLength: -1 } }), '2025-11-25', [['bound-type', '/properties/a/minLength', 'error']]],
  ['minimum > maximum', obj({ n: { type: 'number', minimum: 10, maximum: 1 } }), '2025-11-25', [['bounds', '/properties/n', 'error']]],
  [
    'minItems > maxItems',
    obj({ m: { type: 'array', minItems: 3, maxItems: 1, items: { type: 'string', enum: ['a', 'b'] } } }),
    '2025-11-25',
    [['bounds', '/properties/m', 'error']],
  ],
  [
    'string default on 2025-06-18',
    obj({ a: { type: 'string', default: 'x' } }),
    '2025-06-18',
    [['default-revision', '/properties/a/default', 'error']],
  ],
  ['boolean default on 2025-06-18', obj({ b: { type: 'boolean', default: true } }), '2025-06-18', []],
  [
    'default breaks minLength',
    obj({ a: { type: 'string', minLength: 3, default: 'x' } }),
    '2025-11-25',
    [['default-invalid', '/properties/a/default', 'error']],
  ],
  [
    'default outside enum',
    obj({ a: { type: 'string', enum: ['x', 'y'], default: 'z' } }),
    '2025-11-25',
    [['default-invalid', '/properties/a/default', 'error']],
  ],
  [
    'default above maximum',
    obj({ n: { type: 'integer', maximum: 5, default: 9 } }),
    '2025-11-25',
    [['default-invalid', '/properties/n/default', 'error']],
  ],
  [
    'boolean default not boolean',
    obj({ b: { type: 'boolean', default: 'true' } }),
    '2025-11-25',
    [['default-invalid', '/properties/b/default', 'error']],
  ],
  [
    'multi default too many',
    obj({ m: { type: 'array', maxItems: 1, items: { type: 'string', enum: ['a', 'b'] }, default: ['a', 'b'] } }),
    '2025-11-25',
    [['default-invalid', '/properties/m/default', 'error']],
  ],
  ['unknown format', obj({ a: { type: 'string', format: 'uuid' } }), '2025-11-25', [['unknown-format', '/properties/a/format', 'warning']]],
  [
    'pattern is non-normative',
    obj({ a: { type: 'string', pattern: '^a' } }),
    '2025-11-25',
    [['unknown-keyword', '/properties/a/pattern', 'warning']],
  ],
  [
    'unknown keyword',
    obj({ a: { type: 'number', multipleOf: 2 } }),
    '2025-11-25',
    [['unknown-keyword', '/properties/a/multipleOf', 'warning']],
  ],
  ['empty enum', obj({ a: { type: 'string', enum: [] } }), '2025-11-25', [['enum-empty', '/properties/a/enum', 'error']]],
  [
    'non-string enum value',
    obj({ a: { type: 'string', enum: ['a', 1] } }),
    '2025-11-25',
    [['enum-value-type', '/properties/a/enum/1', 'error']],
  ],
  [
    'duplicate enum value',
    obj({ a: { type: 'string', enum: ['a', 'a'] } }),
    '2025-11-25',
    [['enum-duplicate', '/properties/a/enum', 'error']],
  ],
  [
    'enumNames length mismatch',
    obj({ a: { type: 'string', enum: ['a', 'b'], enumNames: ['A'] } }),
    '2025-11-25',
    [['enum-names', '/properties/a/enumNames', 'error']],
  ],
  [
    'titled option without title',
    obj({ a: { type: 'string', oneOf: [{ const: 'a' }] } }),
    '2025-11-25',
    [['titled-option', '/properties/a/oneOf/0/title', 'error']],
  ],
  [
    'titled single-select written as anyOf',
    obj({ a: { type: 'string', anyOf: [{ const: 'a', title: 'A' }] } }),
    '2025-11-25',
    [['titled-enum-anyof', '/properties/a/anyOf', 'error']],
  ],
  [
    'titled multi-select written as items.oneOf',
    obj({ a: { type: 'array', items: { oneOf: [{ const: 'a', title: 'A' }] } } }),
    '2025-11-25',
    [['titled-multi-oneof', '/properties/a/items/oneOf', 'error']],
  ],
  [
    'titled enum on 2025-06-18',
    obj({ a: { type: 'string', oneOf: [{ const: 'a', title: 'A' }] } }),
    '2025-06-18',
    [['revision', '/properties/a', 'error']],
  ],
  [
    'multi-select on 2025-06-18',
    obj({ a: { type: 'array', items: { type: 'string', enum: ['a'] } } }),
    '2025-06-18',
    [['revision', '/properties/a', 'error']],
  ],
  [
    'titled multi-select on 2026-07-28',
    obj({ a: { type: 'array', minItems: 1, items: { anyOf: [{ const: 'a', title: 'A' }] } } }),
    '2026-07-28',
    [],
  ],
  [
    'sensitive (zh) is a warning: heuristics never fail lint alone',
    obj({ pw: { type: 'string', title: '支付密码' } }),
    '2025-11-25',
    [['sensitive-field', '/properties/pw', 'warning']],
  ],
  [
    'nullable union',
    obj({ e: { anyOf: [{ type: 'string', format: 'email' }, { type: 'null' }] } }),
    '2025-11-25',
    [['nullable', '/properties/e', 'error']],
  ],
  [
    'union of schemas',
    obj({ u: { anyOf: [{ type: 'string' }, { type: 'number' }] } }),
    '2025-11-25',
    [['union', '/properties/u', 'error']],
  ],
  ['numeric enum', obj({ n: { type: 'integer', enum: [1, 2] } }), '2025-11-25', [['enum-value-type', '/properties/n/enum', 'error']]],
  [
    'no integer between the bounds',
    obj({ n: { type: 'integer', minimum: 1.2, maximum: 1.8 } }),
    '2025-11-25',
    [['bounds', '/properties/n', 'error']],
  ],
  [
    'minItems above the number of options',
    obj({ m: { type: 'array', minItems: 2, items: { type: 'string', enum: ['a'] } } }),
    '2025-11-25',
    [['bounds', '/properties/m', 'error']],
  ],
  [
    'default breaks its format',
    obj({ e: { type: 'string', format: 'email', default: 'nope' }, d: { type: 'string', format: 'date', default: '2025-02-30' } }),
    '2025-11-25',
    [
      ['default-invalid', '/properties/e/default', 'error'],
      ['default-invalid', '/properties/d/default', 'error'],
    ],
  ],
  [
    'multi-select default repeats an option',
    obj({ m: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['a', 'a'] } }),
    '2025-11-25',
    [['default-invalid', '/properties/m/default', 'error']],
  ],
  ['lengths count code points, as JSON Schema does', obj({ s: { type: 'string', maxLength: 1, default: '😀' } }), '2025-11-25', []],
  [
    'prototype names are ordinary names: required constructor is missing',
    obj({ a: { type: 'string' } }, { required: ['constructor', 'toString', '__proto__'] }),
    '2025-11-25',
    [
      ['required-missing', '/required/0', 'error'],
      ['required-missing', '/required/1', 'error'],
      ['required-missing', '/required/2', 'error'],
    ],
  ],
  [
    'deeply nested input is refused, not a crash',
    obj({ a: { type: JSON.parse('['.repeat(5000) + ']'.repeat(5000)) } }),
    '2025-11-25',
    [['too-deep', '', 'error']],
  ],
  ['title not a string', obj({ a: { type: 'string', title: 3 } }), '2025-11-25', [['keyword-type', '/properties/a/title', 'error']]],
  [
    'pointer escaping of field names',
    obj({ 'a/b~c': { type: 'object' } }),
    '2025-11-25',
    [['nested-object', '/properties/a~1b~0c', 'error']],
  ],
];

for (const [name, schema, revision, expected] of ROWS) {
  test(`lint: ${name} (${revision})`, () => {
    const got = lintRequestedSchema(schema, { revision }).map((i) => [i.code, i.path, i.severity]);
    assert.deepEqual(got, expected);
    verifies(['ELIC-0618-SUBSET-FLAT', 'JSONSCHEMA-1125-DIALECT'], revision);
    for (const i of lintRequestedSchema(schema, { revision })) assert.ok(i.message.length > 10, 'every issue has a sentence');
  });
}

test('normalise refuses what cannot be a flat form, naming it', () => {
  const cases: Array<[unknown, string, string]> = [
    [obj({ addr: { type: 'object', properties: {} } }), 'nested-object', '/properties/addr'],
    [obj({ xs: { type: 'array', items: { type: 'object' } } }), 'array-not-enum', '/properties/xs'],
    [obj({ a: { $ref: '#/$defs/Missing' } }), 'ref-unresolvable', '/properties/a/$ref'],
    [obj({ a: { $ref: 'https://example.com/s.json' } }), 'ref-unresolvable', '/properties/a/$ref'],
    [obj({ a: { $ref: '#/$defs/A' } }, { $defs: { A: { $ref: '#/$defs/A' } } }), 'ref-recursive', '/properties/a/$ref'],
    [obj({ a: { type: 'string', enum: [] } }), 'enum-values', '/properties/a'],
    ['nope', 'not-object', ''],
  ];
  for (const [s, code, path] of cases) {
    const r = normalizeRequestedSchema(s);
    assert.ok(!r.ok, JSON.stringify(s));
    assert.deepEqual([r.issues[0].code, r.issues[0].path], [code, path]);
  }
});

test('normalise repairs each kind and lists every repair', () => {
  const r = normalizeRequestedSchema({
    properties: {
      a: { $ref: '#/$defs/A', title: 'From ref' },
      n: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }] },
      t: { type: ['integer', 'null'], minimum: 0 },
      m: { type: 'array', items: { oneOf: [{ const: 'x', title: 'X' }] } },
      d: { type: 'string', enum: ['a', 'b'], default: 'zz' },
      e: { type: 'string', enum: ['a', 'b'], enumNames: ['A'] },
      k: { type: 'string', examples: ['x'], pattern: '^x' },
    },
    required: ['a', 'ghost'],
    $defs: { A: { type: 'string', enum: ['p', 'q'] } },
    additionalProperties: false,
  });
  assert.ok(r.ok);
  assert.deepEqual(
    r.repairs.map((x) => x.code).sort(),
    [
      'default-dropped',
      'enum-names-dropped',
      'items-oneof-to-anyof',
      'keyword-dropped',
      'keyword-dropped',
      'nullable-collapsed',
      'nullable-collapsed',
      'ref-inlined',
      'required-entry-dropped',
      'root-key-dropped',
      'root-key-dropped',
      'root-type-added',
    ].sort(),
  );
  assert.deepEqual(r.schema.properties.a, { type: 'string', enum: ['p', 'q'], title: 'From ref' });
  assert.deepEqual(r.schema.properties.n, { type: 'string', minLength: 1 });
  assert.deepEqual(r.schema.properties.t, { type: 'integer', minimum: 0 });
  assert.deepEqual(r.schema.properties.m, { type: 'array', items: { anyOf: [{ const: 'x', title: 'X' }] } });
  assert.deepEqual(r.schema.required, ['a']);
  assert.deepEqual(
    lintRequestedSchema(r.schema).filter((i) => i.severity === 'error'),
    [],
    'a normalised schema lints clean',
  );
});
