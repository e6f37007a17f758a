// Issue 15 item 10 where people meet it, the `parley` command (config-people.test.ts checks the loader):
// VS Code's settings.json form is read, a UTF-16 file is an error naming the encoding, a file with no
// servers is a warning, and `${workspaceFolder}` in a .vscode file is the folder that holds .vscode even
// when parley runs elsewhere (the server it names starts).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { runParley } from './helpers/cli.js';

const V1_PUSH = fileURLToPath(new URL('./fixtures/servers-host/v1-push.mjs', import.meta.url));

describe('parley with the configuration files people have', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'parley-people-'));
    mkdirSync(join(dir, 'proj/.vscode'), { recursive: true });
    mkdirSync(join(dir, 'elsewhere'));
    // A server script inside the project, found only through ${workspaceFolder}.
    writeFileSync(join(dir, 'proj/srv.mjs'), `import ${JSON.stringify(V1_PUSH)};\n`);
    writeFileSync(
      join(dir, 'proj/.vscode/settings.json'),
      JSON.stringify({ 'editor.fontSize': 14, mcp: { servers: { fs: { type: 'stdio', command: 'node', args: ['x.js'] } } } }),
    );
    writeFileSync(
      join(dir, 'proj/.vscode/mcp.json'),
      JSON.stringify({ servers: { w: { type: 'stdio', command: process.execPath, args: ['${workspaceFolder}/srv.mjs'] } } }),
    );
    writeFileSync(join(dir, 'u16.json'), Buffer.from(`\ufeff${JSON.stringify({ mcpServers: {} })}`, 'utf16le'));
    writeFileSync(join(dir, 'empty.json'), JSON.stringify({ mcpServers: {} }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('config check reads settings.json {"mcp": {"servers"}}', { timeout: 60_000 }, async () => {
    const r = await runParley(['config', 'check', join(dir, 'proj/.vscode/settings.json')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout + r.stderr, /1 server\(s\): fs; 0 error\(s\), 0 warning\(s\)/);
  });

  it('a UTF-16 file is an error naming the encoding and the fix', { timeout: 60_000 }, async () => {
    const r = await runParley(['config', 'check', join(dir, 'u16.json')]);
    assert.equal(r.code, 1);
    assert.match(r.stdout + r.stderr, /the file is UTF-16LE; parley reads UTF-8 \(save it as UTF-8/);
  });

  it('a file with no servers is a warning', { timeout: 60_000 }, async () => {
    const r = await runParley(['config', 'check', join(dir, 'empty.json')]);
    assert.equal(r.code, 0);
    assert.match(r.stdout + r.stderr, /warning: no servers defined in this file \(add servers under "mcpServers"\)/);
  });

  it('${workspaceFolder} of a .vscode/mcp.json is the folder holding .vscode, run from another folder', { timeout: 90_000 }, async () => {
    const r = await runParley(['tools', '--config', join(dir, 'proj/.vscode/mcp.json')], { cwd: join(dir, 'elsewhere') });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'w\n  ask  asks a name\n  echo  echo\n');
  });
});
