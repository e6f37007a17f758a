// `parley up` as a person runs it: a child process with a config, the console URL with its token,
// server start-up progress, and a clean shutdown on SIGINT within its bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isolatedEnv, CLI } from './helpers/cli.js';

const EVERYTHING = new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url).pathname;

test('parley up: JSON logs, console URL in a 0600 file and in no log line, servers ready, token enforced, clean Ctrl-C', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-up-'));
  writeFileSync(
    join(dir, 'parley.json'),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }),
  );
  // `dir` is also HOME: only its parley.json counts, not a user configuration file of this machine.
  const child = spawn(process.execPath, [...CLI, 'up', '--json', '--port', '0'], {
    cwd: dir,
    env: { ...process.env, ...isolatedEnv(dir) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: any[] = [];
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  let buf = '';
  const waiters: Array<() => void> = [];
  child.stdout.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim()) events.push(JSON.parse(line));
      for (const w of waiters.splice(0)) w();
    }
  });
  const waitFor = (pred: (e: any) => boolean, ms = 60_000) =>
    new Promise<any>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timed out waiting; events: ${JSON.stringify(events)} stderr: ${stderr}`)), ms);
      const check = () => {
        const hit = events.find(pred);
        if (hit) return (clearTimeout(t), resolve(hit));
        waiters.push(check);
      };
      check();
    });
  try {
    const cfg = await waitFor((e) => e.event === 'config');
    assert.equal(cfg.origin, 'files');
    assert.deepEqual(cfg.servers, ['everything']);
    const con = await waitFor((e) => e.event === 'console');
    assert.match(con.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(con.url, undefined, 'no log line carries the address with its token');
    assert.equal(con.urlFile, join(dir, '.parley', `console-${new URL(con.origin).port}.url`));
    assert.equal(statSync(con.urlFile).mode & 0o777, 0o600, 'only its owner may read the file');
    const url = readFileSync(con.urlFile, 'utf8').trim();
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32}$/);
    const token = url.split('token=')[1];
    const ready = await waitFor((e) => e.event === 'ready');
    assert.equal(ready.ready, 1);
    assert.ok(events.some((e) => e.event === 'server' && e.status === 'running' && e.revision === '2025-11-25'));
    const base = url.split('?')[0];
    assert.equal((await fetch(base)).status, 401, 'no token: refused');
    assert.equal((await fetch(url, { redirect: 'manual' })).status, 303, 'the token sets a cookie and leaves the address bar');
    assert.equal((await fetch(`${base}api/servers`, { headers: { authorization: `Bearer ${url.split('token=')[1]}` } })).status, 200);
    assert.ok(existsSync(join(dir, '.parley', 'parley.db')), 'the store is created under .parley/');
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGINT');
    const code = await Promise.race([exited, new Promise<'hang'>((r) => setTimeout(() => r('hang'), 15_000))]);
    assert.equal(code, 0, `clean shutdown, exit 0 (stderr: ${stderr})`);
    assert.ok(events.some((e) => e.event === 'stopped'));
    assert.ok(!JSON.stringify(events).includes(token) && !stderr.includes(token), 'the token is in no log line and not on stderr');
    assert.equal(existsSync(con.urlFile), false, 'the file goes with the console');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('parley up: a bad --port is a usage error (exit 2), a config without servers exits 1', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-up-'));
  const run = (args: string[]) =>
    new Promise<{ code: number | null; err: string }>((resolve) => {
      const c = spawn(process.execPath, [...CLI, 'up', ...args], { cwd: dir, env: { ...process.env, ...isolatedEnv(dir) } });
      let err = '';
      c.stderr.on('data', (d) => (err += d));
      const t = setTimeout(() => c.kill('SIGKILL'), 30_000);
      c.on('exit', (code) => (clearTimeout(t), resolve({ code, err })));
    });
  try {
    const bad = await run(['--port', 'x']);
    assert.equal(bad.code, 2, bad.err);
    assert.match(bad.err, /--port must be/);
    writeFileSync(join(dir, 'empty.json'), JSON.stringify({ mcpServers: {} }));
    const none = await run(['--config', 'empty.json']);
    assert.equal(none.code, 1, none.err);
    assert.match(none.err, /no servers to run/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('parley up with stdout into a pipe (a log): the console line has no token and names the 0600 file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-up-'));
  writeFileSync(
    join(dir, 'parley.json'),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }),
  );
  const child = spawn(process.execPath, [...CLI, 'up', '--port', '0'], {
    cwd: dir,
    env: { ...process.env, ...isolatedEnv(dir) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  try {
    const deadline = Date.now() + 60_000;
    while (!/ready in \d+ ms/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const line = /parley: console at (http:\/\/127\.0\.0\.1:\d+)\/ \(the address with its token is in (\S+)\)/.exec(out);
    assert.ok(line, out);
    const url = readFileSync(line[2], 'utf8').trim();
    assert.equal(statSync(line[2]).mode & 0o777, 0o600);
    assert.ok(url.startsWith(`${line[1]}/?token=`));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGINT');
    assert.equal(await exited, 0);
    assert.ok(!out.includes(url.split('token=')[1]), `the token is in no output line:\n${out}`);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('parley up --no-console with no server running (one fails, one lazy) keeps running and restarting until Ctrl-C', async () => {
  // Nothing else held the event loop: up exited at once with code 0, right after "restarting in 500 ms".
  const dir = mkdtempSync(join(tmpdir(), 'parley-up-noconsole-'));
  writeFileSync(
    join(dir, 'parley.json'),
    JSON.stringify({
      mcpServers: {
        crash: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
        idle: { command: process.execPath, args: [EVERYTHING, 'stdio'], lazy: true },
      },
    }),
  );
  const child = spawn(process.execPath, [...CLI, 'up', '--json', '--no-console'], {
    cwd: dir,
    env: { ...process.env, ...isolatedEnv(dir) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let stderr = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    const events = () =>
      out
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l));
    // Restarts are 500 ms then 1000 ms apart: the third attempt comes about 1.5 s after the first.
    let waiting = true;
    const third = await Promise.race([
      (async () => {
        while (waiting && !events().some((e) => e.event === 'server' && e.server === 'crash' && e.status === 'starting' && e.attempt === 3))
          await new Promise((r) => setTimeout(r, 50));
        return 'restarting' as const;
      })(),
      exited.then((code) => `exited early with ${code}` as const),
      new Promise<'hang'>((r) => setTimeout(() => r('hang'), 30_000)),
    ]);
    waiting = false;
    assert.equal(third, 'restarting', `events: ${out}\nstderr: ${stderr}`);
    assert.equal(child.exitCode, null, 'still running');
    child.kill('SIGINT');
    const code = await Promise.race([exited, new Promise<'hang'>((r) => setTimeout(() => r('hang'), 15_000))]);
    assert.equal(code, 0, `clean shutdown, exit 0 (stderr: ${stderr})`);
    assert.ok(events().some((e) => e.event === 'stopped'));
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
