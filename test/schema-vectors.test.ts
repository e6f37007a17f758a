// Every case of vectors/schemas.json and vectors/results.json, plus the seed spec's examples and the
// wire shapes of protocol.md §2.5, each as a table row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  enumOptions,
  findRequestedSchemas,
  lintRequestedSchema,
  normalizeRequestedSchema,
  readElicitResult,
  validateContent,
  REVISIONS,
  type RequestedSchema,
} from '../src/schema/index.js';
import { vector } from './helpers/vectors.js';
import { verifies } from './helpers/verifies.js';

const codes = (issues: Array<{ code: string }>) => issues.map((i) => i.code);
const errors = (s: unknown, revision: (typeof REVISIONS)[number] = '2025-11-25') =>
  lintRequestedSchema(s, { revision }).filter((i) => i.severity === 'error');
function normalized(s: unknown, revision: (typeof REVISIONS)[number] = '2025-11-25') {
  const r = normalizeRequestedSchema(s, { revision });
  assert.ok(r.ok, `expected normalisable: ${JSON.stringify(r)}`);
  return r;
}

test('S1 empty form: valid, a confirm-only prompt; accept sends {} ', () => {
  verifies('ELIC-0618-SUBSET-FLAT');
  const { requestedSchema } = vector('schemas', 'S1-empty-form').input;
  for (const revision of REVISIONS) {
    assert.deepEqual(errors(requestedSchema, revision), []);
    assert.deepEqual(codes(lintRequestedSchema(requestedSchema, { revision })), ['empty-properties']);
  }
  const r = readElicitResult({ action: 'accept', content: {} }, normalized(requestedSchema).schema);
  assert.deepEqual(r, { ok: true, result: { action: 'accept', content: {} } });
});

test('S2 root title: a host drops non-spec root keys and reports the repair; lint flags it', () => {
  const s = vector('schemas', 'S2-root-title').input;
  const r = normalized(s);
  assert.deepEqual(Object.keys(r.schema).sort(), ['properties', 'required', 'type']);
  assert.deepEqual(
    r.repairs.map((x) => [x.code, x.path]),
    [['root-key-dropped', '/title']],
  );
  assert.ok(lintRequestedSchema(s).some((i) => i.code === 'root-key' && i.path === '/title'));
  // the kind: any non-spec root key, and $schema only from 2025-11-25 on
  const kinds = normalized({ ...s, additionalProperties: false, $id: 'x', examples: [] });
  assert.deepEqual(kinds.repairs.map((x) => x.path).sort(), ['/$id', '/additionalProperties', '/examples', '/title']);
  const withDialect = { ...s, $schema: 'https://json-schema.org/draft/2020-12/schema' };
  assert.equal(normalized(withDialect, '2025-11-25').schema.$schema, withDialect.$schema);
  assert.equal(normalized(withDialect, '2025-06-18').schema.$schema, undefined);
});

test('S3 titled enum without type: repaired to type string; labels Low/High; lint reports missing type', () => {
  const s = vector('schemas', 'S3-titled-enum-missing-type').input;
  const r = normalized(s);
  assert.equal((r.schema.properties.priority as any).type, 'string');
  assert.deepEqual(
    r.repairs.map((x) => x.code),
    ['type-added'],
  );
  assert.deepEqual(
    enumOptions(r.schema.properties.priority).map((o) => o.label),
    ['Low', 'High'],
  );
  assert.ok(errors(s).some((i) => i.code === 'missing-type' && i.path === '/properties/priority/type'));
  // the kind: a plain enum without type, and a single-select written as anyOf
  assert.deepEqual(
    normalized({ type: 'object', properties: { a: { enum: ['x'] } } }).repairs.map((x) => x.code),
    ['type-added'],
  );
  const anyOf = normalized({ type: 'object', properties: { a: { type: 'string', anyOf: [{ const: 'x', title: 'X' }] } } });
  assert.deepEqual((anyOf.schema.properties.a as any).oneOf, [{ const: 'x', title: 'X' }]);
});

test('S4 multi-select without items.type: rendered and validated (minItems); lint notes type and 2025-06-18', () => {
  const s = vector('schemas', 'S4-multiselect-without-item-type').input;
  const r = normalized(s);
  assert.deepEqual((r.schema.properties.fruits as any).items, { type: 'string', enum: ['apple', 'banana', 'orange'] });
  assert.ok(validateContent(r.schema, { fruits: ['apple'] }).ok);
  const few = validateContent(r.schema, { fruits: [] });
  assert.ok(!few.ok && few.issues.some((i) => i.code === 'minItems' && i.path === '/fruits'));
  assert.ok(lintRequestedSchema(s).some((i) => i.code === 'missing-items-type'));
  assert.ok(errors(s, '2025-06-18').some((i) => i.code === 'revision' && i.path === '/properties/fruits'));
  assert.ok(!errors(s, '2025-11-25').some((i) => i.code === 'revision'));
});

test('S5 unknown format: ignored with a lint warning; validated as an integer', () => {
  verifies('ELIC-1125-FORMATS');
  const s = vector('schemas', 'S5-unknown-format').input;
  assert.ok(lintRequestedSchema(s).some((i) => i.code === 'unknown-format' && i.severity === 'warning'));
  const r = normalized(s);
  assert.equal((r.schema.properties.number as any).format, undefined);
  assert.ok(validateContent(r.schema, { number: 7 }).ok);
  assert.ok(!validateContent(r.schema, { number: 7.5 }).ok);
  // validation never fails because of an unknown format, even on an un-normalised schema
  assert.ok(validateContent(s as RequestedSchema, { number: 7 }).ok);
  for (const format of ['int64', 'uuid', 'ipv4', 'hostname', 'time'])
    assert.ok(validateContent({ type: 'object', properties: { x: { type: 'string', format } } } as any, { x: 'anything' }).ok, format);
});

test('S6 legacy enumNames: valid in every revision, labels Light/Dark, answer is the value', () => {
  const s = vector('schemas', 'S6-legacy-enum-names').input;
  for (const revision of REVISIONS) assert.deepEqual(errors(s, revision), []);
  assert.deepEqual(enumOptions(s.properties.theme), [
    { value: 'light', label: 'Light' },
    { value: 'dark', label: 'Dark' },
  ]);
  assert.ok(validateContent(s, { theme: 'dark' }).ok);
  assert.ok(!validateContent(s, { theme: 'Dark' }).ok);
});

test('S7 no mode: treated as form mode', () => {
  verifies('ELIC-1125-MODE-DEFAULT-FORM');
  const doc = vector('schemas', 'S7-no-mode').input;
  const f = findRequestedSchemas(doc);
  assert.equal(f.kind, 'request');
  assert.equal(f.found[0].mode, 'form');
  assert.equal(f.found[0].path, '/params/requestedSchema');
});

test('S8 sensitive field: lint warns naming the field and pointing to URL mode (a heuristic; the toolkit refuses, the host declines)', () => {
  verifies('ELIC-NO-SENSITIVE-FORM');
  const s = vector('schemas', 'S8-sensitive-field').input;
  const hit = lintRequestedSchema(s).find((i) => i.code === 'sensitive-field');
  assert.equal(hit?.severity, 'warning');
  assert.ok(hit);
  assert.equal(hit.path, '/properties/apiKey');
  assert.match(hit.message, /apiKey/);
  assert.match(hit.fix ?? '', /URL-mode/);
});

test('R1-R7: results read deterministically', () => {
  verifies(['ELIC-RESULT-ACTIONS', 'ELIC-VALIDATE-BOTH-SIDES']);
  assert.deepEqual(readElicitResult(vector('results', 'R1-cancel-null-content').input), { ok: true, result: { action: 'cancel' } });
  assert.deepEqual(
    readElicitResult(vector('results', 'R2-decline-no-content').input, {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
    }),
    { ok: true, result: { action: 'decline' } },
  );
  const r3 = vector('results', 'R3-accept-missing-required').input;
  const v3 = readElicitResult(r3.result, r3.schema);
  assert.ok(!v3.ok && v3.code === -32602 && v3.issues[0].path === '/content/name' && /"name" is required/.test(v3.message));
  const r4 = readElicitResult(vector('results', 'R4-unknown-action').input);
  assert.ok(!r4.ok && r4.code === -32602 && /accept, decline, cancel/.test(r4.message) && /"reject"/.test(r4.message));
  const r5 = vector('results', 'R5-wrong-types').input;
  const expected = [
    ['/content/name', 'type'],
    ['/content/age', 'minimum'],
    ['/content/age', 'type'],
  ];
  r5.results.forEach((res: unknown, i: number) => {
    const v = readElicitResult(res, r5.schema);
    assert.ok(!v.ok, `R5 case ${i} must be invalid`);
    assert.deepEqual([v.issues[0].path, v.issues[0].code], expected[i]);
  });
  const r6 = vector('results', 'R6-string-boolean').input;
  assert.ok(!readElicitResult(r6.result, r6.schema).ok);
  const r7 = vector('results', 'R7-extra-field').input;
  const v7 = readElicitResult(r7.result, r7.schema);
  assert.ok(!v7.ok && v7.issues.some((i) => i.path === '/content/admin' && i.code === 'additionalProperties'));
});

test('seed spec examples (2025-06-18 page): requests lint clean, results read as the page says', () => {
  verifies('ELIC-1125-PATTERN-NONNORMATIVE');
  const github = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
  const contact = {
    type: 'object',
    properties: {
      name: { type: 'string', description: '你的全名' },
      email: { type: 'string', format: 'email', description: '你的电子邮件地址' },
      age: { type: 'number', minimum: 18, description: '你的年龄' },
    },
    required: ['name', 'email'],
  };
  const generic = {
    type: 'object',
    properties: {
      propertyName: { type: 'string', title: '显示名称', description: '属性描述' },
      anotherProperty: { type: 'number', minimum: 0, maximum: 100 },
    },
    required: ['propertyName'],
  };
  for (const s of [github, contact, generic])
    for (const revision of REVISIONS) assert.deepEqual(errors(s, revision), [], JSON.stringify(s));
  assert.ok(readElicitResult({ action: 'accept', content: { name: 'octocat' } }, github as RequestedSchema).ok);
  assert.ok(
    readElicitResult(
      { action: 'accept', content: { name: 'Monalisa Octocat', email: 'octocat@github.com', age: 30 } },
      contact as RequestedSchema,
    ).ok,
  );
  // The page's own example carries an e-mail mangled by an obfuscator ("[email protected]"): it is not an e-mail.
  assert.ok(
    !readElicitResult(
      { action: 'accept', content: { name: 'Monalisa Octocat', email: '[email protected]', age: 30 } },
      contact as RequestedSchema,
    ).ok,
  );
  assert.ok(!readElicitResult({ action: 'accept', content: { name: 'x', email: 'a@b.co', age: 17 } }, contact as RequestedSchema).ok);
  assert.ok(readElicitResult({ action: 'accept', content: { propertyName: 'value', anotherProperty: 42 } }, generic as RequestedSchema).ok);
  assert.deepEqual(readElicitResult({ action: 'decline' }), { ok: true, result: { action: 'decline' } });
  assert.deepEqual(readElicitResult({ action: 'cancel' }), { ok: true, result: { action: 'cancel' } });
  // the page's per-type schemas
  const str = {
    type: 'string',
    title: '显示名称',
    description: '描述文本',
    minLength: 3,
    maxLength: 50,
    pattern: '^[A-Za-z]+$',
    format: 'email',
  };
  const strIssues = lintRequestedSchema({ type: 'object', properties: { s: str } }, { revision: '2025-06-18' });
  assert.deepEqual(
    strIssues.map((i) => [i.code, i.severity]),
    [['unknown-keyword', 'warning']],
    'pattern is non-normative: a warning only',
  );
  assert.deepEqual(
    errors(
      { type: 'object', properties: { b: { type: 'boolean', title: '显示名称', description: '描述文本', default: false } } },
      '2025-06-18',
    ),
    [],
  );
  assert.deepEqual(
    errors(
      {
        type: 'object',
        properties: {
          e: {
            type: 'string',
            title: '显示名称',
            description: '描述文本',
            enum: ['option1', 'option2', 'option3'],
            enumNames: ['选项1', '选项2', '选项3'],
          },
        },
      },
      '2025-06-18',
    ),
    [],
  );
  assert.deepEqual(
    errors(
      { type: 'object', properties: { n: { type: 'number', title: '显示名称', description: '描述文本', minimum: 0, maximum: 100 } } },
      '2025-06-18',
    ),
    [],
  );
});

test('protocol.md §2.2/§2.5 shapes: all five enum shapes, defaults and the form request lint clean on 2025-11-25 and 2026-07-28', () => {
  verifies(['ELIC-1125-ENUM-SHAPES', 'ELIC-1125-DEFAULTS', 'ELIC-0618-DEFAULT-BOOLEAN-ONLY', 'MRTR-INPUT-REQUESTS-SHAPE']);
  const form = {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Name', minLength: 1, default: 'John Doe' },
      age: { type: 'integer', minimum: 0, maximum: 150 },
      colour: {
        type: 'string',
        oneOf: [
          { const: 'r', title: 'Red' },
          { const: 'g', title: 'Green' },
        ],
      },
      tags: { type: 'array', minItems: 1, items: { type: 'string', enum: ['a', 'b', 'c'] }, default: ['a'] },
      fish: { type: 'array', items: { anyOf: [{ const: 'f1', title: 'Tuna' }] }, default: ['f1'] },
      legacy: { type: 'string', enum: ['p1', 'p2'], enumNames: ['Cats', 'Dogs'], default: 'p1' },
      plain: { type: 'string', enum: ['x', 'y'], default: 'x' },
      score: { type: 'number', default: 95.5 },
      ok: { type: 'boolean', default: true },
    },
    required: ['name'],
  };
  for (const revision of ['2025-11-25', '2026-07-28'] as const) assert.deepEqual(errors(form, revision), []);
  const old = errors(form, '2025-06-18');
  assert.deepEqual(
    old
      .filter((i) => i.code === 'revision')
      .map((i) => i.path)
      .sort(),
    ['/properties/colour', '/properties/fish', '/properties/tags'],
  );
  assert.deepEqual(
    old
      .filter((i) => i.code === 'default-revision')
      .map((i) => i.path)
      .sort(),
    [
      '/properties/fish/default',
      '/properties/legacy/default',
      '/properties/name/default',
      '/properties/plain/default',
      '/properties/score/default',
      '/properties/tags/default',
    ],
  );
  assert.ok(
    validateContent(form as RequestedSchema, { name: 'John Doe', age: 30, tags: ['a'], score: 95.5, colour: 'g', fish: ['f1'] }).ok,
  );
  const ir = {
    resultType: 'input_required',
    inputRequests: {
      login: { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: 'https://example.com/login' } },
      form: { method: 'elicitation/create', params: { message: 'x', requestedSchema: form } },
      ws: { method: 'roots/list' },
    },
    requestState: 'opaque-1',
  };
  const found = findRequestedSchemas({ jsonrpc: '2.0', id: 4, result: ir });
  assert.equal(found.kind, 'input_required');
  assert.deepEqual(
    found.found.map((f) => [f.path, f.mode]),
    [
      ['/result/inputRequests/login/params', 'url'],
      ['/result/inputRequests/form/params/requestedSchema', 'form'],
    ],
  );
});
