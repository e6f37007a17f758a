// test/helpers/cli.ts decides whether tests start dist/ or the source under tsx: dist/ must count as
// current only when nothing the build reads changed after it, including a source file deleted (its
// stale .js stays in dist/, and only its folder's time records the deletion).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { distCurrent } from './helpers/cli.js';

/** A repository with sources at t0 and a build at t1 > t0 (both in the past, so any change now is later). */
function built(t: { after: (fn: () => void) => void }): string {
  const repo = mkdtempSync(join(tmpdir(), 'parley-dist-current-'));
  t.after(() => rmSync(repo, { recursive: true, force: true }));
  const t0 = new Date(Date.now() - 120_000);
  const t1 = new Date(Date.now() - 60_000);
  const files: Array<[string, Date]> = [
    ['src/cli/main.ts', t0],
    ['src/host/gone.ts', t0],
    ['servers/sales/main.ts', t0],
    ['tsconfig.json', t0],
    ['dist/src/cli/main.js', t1],
    ['dist/src/host/gone.js', t1],
    ['dist/servers/sales/main.js', t1],
  ];
  for (const [f] of files) {
    mkdirSync(join(repo, f, '..'), { recursive: true });
    writeFileSync(join(repo, f), '');
  }
  // Folders last: writing their files changed their times.
  for (const [f, at] of files) {
    utimesSync(join(repo, f), at, at);
    for (let d = join(f, '..'); d !== '.'; d = join(d, '..')) utimesSync(join(repo, d), at, at);
  }
  return repo;
}

test('dist/ is current after a build, and stale once a source file is edited, deleted or a tsconfig changes', (t) => {
  const repo = built(t);
  assert.equal(distCurrent(repo), true, 'built after every source');
  unlinkSync(join(repo, 'src/host/gone.ts'));
  assert.equal(distCurrent(repo), false, 'a deleted source file makes dist/ stale (its .js is still there)');

  const edited = built(t);
  writeFileSync(join(edited, 'servers/sales/main.ts'), '// edited');
  assert.equal(distCurrent(edited), false, 'an edit under servers/');

  const tsconfig = built(t);
  writeFileSync(join(tsconfig, 'tsconfig.json'), '{}');
  assert.equal(distCurrent(tsconfig), false, 'a tsconfig edit');

  const none = mkdtempSync(join(tmpdir(), 'parley-dist-current-'));
  t.after(() => rmSync(none, { recursive: true, force: true }));
  mkdirSync(join(none, 'src'));
  writeFileSync(join(none, 'src/a.ts'), '');
  assert.equal(distCurrent(none), false, 'no dist/ at all');
});
