// Which elicitation modes a client has, per negotiated revision (review of issue 3, finding 8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { elicitModes, type RequestEra } from '../src/server/era.js';
import { verifies } from './helpers/verifies.js';

const era = (revision: RequestEra['revision'], elicitation: unknown, supported = true): RequestEra => ({
  modern: revision === '2026-07-28',
  revision,
  caps: elicitation === undefined ? {} : ({ elicitation } as never),
  elicitation: supported,
});

test('elicitation modes per revision: {} is form only; 2025-06-18 has no sub-modes; pre-2025-06-18 has none', () => {
  verifies('ELIC-1125-NO-UNDECLARED-MODE');
  assert.deepEqual(elicitModes(era('2025-11-25', {})), { form: true, url: false });
  assert.deepEqual(elicitModes(era('2025-11-25', { url: {} })), { form: false, url: true });
  assert.deepEqual(elicitModes(era('2026-07-28', { form: {}, url: {} })), { form: true, url: true });
  assert.deepEqual(
    elicitModes(era('2025-06-18', { url: {} })),
    { form: true, url: false },
    'any elicitation object means form in 2025-06-18',
  );
  assert.deepEqual(
    elicitModes(era('2025-06-18', {}, false)),
    { form: false, url: false },
    'a 2025-03-26 client has no elicitation even if it declares one',
  );
  assert.deepEqual(elicitModes(era('2025-11-25', undefined)), { form: false, url: false });
});
