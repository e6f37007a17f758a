// `parley call` as a child process against server-everything and the bundled sales server:
// answers files (accept / decline / cancel / invalid), headless fail-fast, arguments, usage errors.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { isolatedEnv, runParley } from './helpers/cli.js';
import { cliProject, FIXTURES, type CliProject } from './fixtures/cli/setup.js';
import { verifies } from './helpers/verifies.js';

const T = 300_000; // generous: the machine may be shared and loaded
let p: CliProject;
before(() => {
  p = cliProject();
});
after(() => p.cleanup());

const call = (...args: string[]) => runParley(['call', ...p.flags, ...args], { timeoutMs: 120_000 });
const answers = (name: string) => join(FIXTURES, name);

describe('parley call --answers', () => {
  it("accepts, declines and cancels server-everything's form from files", { timeout: T }, async () => {
    const [acc, dec, can] = await Promise.all([
      call('everything', 'trigger-elicitation-request', '--answers', answers('accept.json')),
      call('everything', 'trigger-elicitation-request', '--answers', answers('decline.json')),
      call('everything', 'trigger-elicitation-request', '--answers', answers('cancel.json')),
    ]);
    verifies('ELIC-RESULT-ACTIONS');
    assert.equal(acc.code, 0, acc.stderr);
    assert.match(acc.stdout, /User provided the requested information/);
    assert.match(acc.stdout, /- Name: Ada/);
    assert.match(acc.stdout, /Favorite Integer: 7/);
    assert.match(acc.stdout, /"firstLine": "It was a dark and stormy night\."/, 'defaults fill the fields the file leaves out');
    verifies('ELIC-RESULT-ACTIONS');
    assert.equal(dec.code, 0, dec.stderr);
    assert.match(dec.stdout, /User declined/);
    verifies('ELIC-RESULT-ACTIONS');
    assert.equal(can.code, 0, can.stderr);
    assert.match(can.stdout, /User cancelled/);
  });

  it('validates file answers like typed ones: an invalid e-mail ends as cancel with a notice on stderr', { timeout: T }, async () => {
    const r = await call('everything', 'trigger-elicitation-request', '--answers', answers('invalid.json'));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /User cancelled/);
    assert.match(r.stderr, /email/);
    assert.doesNotMatch(r.stdout, /not-an-email/);
  });

  it("answers the sales server's configuration form and prints structuredContent with --json", { timeout: T }, async () => {
    const r = await call('sales', 'query_sales', '--answers', answers('sales.json'), '--json');
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(typeof out, 'object');
    assert.ok(!('isError' in out) || out.isError === false, r.stdout);
    assert.doesNotMatch(r.stderr, /matches no field/, 'a file that fits the form gets no word about its keys');
  });

  it('says which keys of the file match no field: a misspelt field is named, not only "required"', { timeout: T }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-answers-typo-'));
    try {
      const section = join(dir, 'section.json');
      writeFileSync(section, JSON.stringify({ sales: { tabel: 'regions', range: 'last_month', region: 'all' } }));
      const flat = join(dir, 'flat.json');
      writeFileSync(flat, JSON.stringify({ tabel: 'regions', range: 'last_month', region: 'all' }));
      // A flat file may answer several servers' forms: a key for another form is no reason to speak.
      const other = join(dir, 'other.json');
      writeFileSync(other, JSON.stringify({ table: 'regions', range: 'last_month', region: 'all', color: 'red', charts: { x: 1 } }));
      const a = await call('sales', 'query_sales', '--answers', section);
      const b = await call('sales', 'query_sales', '--answers', flat);
      const c = await call('sales', 'query_sales', '--answers', other);
      assert.equal(a.code, 1, a.stderr);
      assert.match(
        a.stderr,
        /--answers \S+section\.json: "tabel" matches no field of sales's form \(in its "sales" section\) and is ignored; its fields: table, range, region/,
      );
      assert.equal(a.stderr.match(/matches no field/g)?.length, 1, 'said once, not once per round');
      assert.equal(b.code, 1, b.stderr);
      assert.match(
        b.stderr,
        /--answers \S+flat\.json: "tabel" matches no field of sales's form and is ignored; its fields: table, range, region/,
      );
      assert.equal(c.code, 0, c.stderr);
      assert.doesNotMatch(c.stderr, /matches no field/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('parley call --preset', () => {
  it("a preset's answers complete the sales form with --non-interactive; an unknown preset is a usage error naming the known ones", {
    timeout: T,
  }, async () => {
    const [withPreset, without, unknown] = await Promise.all([
      call('sales', 'query_sales', '--preset', 'monthly', '--non-interactive', '--json'),
      call('sales', 'query_sales', '--non-interactive'),
      call('sales', 'query_sales', '--preset', 'nope', '--non-interactive'),
    ]);
    assert.equal(withPreset.code, 0, withPreset.stderr);
    assert.ok(!('isError' in JSON.parse(withPreset.stdout)) || JSON.parse(withPreset.stdout).isError === false, withPreset.stdout);
    assert.equal(without.code, 1, 'without the preset nobody can answer');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no preset named "nope".*monthly/);
  });
});

describe('parley call URL mode from a file', () => {
  it('accepts only with "$consent": true; otherwise declines', { timeout: T }, async () => {
    const url = 'url=https://example.com/oauth?state=abc';
    const [yes, no] = await Promise.all([
      call('everything', 'trigger-url-elicitation', url, '--answers', answers('url-consent.json')),
      call('everything', 'trigger-url-elicitation', url, '--answers', answers('accept.json')),
    ]);
    verifies('ELIC-1125-URL-CONSENT');
    assert.equal(yes.code, 0, yes.stderr);
    assert.match(yes.stdout, /User completed the URL elicitation flow/);
    assert.equal(no.code, 0, no.stderr);
    assert.match(no.stdout, /"action": "decline"/);
  });
});

describe('parley call headless', () => {
  it('--non-interactive fails fast with a clear message and exit 1 when a person is needed', { timeout: T }, async () => {
    // Fails fast: call() kills the child after 120 s, far below the 30-minute answer bound it would otherwise hit.
    const r = await call('everything', 'trigger-elicitation-request', '--non-interactive');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Server "everything" asks for fields name, /);
    assert.match(r.stderr, /no person can answer here/);
    assert.match(r.stderr, /--answers/);
  });

  it('is headless by default when stdin is not a terminal, and a call without prompts just works', { timeout: T }, async () => {
    const [sum, asks] = await Promise.all([call('everything', 'get-sum', 'a=1', 'b=2'), call('everything', 'trigger-elicitation-request')]);
    assert.equal(sum.code, 0, sum.stderr);
    assert.match(sum.stdout, /The sum of 1 and 2 is 3/);
    assert.equal(asks.code, 1);
    assert.match(asks.stderr, /no person can answer here/);
  });
});

describe('parley call usage', () => {
  it('exits 2 for bad arguments, unknown options and unreadable answers files; 1 for an unknown server', { timeout: T }, async () => {
    const [badJson, unknown, missing, noTool, noServer] = await Promise.all([
      call('everything', 'get-sum', '{"a":'),
      call('everything', 'get-sum', '--bogus'),
      call('everything', 'get-sum', '--answers', join(p.dir, 'nope.json')),
      call('everything'),
      call('nosuch', 'tool'),
    ]);
    assert.equal(badJson.code, 2);
    assert.match(badJson.stderr, /not valid JSON/);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown option --bogus/);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nope\.json: cannot read the file \(ENOENT\)/);
    // A broken answers file says where, as an editor counts (line and column), not a character offset.
    const broken = join(p.dir, 'broken-answers.json');
    writeFileSync(broken, '{\n  "sales": {\n    "table": "orders",\n  }\n}\n');
    const badAnswers = await call('sales', 'query_sales', '--answers', broken);
    assert.equal(badAnswers.code, 2, badAnswers.stderr);
    assert.match(badAnswers.stderr, /--answers \S+broken-answers\.json: not valid JSON \(line 4, column 3: /);
    assert.equal(noTool.code, 2);
    assert.equal(noServer.code, 1);
    assert.match(noServer.stderr, /nosuch/);
  });
});

describe('parley call: a query result charted in a new process', () => {
  it('charts a sales result from an earlier `parley call` (the host starts sales to read it); the totals match', {
    timeout: T,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-cli-qr-'));
    try {
      // Same working folder and HOME for both runs: the embedded default config, sales keeps its results.
      const run = (...args: string[]) => runParley(args, { cwd: dir, env: isolatedEnv(dir), timeoutMs: 120_000 });
      const q = await run(
        'call',
        'sales',
        'query_sales',
        '{"table":"products","range":"last_month","region":"all"}',
        '--non-interactive',
        '--json',
      );
      assert.equal(q.code, 0, q.stderr);
      const result = JSON.parse(q.stdout);
      const uri = String(q.stdout.match(/sales:\/\/results\/[0-9a-f]+/)?.[0]);
      const c = await run('call', 'charts', 'generate_chart', JSON.stringify({ data_source: uri }), '--json');
      assert.equal(c.code, 0, c.stderr);
      const chart = JSON.parse(c.stdout);
      assert.equal(chart.data_source, uri);
      assert.equal(chart.total, result.summary.revenue);
      // On the terminal the chart is two files (PNG and SVG), not a screen of SVG markup.
      const shown = await run('call', 'charts', 'generate_chart', JSON.stringify({ data_source: uri }));
      assert.equal(shown.code, 0, shown.stderr);
      assert.doesNotMatch(shown.stdout, /<svg/);
      const svg = shown.stdout.match(/\[resource chart:\/\/svg\/\w+ image\/svg\+xml\] saved to (\S+\.svg)/)?.[1];
      assert.ok(svg, shown.stdout);
      assert.match(readFileSync(svg, 'utf8'), /^<svg/);
      rmSync(dirname(svg), { recursive: true, force: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('parley call --non-interactive and a -32042 URL step', () => {
  it('says no person can answer here, not that the server withdrew its request', { timeout: T }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-cli-url-'));
    try {
      const peer = fileURLToPath(new URL('./fixtures/servers-host/raw-peer.mjs', import.meta.url));
      writeFileSync(join(dir, 'p.json'), JSON.stringify({ mcpServers: { u: { command: process.execPath, args: [peer, 'urlreq'] } } }));
      const r = await runParley(['call', '--config', 'p.json', 'u', 'pay', '--non-interactive'], {
        cwd: dir,
        env: isolatedEnv(dir),
        timeoutMs: 120_000,
      });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /Server "u" asks for consent to open https:\/\/example\.com\/consent .*but no person can answer here/);
      assert.doesNotMatch(r.stderr, /withdrew/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
