// Files that start with a UTF-8 byte-order mark (Windows editors write one): every reader accepts them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadHostConfig } from '../src/host/config/index.js';
import { importPresets, openSqliteStore, type Scope } from '../src/host/store/index.js';
import { readAnswers } from '../src/cli/call.js';
import { sandbox } from './fixtures/config/tmp.js';

const BOM = '\uFEFF';
const alice: Scope = { tenant: 'acme', user: 'alice', session: null };

test('a configuration file and its envFile, each with a BOM, are read', () => {
  const s = sandbox();
  try {
    s.write('a.env', `${BOM}TOKEN=abc\nOTHER=1\n`);
    s.write('.mcp.json', `${BOM}${JSON.stringify({ mcpServers: { a: { command: 'x', envFile: 'a.env' } } })}`);
    const { config, issues } = loadHostConfig({ cwd: s.cwd, home: s.home, env: {} });
    assert.deepEqual(issues, []);
    const a = config.servers.a as { envFileVars?: Record<string, string> };
    assert.deepEqual(a.envFileVars, { TOKEN: 'abc', OTHER: '1' });
  } finally {
    s.cleanup();
  }
});

test('a presets document with a BOM is imported', async () => {
  const store = openSqliteStore(':memory:');
  try {
    const doc = { format: 'parley-presets', version: 1, presets: [{ name: 'work', answers: { sales: { table: 'orders' } } }] };
    const r = await importPresets(store, alice, BOM + JSON.stringify(doc));
    assert.deepEqual(r, { imported: 1, issues: [] });
    assert.deepEqual((await store.loadPreset(alice, 'work'))?.answers, { sales: { table: 'orders' } });
  } finally {
    await store.close();
  }
});

test('an --answers file with a BOM is read', () => {
  const s = sandbox();
  try {
    const file = s.write('answers.json', `${BOM}{"table": "orders"}`);
    assert.deepEqual(readAnswers(file), { table: 'orders' });
    writeFileSync(join(s.cwd, 'decline.json'), `${BOM}"$decline"`);
    assert.equal(readAnswers(join(s.cwd, 'decline.json')), '$decline');
  } finally {
    s.cleanup();
  }
});
