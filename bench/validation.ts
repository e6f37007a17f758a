// Validation throughput: parley's cached validateContent against compile-per-call, with the raw
// SDK's AjvJsonSchemaValidator (getValidator per call, as the SDK does for each elicitation) beside.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import {
  compileUncached,
  normalizeRequestedSchema,
  validateContent,
  validationSchema,
  type RequestedSchema,
} from '../dist/src/schema/index.js';
import { median, rate, type BenchRow } from './lib.js';

// server-everything's 13-field form (peers-and-tests.md §ii.2): every 2025-11-25 field kind.
const RAW = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name' },
    check: { type: 'boolean' },
    firstLine: { type: 'string', default: 'It was a dark and stormy night.' },
    email: { type: 'string', format: 'email' },
    homepage: { type: 'string', format: 'uri' },
    birthdate: { type: 'string', format: 'date' },
    integer: { type: 'integer', minimum: 1, maximum: 100, default: 42 },
    number: { type: 'number', minimum: 0, maximum: 1000, default: 3.14 },
    untitledSingleSelectEnum: { type: 'string', enum: ['Monica', 'Rachel', 'Joey'], default: 'Monica' },
    untitledMultipleSelectEnum: {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['Guitar', 'Piano', 'Violin'] },
      default: ['Guitar'],
    },
    titledSingleSelectEnum: {
      type: 'string',
      oneOf: [
        { const: 'hero-1', title: 'Superman' },
        { const: 'hero-2', title: 'Green Lantern' },
      ],
      default: 'hero-1',
    },
    titledMultipleSelectEnum: {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      items: {
        anyOf: [
          { const: 'fish-1', title: 'Tuna' },
          { const: 'fish-2', title: 'Salmon' },
        ],
      },
      default: ['fish-1'],
    },
    legacyTitledEnum: { type: 'string', enum: ['pet-1', 'pet-2'], enumNames: ['Cats', 'Dogs'], default: 'pet-1' },
  },
  required: ['name'],
};
const CONTENT = {
  name: 'Ada',
  check: true,
  email: 'ada@example.com',
  homepage: 'https://example.com',
  birthdate: '1815-12-10',
  integer: 7,
  number: 3.14,
  untitledSingleSelectEnum: 'Joey',
  untitledMultipleSelectEnum: ['Piano'],
  titledSingleSelectEnum: 'hero-2',
  titledMultipleSelectEnum: ['fish-2'],
  legacyTitledEnum: 'pet-2',
};

export async function run(): Promise<BenchRow[]> {
  const n = normalizeRequestedSchema(RAW, { revision: '2025-11-25' });
  if (!n.ok) throw new Error('bench schema must normalise');
  const schema: RequestedSchema = n.schema;
  if (!validateContent(schema, CONTENT).ok) throw new Error('bench content must be valid');
  const plain = validationSchema(schema);
  const sdk = new AjvJsonSchemaValidator();
  if (!sdk.getValidator(plain)(CONTENT).valid) throw new Error('SDK must accept the bench content');

  const cached = await median(3, () => rate(() => validateContent(schema, CONTENT), 1000));
  // A fresh but equal schema object each call: the hash path of the cache, not the object fast path.
  // The host's real path: each request's schema is freshly parsed from the wire (a new object),
  // so parley's cache is reached through the stable hash; the SDK gets the same fresh objects.
  const wire = JSON.stringify(schema);
  const wirePlain = JSON.stringify(plain);
  const cachedByHash = await median(3, () => rate(() => validateContent(JSON.parse(wire), CONTENT), 1000, 100));
  const sdkFresh = await median(3, () => rate(() => sdk.getValidator(JSON.parse(wirePlain))(CONTENT), 1000, 20));
  const perCall = await median(3, () => rate(() => compileUncached(schema)(CONTENT), 1000, 20));
  const sdkPerCall = await median(3, () => rate(() => sdk.getValidator(plain)(CONTENT), 1000, 20));
  const ratio = cached / perCall;
  return [
    {
      group: 'validation',
      name: 'raw SDK AjvJsonSchemaValidator.getValidator per call (baseline)',
      value: sdkPerCall,
      unit: 'validations/s',
      ratio: 1,
      ratioTo: 'raw SDK',
    },
    {
      group: 'validation',
      name: 'parley validateContent, cached (same schema object)',
      value: cached,
      unit: 'validations/s',
      ratio: cached / sdkPerCall,
      ratioTo: 'raw SDK',
      target: '≥ 200,000/s',
      met: cached >= 200_000,
    },
    {
      group: 'validation',
      name: 'raw SDK getValidator, schema parsed from the wire each call (baseline)',
      value: sdkFresh,
      unit: 'validations/s',
      ratio: 1,
      ratioTo: 'raw SDK, fresh schema',
    },
    {
      group: 'validation',
      name: 'parley validateContent, schema parsed from the wire each call (hash cache)',
      value: cachedByHash,
      unit: 'validations/s',
      ratio: cachedByHash / sdkFresh,
      ratioTo: 'raw SDK, fresh schema',
    },
    {
      group: 'validation',
      name: 'parley compile per call (no cache)',
      value: perCall,
      unit: 'validations/s',
      ratio: perCall / sdkFresh,
      ratioTo: 'raw SDK, fresh schema',
    },
    { group: 'validation', name: 'cached ÷ compile-per-call', value: ratio, unit: '×', target: '≥ 20×', met: ratio >= 20 },
  ];
}
