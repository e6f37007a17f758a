import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EVERY_KIND_CONTENT, EVERY_KIND_FORM, CONFIRM_ONLY } from '../src/testing/index.js';
import { fieldKind, lintRequestedSchema, validateContent } from '../src/schema/index.js';

test('the every-kind fixture covers all nine field kinds, lints clean and accepts its content', () => {
  const kinds = new Set(Object.values(EVERY_KIND_FORM.properties).map((p) => fieldKind(p)));
  assert.deepEqual([...kinds].sort(), [
    'boolean',
    'enum',
    'integer',
    'legacy-titled-enum',
    'multi-enum',
    'number',
    'string',
    'titled-enum',
    'titled-multi-enum',
  ]);
  assert.deepEqual(lintRequestedSchema(EVERY_KIND_FORM, { revision: '2025-11-25' }), []);
  assert.ok(validateContent(EVERY_KIND_FORM, EVERY_KIND_CONTENT).ok);
  assert.deepEqual(
    lintRequestedSchema(CONFIRM_ONLY).map((i) => i.code),
    ['empty-properties'],
  );
});
