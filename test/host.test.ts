// createHost end to end with real servers over stdio: the bundled sales server, server-everything
// and server-filesystem; real SQLite; scripted people. Each test closes its host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createHost,
  ScriptedPresenter,
  type HostConfig,
  type InputRequestView,
  type Presenter,
  type PresenterDecision,
  type ServerDef,
} from '../src/host/index.js';
import { WebPresenter } from '../src/ui/web/presenter.js';
import { openSqliteStore } from '../src/host/store/index.js';
import { DEFAULT_POLICY } from '../src/host/config/policy.js';
import { verifies } from './helpers/verifies.js';

const EVERYTHING = new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url).pathname;
const FILESYSTEM = new URL('../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url).pathname;
const SALES = new URL('../servers/sales/main.ts', import.meta.url).pathname;
const origin = { file: '<test>', pointer: '' };

function config(servers: Record<string, Omit<ServerDef, 'name' | 'origin'>>, extra: Partial<HostConfig> = {}): HostConfig {
  const defs: Record<string, ServerDef> = {};
  for (const [name, d] of Object.entries(servers)) defs[name] = { name, origin, ...d } as ServerDef;
  return {
    servers: defs,
    routes: [],
    policy: { ...DEFAULT_POLICY },
    presets: {},
    profile: {},
    roots: [],
    inputs: {},
    sources: [],
    ...extra,
  };
}
const stdio = (command: string, args: string[], env: Record<string, string> = {}) => ({ type: 'stdio' as const, command, args, env });
const text = (r: any) =>
  (r.content ?? [])
    .filter((c: any) => c.type === 'text')
    .map((c: any) => c.text)
    .join('\n');
const tmp = () => mkdtempSync(join(tmpdir(), 'parley-host-'));

test('server-everything through the host: accept, decline and cancel stay distinct; every step is audited', async () => {
  verifies(['ELIC-RESULT-ACTIONS', 'ELIC-1125-CLIENT-SHOW-SERVER']);
  const dir = tmp();
  const store = openSqliteStore(join(dir, 'p.db'));
  const seen: InputRequestView[] = [];
  const presenter = new ScriptedPresenter([
    (p) => (seen.push(p), { action: 'accept', content: { ...p.prefill, name: 'Ada', email: 'ada@example.com', check: true } }),
    { action: 'decline' },
    { action: 'cancel' },
  ]);
  const host = createHost(config({ everything: stdio(process.execPath, [EVERYTHING, 'stdio']) }), { presenter, store });
  try {
    const accepted = await host.callTool('everything', 'trigger-elicitation-request', {});
    assert.match(text(accepted), /User provided the requested information/);
    assert.match(text(accepted), /Name: Ada/);
    assert.equal(seen[0].server, 'everything');
    assert.equal(Object.keys(seen[0].schema!.properties).length, 13, 'all 13 field kinds reach the presenter');
    assert.equal(seen[0].prefill.integer, 42, 'defaults are prefilled');
    assert.match(text(await host.callTool('everything', 'trigger-elicitation-request', {})), /declined/);
    assert.match(text(await host.callTool('everything', 'trigger-elicitation-request', {})), /cancelled/);
    const answers = (await host.audit.query({ kind: 'answer' })).map((r) => r.action).reverse();
    assert.deepEqual(answers, ['accept', 'decline', 'cancel']);
    assert.ok((await host.audit.query({ kind: 'tool-call' })).length >= 6);
    const s = host.listServers()[0];
    assert.equal(s.state.status, 'running');
    assert.equal(s.revision, '2025-11-25');
  } finally {
    await host.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('server-everything: roots from the registry, and the -32042 URL path with consent then retry', async () => {
  verifies(['ROOTS-CLIENT-CAPABILITY', 'ELIC-1125-URL-REQUIRED-ERROR', 'ELIC-1125-URL-CONSENT']);
  const dir = tmp();
  const consents: InputRequestView[] = [];
  const presenter = new ScriptedPresenter([
    (p) => (consents.push(p), { action: 'accept' }),
    (p) => (consents.push(p), { action: 'accept' }),
  ]);
  const host = createHost(
    config(
      { everything: stdio(process.execPath, [EVERYTHING, 'stdio']) },
      { roots: [{ uri: pathToFileURL(dir).href, name: 'work' }, { uri: 'https://example.com/repo' }] },
    ),
    { presenter },
  );
  try {
    const r = await host.callTool('everything', 'get-roots-list', {});
    assert.match(text(r), new RegExp(pathToFileURL(dir).href));
    assert.doesNotMatch(text(r), /example\.com/, 'virtual (non-file) roots never go on the wire');
    const url = await host.callTool('everything', 'trigger-url-elicitation', { url: 'https://example.com/pay', errorPath: true });
    assert.match(text(url), /completed the URL elicitation/);
    assert.deepEqual(
      consents.map((p) => [p.mode, p.url?.host]),
      [
        ['url', 'modelcontextprotocol.io'],
        ['url', 'example.com'],
      ],
    );
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('-32042: the retry-or-cancel decision names the same tool call id as the consent prompts (one call, one id)', async () => {
  const consents: InputRequestView[] = [];
  const decisions: PresenterDecision[] = [];
  const presenter: Presenter = {
    interactive: true,
    present: async (p) => (consents.push(p), { action: 'accept' }),
    notify: () => {},
    decide: async (d) => (decisions.push(d), 'retry'),
  };
  const host = createHost(config({ everything: stdio(process.execPath, [EVERYTHING, 'stdio']) }), { presenter });
  try {
    await host.callTool('everything', 'trigger-url-elicitation', { url: 'https://example.com/pay', errorPath: true });
    assert.ok(consents.length >= 1 && decisions.length >= 1, `${consents.length} consents, ${decisions.length} decisions`);
    const ids = new Set([...consents.map((p) => p.call?.callId), ...decisions.map((d) => d.callId)]);
    assert.equal(ids.size, 1, `one call, one id: ${[...ids].join(', ')}`);
    assert.match(String([...ids][0]), /^[0-9a-f-]{36}$/);
    // The console's Retry card shows that id (call.callId), not the decision's own id.
    const web = new WebPresenter();
    const shown = new Promise<InputRequestView>((resolve) => {
      const orig = web.present.bind(web);
      web.present = ((v: InputRequestView, sig: AbortSignal, extra?: unknown) => (resolve(v), orig(v, sig, extra as never))) as never;
    });
    const ac = new AbortController();
    const pending = web.decide(decisions[0], ac.signal);
    assert.equal((await shown).call?.callId, decisions[0].callId);
    ac.abort();
    await pending;
  } finally {
    await host.close();
  }
});

test('server-filesystem started with no directories is driven by the host roots, including changes', async () => {
  verifies(['ROOTS-CLIENT-LIST-CHANGED', 'ROOTS-CLIENT-EXPOSE-PERMITTED']);
  const dir = tmp();
  mkdirSync(join(dir, 'a'));
  mkdirSync(join(dir, 'b'));
  writeFileSync(join(dir, 'a', 'hello.txt'), 'hi from a');
  const host = createHost(config({ fs: stdio(process.execPath, [FILESYSTEM]) }, { roots: [{ uri: pathToFileURL(join(dir, 'a')).href }] }), {
    presenter: new ScriptedPresenter([]),
  });
  const allowed = async () => text(await host.callTool('fs', 'list_allowed_directories', {}));
  const waitFor = async (re: RegExp) => {
    const until = Date.now() + 30_000; // bound: roots apply asynchronously and slowly on a loaded 2-core machine
    for (;;) {
      const t = await allowed();
      if (re.test(t)) return t;
      if (Date.now() > until) assert.fail(`allowed directories never matched ${re}: ${t}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  try {
    await waitFor(/\/a\b/);
    assert.match(text(await host.callTool('fs', 'read_text_file', { path: join(dir, 'a', 'hello.txt') })), /hi from a/);
    host.removeRoot(pathToFileURL(join(dir, 'a')).href);
    host.addRoot(pathToFileURL(join(dir, 'b')).href, { lifetime: 'session', source: 'user' });
    const now = await waitFor(/\/b\b/);
    assert.doesNotMatch(now, /\/a\b/);
    const denied = await host.callTool('fs', 'read_text_file', { path: join(dir, 'a', 'hello.txt') });
    assert.equal(denied.isError, true);
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the bundled sales server: the session configuration is negotiated once, remembered answers prefill the next session', async () => {
  const dir = tmp();
  const store = openSqliteStore(join(dir, 'p.db'));
  const cfg = config({ sales: stdio(process.execPath, ['--import', 'tsx', SALES, '--db', join(dir, 'sales.db')]) });
  const asked: InputRequestView[] = [];
  const host1 = createHost(cfg, {
    presenter: new ScriptedPresenter([
      (p) => (asked.push(p), { action: 'accept', content: { table: 'orders', range: 'last_month', region: '北京' }, remember: 'always' }),
    ]),
    store,
    scope: { user: 'ada' },
  });
  try {
    const r = (await host1.callTool('sales', 'query_sales', {})) as any;
    assert.equal(r.isError, undefined, text(r));
    assert.equal(r.structuredContent.config.region, '北京');
    const again = (await host1.callTool('sales', 'query_sales', {})) as any;
    assert.equal(again.isError, undefined, text(again));
    assert.equal(asked.length, 1, 'asked at most once per session');
  } finally {
    await host1.close();
  }
  const prefilled: InputRequestView[] = [];
  const host2 = createHost(cfg, {
    presenter: new ScriptedPresenter([(p) => (prefilled.push(p), { action: 'accept', content: p.prefill })]),
    store,
    scope: { user: 'ada' },
  });
  try {
    const r = (await host2.callTool('sales', 'query_sales', {})) as any;
    assert.equal(r.structuredContent.config.region, '北京');
    assert.equal(prefilled[0].prefillSources.region, 'remembered');
  } finally {
    await host2.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('${input:id} is asked once through the presenter, masked, and kept out of the audit log and files', async () => {
  const dir = tmp();
  const store = openSqliteStore(join(dir, 'p.db'));
  const secret = 'sk-test-0123456789abcdef';
  const echo = new URL('./fixtures/host/env-server.mjs', import.meta.url).pathname;
  const def = (_name: string) => ({ ...stdio(process.execPath, [echo, secret], { API_KEY: '${input:api-key}' }), inputRefs: ['api-key'] });
  const prompts: InputRequestView[] = [];
  const host = createHost(
    config(
      { one: def('one'), two: def('two') },
      { inputs: { 'api-key': { id: 'api-key', type: 'promptString', description: 'Service API key', password: true } } },
    ),
    {
      presenter: new ScriptedPresenter([(p) => (prompts.push(p), { action: 'accept', content: { 'api-key': secret } })]),
      store,
    },
  );
  try {
    assert.equal(text(await host.callTool('one', 'has_key', {})), 'key ok');
    assert.equal(text(await host.callTool('two', 'has_key', {})), 'key ok');
    assert.equal(prompts.length, 1, 'asked once for both servers');
    assert.deepEqual(prompts[0].sensitiveFields, ['api-key'], 'password inputs are masked');
    store.close();
    for (const f of ['p.db', 'p.db-wal']) {
      try {
        assert.ok(!readFileSync(join(dir, f)).includes(secret), `${f} must not contain the secret`);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two users and two sessions interleave elicitations with zero cross-delivery; audit rows stay in their scope', async () => {
  const dir = tmp();
  const store = openSqliteStore(join(dir, 'p.db'));
  const cfg = config({ everything: stdio(process.execPath, [EVERYTHING, 'stdio']) });
  const mk = (user: string, session: string) => {
    const seen: InputRequestView[] = [];
    // Each person answers with their own name after a short, different delay, so the requests overlap.
    const presenter = new ScriptedPresenter(
      Array.from({ length: 3 }, () => async (p: InputRequestView) => {
        seen.push(p);
        await new Promise((r) => setTimeout(r, user === 'ada' ? 120 : 40));
        return { action: 'accept' as const, content: { ...p.prefill, name: `${user}-${session}` } };
      }),
    );
    return { seen, host: createHost(cfg, { presenter, store, scope: { user, session } }) };
  };
  const people = [mk('ada', 's1'), mk('ada', 's2'), mk('bob', 's3')];
  try {
    const results = await Promise.all(
      people.flatMap((p) => [
        p.host.callTool('everything', 'trigger-elicitation-request', {}),
        p.host.callTool('everything', 'trigger-elicitation-request', {}),
      ]),
    );
    const names = results.map((r) => /Name: (\S+)/.exec(text(r))?.[1]);
    assert.deepEqual(
      names,
      ['ada-s1', 'ada-s1', 'ada-s2', 'ada-s2', 'bob-s3', 'bob-s3'],
      'every answer went back to the call that caused it',
    );
    for (const p of people) assert.equal(p.seen.length, 2, 'each person saw exactly their own two prompts');
    const bobAnswers = await store.queryAudit({ scope: { user: 'bob' }, kind: 'answer' });
    assert.equal(bobAnswers.length, 2);
    assert.ok(bobAnswers.every((r) => r.scope.user === 'bob' && r.scope.session === 's3'));
    assert.equal((await store.queryAudit({ scope: { user: 'ada', session: 's2' }, kind: 'answer' })).length, 2);
  } finally {
    await Promise.all(people.map((p) => p.host.close()));
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
