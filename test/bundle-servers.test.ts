// scripts/bundle-servers.mjs (part of `npm run build`): the bundled servers are single ES modules with
// lazily loaded chunks, and running the script again on its own output leaves them working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';

const built = existsSync('dist/servers/sales/main.js') && existsSync('dist/servers/chunks');

test('bundled servers: one module each, chunks beside them, and a second run changes nothing', {
  skip: built ? false : 'run npm run build first (npm test does)',
}, () => {
  for (const name of ['sales', 'charts']) {
    const text = readFileSync(`dist/servers/${name}/main.js`, 'utf8');
    assert.ok(text.includes('/* parley: bundled by scripts/bundle-servers.mjs */'), `${name}/main.js is a bundle`);
    assert.ok(!text.includes('../../src/'), `${name}/main.js does not import the unbundled toolkit`);
  }
  const chunks = readdirSync('dist/servers/chunks').sort();
  const again = spawnSync(process.execPath, ['scripts/bundle-servers.mjs'], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(again.status, 0, again.stderr);
  assert.deepEqual(readdirSync('dist/servers/chunks').sort(), chunks, 'the chunks are untouched');
  for (const name of ['sales', 'charts']) {
    const help = spawnSync(process.execPath, [`dist/servers/${name}/main.js`, '--help'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, new RegExp(`usage: parley-${name}`), `${name} runs from the bundle`);
  }
});
