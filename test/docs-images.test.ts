// Screenshots in docs/ are current: every image README.md and docs/*.md show exists and is one that
// `npm run screenshots` regenerates in real Chromium (test/fixtures/e2e/docs-images.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const { images } = JSON.parse(readFileSync(join(REPO, 'test/fixtures/e2e/docs-images.json'), 'utf8')) as { images: Record<string, string> };

test('every screenshot the docs show is made by the screenshots script, and every one it makes is shown', () => {
  const pages = [
    'README.md',
    ...readdirSync(join(REPO, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const shown = new Set<string>();
  for (const p of pages)
    for (const m of readFileSync(join(REPO, p), 'utf8').matchAll(/images\/([\w.-]+\.(?:png|svg|jpe?g|gif))/g)) shown.add(m[1]);
  assert.ok(shown.size > 0);
  for (const f of shown) {
    assert.ok(f in images, `${f} is shown in the docs but not made by npm run screenshots (test/fixtures/e2e/docs-images.json)`);
    assert.ok(existsSync(join(REPO, 'docs/images', f)), `docs/images/${f} is missing`);
  }
  for (const f of Object.keys(images)) assert.ok(shown.has(f), `${f} is made but no page shows it`);
  const e2e = readFileSync(join(REPO, 'test/e2e-sales.test.ts'), 'utf8');
  for (const shot of Object.values(images)) assert.ok(e2e.includes(`'${shot}'`), `test/e2e-sales.test.ts takes the shot '${shot}'`);
});
