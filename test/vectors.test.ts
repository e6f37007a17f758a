import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const shared = join('..', 'shared', 'vectors');
test('the committed vector copies match ../shared/vectors (when it exists beside the checkout)', {
  skip: !existsSync(shared) && 'no ../shared/vectors here',
}, () => {
  for (const f of readdirSync(shared).filter((n) => n.endsWith('.json'))) {
    assert.deepEqual(
      JSON.parse(readFileSync(join('test', 'vectors', f), 'utf8')),
      JSON.parse(readFileSync(join(shared, f), 'utf8')),
      `test/vectors/${f} drifted from ${shared}/${f}: copy it again`,
    );
  }
});
