#!/usr/bin/env node
// `npm run screenshots`: regenerates every screenshot README.md and docs/*.md show, in real Chromium
// (/usr/bin/chromium), by running the e2e test that takes them (test/e2e-sales.test.ts) with
// PARLEY_DOCS_SCREENSHOTS=1. The list is test/fixtures/e2e/docs-images.json. Exits 1 when the test fails,
// when a page shows an image the list does not cover, or when an image was not rewritten by this run.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const repo = new URL('..', import.meta.url).pathname;
const { images } = JSON.parse(readFileSync(join(repo, 'test/fixtures/e2e/docs-images.json'), 'utf8'));
const pages = [
  'README.md',
  ...readdirSync(join(repo, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const shown = new Set();
for (const p of pages)
  for (const m of readFileSync(join(repo, p), 'utf8').matchAll(/images\/([\w.-]+\.(?:png|svg|jpe?g|gif))/g)) shown.add(m[1]);
const uncovered = [...shown].filter((f) => !(f in images));
if (uncovered.length) {
  console.error(
    `screenshots: docs show ${uncovered.join(', ')}, which test/fixtures/e2e/docs-images.json does not cover; add the shot that makes each`,
  );
  process.exit(1);
}
const started = Date.now();
const run = spawnSync(process.execPath, ['scripts/run-tests.mjs', 'e2e-sales'], {
  cwd: repo,
  stdio: 'inherit',
  env: { ...process.env, PARLEY_DOCS_SCREENSHOTS: '1', PARLEY_TEST_CONCURRENCY: '1' },
});
if (run.status !== 0) process.exit(run.status ?? 1);
const stale = Object.keys(images).filter(
  (f) => (statSync(join(repo, 'docs/images', f), { throwIfNoEntry: false })?.mtimeMs ?? 0) < started - 1000,
);
if (stale.length) {
  console.error(`screenshots: not rewritten by this run: ${stale.join(', ')}`);
  process.exit(1);
}
console.log(`screenshots: ${Object.keys(images).length} image(s) in docs/images/ regenerated: ${Object.keys(images).join(', ')}`);
