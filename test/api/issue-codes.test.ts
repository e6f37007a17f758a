// Issue and repair codes are typed unions (src/schema/codes.ts), exported with their lists. The emit
// sites take the union types, so the type checker refuses an unlisted code; this test checks the
// lists against what the schema core emits at run time on the regression vectors and hostile input,
// which also covers validateContent's codes (ajv keywords, typed by a cast at one site).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod/v4';
import {
  checkMessageLimits,
  checkSchemaLimits,
  coerceFormValues,
  findRequestedSchemas,
  lintRequestedSchema,
  normalizeRequestedSchema,
  parseAccepted,
  readElicitResult,
  REPAIR_CODES,
  REVISIONS,
  SCHEMA_ISSUE_CODES,
  validateContent,
  VALIDATION_ISSUE_CODES,
  type IssueCode,
  type RepairCode,
  type RequestedSchema,
} from '../../src/schema/index.js';
import {
  CONFIG_ISSUE_CODES,
  importPresets,
  loadConfigValue,
  PRESET_ISSUE_CODES,
  type ConfigIssueCode,
  type PresetIssueCode,
} from '../../src/host/index.js';
import { openSqliteStore } from '../../src/host/store/index.js';
import { vectors } from '../helpers/vectors.js';

const ISSUE = new Set<string>([...SCHEMA_ISSUE_CODES, ...VALIDATION_ISSUE_CODES]);
const REPAIR = new Set<string>(REPAIR_CODES);

const HOSTILE: unknown[] = [
  null,
  42,
  'x',
  [],
  { type: 'array' },
  { type: 'object', properties: { a: { type: 'object', properties: {} } } },
  { type: 'object', properties: { a: { $ref: '#/properties/a' } }, required: ['a', 'a', 'zz'] },
  { type: 'object', properties: { a: { type: ['string', 'null'], pattern: '(', format: 'phone', minLength: 'x' } } },
  {
    type: 'object',
    properties: { a: { enum: [] }, b: { enum: ['x', 'x'], enumNames: ['X'] }, c: { anyOf: [{ const: 'a', title: 'A' }] } },
  },
  { type: 'object', properties: { a: { type: 'array', items: { oneOf: [{ const: 'a' }] } }, password: { type: 'string' } } },
  { properties: { n: { type: 'number', minimum: 5, maximum: 1, exclusiveMinimum: 2, default: 'x' } }, $schema: 'http://x' },
];

test('every code the schema core emits is in its union (vectors and hostile input, every revision)', () => {
  const issues: string[] = [];
  const repairs: string[] = [];
  const schemas: unknown[] = [...HOSTILE, ...vectors('schemas').map((v) => v.input?.requestedSchema ?? v.input)];
  for (const revision of REVISIONS) {
    for (const s of schemas) {
      issues.push(...lintRequestedSchema(s, { revision }).map((i) => i.code));
      const n = normalizeRequestedSchema(s, { revision });
      if (n.ok) {
        repairs.push(...n.repairs.map((r) => r.code));
        for (const content of [{}, { a: 1, zz: true }, { a: 'x'.repeat(5000), n: 'five', tags: ['q', 'q'] }, null]) {
          const v = validateContent(n.schema, content);
          if (!v.ok) issues.push(...v.issues.map((i) => i.code));
        }
        const c = coerceFormValues(n.schema, { a: 'x', n: 'nope', b: 'maybe', extra: '1' });
        if (!c.ok) issues.push(...c.issues.map((i) => i.code));
      } else issues.push(...n.issues.map((i) => i.code));
      issues.push(...checkSchemaLimits(s).map((i) => i.code));
      const found = findRequestedSchemas(
        { method: 'elicitation/create', params: { mode: 'form', message: 7, requestedSchema: s, elicitationId: 'x' } },
        { revision },
      );
      issues.push(...found.issues.map((i) => i.code), ...found.found.flatMap((f) => f.requestIssues.map((i) => i.code)));
      const rounds = findRequestedSchemas(
        { result: { resultType: 'input_required', inputRequests: { a: { method: 'x' }, b: 5 } } },
        { revision },
      );
      issues.push(...rounds.issues.map((i) => i.code), ...rounds.found.flatMap((f) => f.requestIssues.map((i) => i.code)));
    }
  }
  issues.push(...checkMessageLimits({ message: 'x'.repeat(100_000) }).map((i) => i.code));
  for (const r of vectors('results')) {
    const read = readElicitResult(r.input, { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } as RequestedSchema);
    if (!read.ok) issues.push(...read.issues.map((i) => i.code));
  }
  const parsed = parseAccepted(z.object({ a: z.string().min(3), n: z.number().int() }), { a: 'x', n: 1.5, b: 1 });
  if (!parsed.ok) issues.push(...parsed.issues.map((i) => i.code));
  assert.ok(issues.length > 30 && repairs.length > 5, 'the inputs reach many rules');
  assert.deepEqual([...new Set(issues.filter((c) => !ISSUE.has(c)))], [], 'add the code to src/schema/codes.ts');
  assert.deepEqual([...new Set(repairs.filter((c) => !REPAIR.has(c)))], [], 'add the code to REPAIR_CODES');
});

test('every code a configuration check emits is in ConfigIssueCode', () => {
  const ctx = { cwd: '/p', home: '/h', env: {} };
  const docs: unknown[] = [
    ...vectors('config').map((v) => v.input),
    '{ bad json',
    [],
    { mcpServers: { a: { command: 1, url: 'ftp://x', type: 'sse', env: { X: '${input:nope}' }, extra: 1 } } },
    { servers: { b: { type: 'stdio' } }, inputs: [{ id: 3 }], routes: [{ pattern: '(' }], policy: { rate: 'x' } },
    { mcpServers: {}, gateway: { users: { 'a b': { token: 'plain' } }, tenants: { '': {} } }, roots: [{ uri: 'x:' }] },
  ];
  const codes = docs.flatMap((d) => loadConfigValue(d, ctx).issues.map((i) => i.code));
  assert.ok(codes.length > 5, 'the documents reach many rules');
  assert.deepEqual([...new Set(codes.filter((c) => !(CONFIG_ISSUE_CODES as readonly string[]).includes(c)))], []);
  // @ts-expect-error 'no-such-code' is not a ConfigIssueCode
  const bad: ConfigIssueCode = 'no-such-code';
  assert.ok(!(CONFIG_ISSUE_CODES as readonly string[]).includes(bad));
});

test('every code a preset import emits is in PresetIssueCode', async (t) => {
  const store = openSqliteStore(':memory:');
  t.after(() => store.close());
  const scope = { tenant: 'default', user: 'ada', session: null };
  const entry = { name: 'p', roots: [], answers: {}, config: {} };
  const doc = (presets: unknown, extra: object = {}) => JSON.stringify({ format: 'parley-presets', version: 1, presets, ...extra });
  await store.savePreset({ ...entry, scope, updatedAt: 1 });
  const inputs: Array<[string, { replace?: boolean }?]> = [
    ['{ bad json'],
    [JSON.stringify({ format: 'other', version: 2, presets: {}, extra: 1 })],
    [
      doc([
        {
          ...entry,
          name: '',
          roots: [{ uri: 'file://evil.example/x' }, 5, 'x'.repeat(9000)],
          answers: { s: { a: null, b: 'x'.repeat(70_000) } },
          updatedAt: 1.5,
        },
      ]),
    ],
    [doc([entry, entry])],
    [doc([entry]), { replace: false }],
  ];
  const codes: string[] = [];
  for (const [json, opts] of inputs) codes.push(...(await importPresets(store, scope, json, opts)).issues.map((i) => i.code));
  for (const c of [
    'json',
    'duplicate',
    'exists',
    'custom',
    'invalid_type',
    'invalid_value',
    'too_big',
    'too_small',
    'unrecognized_keys',
    'invalid_union',
  ])
    assert.ok(codes.includes(c), `the inputs reach ${c}: ${codes.join(', ')}`);
  assert.deepEqual([...new Set(codes.filter((c) => !(PRESET_ISSUE_CODES as readonly string[]).includes(c)))], []);
  // @ts-expect-error 'no-such-code' is not a PresetIssueCode
  const bad: PresetIssueCode = 'no-such-code';
  assert.ok(!(PRESET_ISSUE_CODES as readonly string[]).includes(bad));
});

test('the unions refuse an unlisted code at compile time (negative control)', () => {
  // @ts-expect-error 'no-such-code' is not an IssueCode: typecheck fails if the union widens to string
  const issue: IssueCode = 'no-such-code';
  // @ts-expect-error nor a RepairCode
  const repair: RepairCode = 'no-such-repair';
  assert.ok(!ISSUE.has(issue) && !REPAIR.has(repair));
});
