// Issue 16 item 4, host side: reading `sql-query://orders` against `sql-query://{table}{?range}` asks the
// person for `range` (a form from the template's variables, completions as enum options), fills the
// answer into the URI and reads it. Real SDK v2 servers over stdio on both eras (StdioServerTransport:
// 2025-11-25; serveStdio: 2026-07-28), the real broker and SQLite audit; `parley read` at the terminal.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createHost,
  ResourceElicitationDeclinedError,
  ScriptedPresenter,
  type HostConfig,
  type PresenterAnswer,
  type InputRequestView,
  type ServerDef,
} from '../src/host/index.js';
import { openSqliteStore } from '../src/host/store/index.js';
import { DEFAULT_POLICY } from '../src/host/config/policy.js';
import { runParley } from './helpers/cli.js';

const SERVER = fileURLToPath(new URL('./fixtures/templates/sdk-templates.mjs', import.meta.url));
const origin = { file: '<test>', pointer: '' };
const servers: Record<string, ServerDef> = {
  legacy: { name: 'legacy', origin, type: 'stdio', command: process.execPath, args: [SERVER, '--legacy'], env: {} } as ServerDef,
  modern: { name: 'modern', origin, type: 'stdio', command: process.execPath, args: [SERVER], env: {} } as ServerDef,
};
const config: HostConfig = {
  servers,
  routes: [],
  policy: { ...DEFAULT_POLICY },
  presets: {},
  profile: {},
  roots: [],
  inputs: {},
  sources: [],
} as HostConfig;
const textOf = (r: { contents: Array<object> }) => r.contents.map((c) => (c as { text?: string }).text ?? '').join('\n');
const dir = mkdtempSync(join(tmpdir(), 'parley-templates-'));
after(() => rmSync(dir, { recursive: true, force: true }));

for (const era of ['legacy', 'modern'] as const) {
  describe(`host-side template parameters, ${era} server`, () => {
    const store = openSqliteStore(join(dir, `${era}.db`));
    const seen: InputRequestView[] = [];
    const answers: Array<(p: InputRequestView) => PresenterAnswer | Promise<PresenterAnswer>> = [];
    const presenter = new ScriptedPresenter([]);
    presenter.present = async (p) => {
      seen.push(p);
      const next = answers.shift();
      if (!next) throw new Error(`unexpected prompt: ${p.message} after ${seen.map((s) => s.message.slice(0, 40)).join(' | ')}`);
      return next(p);
    };
    const host = createHost(config, { presenter, store });
    after(async () => {
      await host.close();
      store.close();
    });

    it('asks for the missing {?range} with the completions as options, fills it in and reads', async () => {
      answers.push(() => ({ action: 'accept', content: { range: 'last_quarter' } }));
      const r = await host.readResource(era, 'sql-query://orders');
      assert.equal(textOf(r), 'rows of orders for last_quarter');
      assert.equal(r.contents[0].uri, 'sql-query://orders?range=last_quarter');
      const p = seen.at(-1)!;
      assert.equal(p.server, era);
      assert.deepEqual(Object.keys(p.schema!.properties), ['range']);
      assert.deepEqual((p.schema!.properties.range as { enum?: string[] }).enum, ['last_month', 'last_quarter', 'all']);
      assert.match(p.message, /needs range to read sql-query:\/\/orders \(resource template sql-query:\/\/\{table\}\{\?range\}\)/);
      assert.match(String((p.schema!.properties.range as { description?: string }).description), /Rows of a table for a date range/);
      // Audited: the broker's request and answer, and the host's fill.
      const kinds = (await store.queryAudit({ server: era })).map((a) => `${a.kind}:${a.action ?? ''}`);
      assert.ok(kinds.includes('request:') && kinds.includes('answer:accept') && kinds.includes('resource-read:filled'), kinds.join(' '));
    });

    it('without completions the field is free text; a complete URI is read without asking', async () => {
      answers.push(() => ({ action: 'accept', content: { since: '2025-01-01' } }));
      const r = await host.readResource(era, 'log://api');
      assert.equal(textOf(r), 'log of api since 2025-01-01');
      const p = seen.at(-1)!;
      assert.equal((p.schema!.properties.since as { enum?: unknown }).enum, undefined);
      const before = seen.length;
      assert.equal(textOf(await host.readResource(era, 'sql-query://regions?range=all')), 'rows of regions for all');
      assert.equal(seen.length, before, 'nothing asked for a full URI');
    });

    it('decline and cancel read nothing; an unknown URI keeps the server error without a prompt', async () => {
      answers.push(
        () => ({ action: 'decline' }),
        () => ({ action: 'cancel' }),
      );
      await assert.rejects(
        host.readResource(era, 'sql-query://orders'),
        (e) => e instanceof ResourceElicitationDeclinedError && e.action === 'decline' && /needs range/.test(e.message),
      );
      await assert.rejects(
        host.readResource(era, 'sql-query://orders'),
        (e) => e instanceof ResourceElicitationDeclinedError && e.action === 'cancel',
      );
      const before = seen.length;
      await assert.rejects(host.readResource(era, 'nothing://here'), (e: { code?: number }) => e.code === -32602);
      assert.equal(seen.length, before);
    });

    it('overlapping reads: each answer fills its own URI (answered in reverse order)', async () => {
      const gates: Array<() => void> = [];
      const both = new Promise<void>((resolve) => {
        const hold = (p: InputRequestView) =>
          new Promise<{ action: 'accept'; content: Record<string, unknown> }>((res) => {
            gates.push(() => res({ action: 'accept', content: { range: p.message.includes('products') ? 'last_month' : 'all' } }));
            if (gates.length === 2) resolve();
          });
        answers.push(hold, hold);
      });
      const a = host.readResource(era, 'sql-query://orders');
      const b = host.readResource(era, 'sql-query://products');
      await both;
      gates[1]();
      gates[0]();
      assert.equal(textOf(await a), 'rows of orders for all');
      assert.equal(textOf(await b), 'rows of products for last_month');
    });
  });
}

describe('parley read', () => {
  it('asks from --answers and prints the text; headless it fails fast naming the variable', { timeout: 120_000 }, async () => {
    const cfg = join(dir, 'parley.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        mcpServers: {
          sql: { command: process.execPath, args: [SERVER] },
          sales: { command: 'unused', disabled: true },
          charts: { command: 'unused', disabled: true },
        },
      }),
    );
    const file = join(dir, 'range.json');
    writeFileSync(file, JSON.stringify({ range: 'last_month' }));
    const db = join(dir, 'cli.db');
    const [ok, headless] = await Promise.all([
      runParley(['read', 'sql', 'sql-query://orders', '--answers', file, '--config', cfg, '--db', db]),
      runParley(['read', 'sql', 'sql-query://orders', '--non-interactive', '--config', cfg, '--db', join(dir, 'cli2.db')]),
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /\[resource sql-query:\/\/orders\?range=last_month\]\nrows of orders for last_month/);
    assert.equal(headless.code, 1);
    assert.match(headless.stderr, /asks for fields range/);
    // …and says how to answer it from the command line, as parley call does
    assert.match(
      headless.stderr,
      /Supply the values with --answers <file> \(\{"<variable>": value\}, e\.g\. \{"range": "…"\}\), or run on a terminal\./,
    );
  });
});
