// WebPresenter and the console's JSON API over real HTTP: answers validated on the server with the
// schema core, per-field validation, abort, SSE, tools, roots (real RootRegistry + health), presets
// and audit (real SQLite store).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startConsole, WebPresenter, type ConsoleHandle, type PresenterEvent } from '../src/ui/web/index.js';
import { createTestHost, SCOPE, type TestHost } from './fixtures/console/host.js';
import { formPrompt, urlPrompt } from './fixtures/console/prompts.js';
import { verifies } from './helpers/verifies.js';

let host: TestHost;
let presenter: WebPresenter;
let con: ConsoleHandle;
let dir: string;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; data: any; headers: Headers }> {
  const r = await fetch(con.origin + path, {
    method,
    headers: { authorization: `Bearer ${con.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await r.text();
  let data: any = text;
  try {
    data = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: r.status, data, headers: r.headers };
}

/** Resolves with the settled value, or 'pending' if it has not settled within a tick of I/O. */
async function state<T>(p: Promise<T>): Promise<T | 'pending'> {
  return Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), 20))]);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'parley-console-'));
  host = createTestHost();
  presenter = new WebPresenter();
  con = await startConsole({ host, presenter });
});
after(async () => {
  presenter.cancelAll();
  await con.close();
  host.close();
  rmSync(dir, { recursive: true, force: true });
});

test('accept with form strings resolves with typed content after coerce + validate', async () => {
  const prompt = formPrompt();
  const answer = presenter.present(prompt, new AbortController().signal);
  assert.equal(presenter.pending().length, 1);
  const listed = await call('GET', '/api/prompts');
  assert.equal(listed.data[0].prompt.id, prompt.id);
  assert.equal(listed.data[0].fields.length, 13);
  const r = await call('POST', `/api/prompts/${prompt.id}/answer`, {
    action: 'accept',
    content: {
      name: 'Ada',
      check: 'yes',
      integer: '7',
      number: '2.5',
      untitledMultipleSelectEnum: ['Piano', 'Drums'],
      titledSingleSelectEnum: 'Wonder Woman',
      legacyTitledEnum: 'pet-2',
      email: '',
    },
    remember: 'session',
  });
  assert.equal(r.status, 200);
  verifies(['ELIC-VALIDATE-BOTH-SIDES', 'ELIC-1125-ENUM-SHAPES']);
  assert.deepEqual(await answer, {
    action: 'accept',
    content: {
      name: 'Ada',
      check: true,
      integer: 7,
      number: 2.5,
      untitledMultipleSelectEnum: ['Piano', 'Drums'],
      titledSingleSelectEnum: 'hero-3',
      legacyTitledEnum: 'pet-2',
    },
    remember: 'session',
  });
  assert.equal(presenter.pending().length, 0);
  assert.equal((await call('POST', `/api/prompts/${prompt.id}/answer`, { action: 'decline' })).status, 404);
});

test('invalid accept → 422 with per-field issues; the prompt stays open; then a fix resolves it', async () => {
  const prompt = formPrompt();
  const answer = presenter.present(prompt, new AbortController().signal);
  verifies('ELIC-1125-FORMATS');
  const bad = await call('POST', `/api/prompts/${prompt.id}/answer`, {
    action: 'accept',
    content: { integer: '500', email: 'not-an-email', untitledMultipleSelectEnum: ['Guitar', 'Piano', 'Violin', 'Drums'] },
  });
  assert.equal(bad.status, 422);
  const paths = bad.data.issues.map((i: { path: string }) => i.path.split('/')[1]).sort();
  assert.deepEqual([...new Set(paths)], ['email', 'integer', 'name', 'untitledMultipleSelectEnum']);
  assert.equal(await state(answer), 'pending');
  const unparsable = await call('POST', `/api/prompts/${prompt.id}/answer`, {
    action: 'accept',
    content: { name: 'x', integer: 'seven', nope: 1 },
  });
  assert.equal(unparsable.status, 422);
  assert.deepEqual(unparsable.data.issues.map((i: { code: string }) => i.code).sort(), ['not-a-number', 'unknown-field']);
  const fixed = await call('POST', `/api/prompts/${prompt.id}/answer`, { action: 'accept', content: { name: 'Grace' } });
  assert.equal(fixed.status, 200);
  assert.deepEqual(await answer, { action: 'accept', content: { name: 'Grace' }, remember: 'once' });
});

test("per-field validation endpoint returns only that field's issues as the person types", async () => {
  const prompt = formPrompt();
  const answer = presenter.present(prompt, new AbortController().signal);
  const one = await call('POST', `/api/prompts/${prompt.id}/validate`, { content: { integer: '101', email: 'x' }, field: 'integer' });
  assert.equal(one.status, 200);
  assert.equal(one.data.issues.length, 1);
  assert.equal(one.data.issues[0].path, '/integer');
  assert.match(one.data.issues[0].message, /100|maximum|at most/i);
  const ok = await call('POST', `/api/prompts/${prompt.id}/validate`, { content: { integer: '100' }, field: 'integer' });
  assert.deepEqual(ok.data.issues, []);
  assert.equal((await call('POST', '/api/prompts/nope/validate', { content: {} })).status, 404);
  await call('POST', `/api/prompts/${prompt.id}/answer`, { action: 'cancel' });
  assert.deepEqual(await answer, { action: 'cancel' });
});

test('decline and cancel resolve distinctly and carry no content; bad actions are 400', async () => {
  verifies('ELIC-RESULT-ACTIONS');
  for (const action of ['decline', 'cancel'] as const) {
    const prompt = formPrompt();
    const answer = presenter.present(prompt, new AbortController().signal);
    assert.equal((await call('POST', `/api/prompts/${prompt.id}/answer`, { action: 'maybe' })).status, 400);
    assert.equal(
      (await call('POST', `/api/prompts/${prompt.id}/answer`, { action: 'accept', content: { name: 'x' }, remember: 'forever' })).status,
      400,
    );
    const r = await call('POST', `/api/prompts/${prompt.id}/answer`, { action, content: { name: 'ignored' } });
    assert.equal(r.status, 200);
    assert.deepEqual(await answer, { action });
  }
});

test('remember is forced to "once" when a field is sensitive; URL accept carries no content', async () => {
  const prompt = formPrompt({
    rawSchema: { type: 'object', properties: { password: { type: 'string', title: 'Password' } }, required: ['password'] },
  });
  assert.deepEqual(prompt.sensitiveFields, ['password']);
  const answer = presenter.present(prompt, new AbortController().signal);
  assert.equal(presenter.pending()[0].rememberable, false);
  assert.equal(presenter.pending()[0].fields[0].sensitive, true);
  await call('POST', `/api/prompts/${prompt.id}/answer`, { action: 'accept', content: { password: 'hunter2' }, remember: 'always' });
  assert.deepEqual(await answer, { action: 'accept', content: { password: 'hunter2' }, remember: 'once' });

  verifies('ELIC-URL-ACCEPT-NO-CONTENT');
  const u = urlPrompt('https://example.com/oauth?state=abc');
  const ua = presenter.present(u, new AbortController().signal);
  await call('POST', `/api/prompts/${u.id}/answer`, { action: 'accept', content: { sneaky: 1 } });
  assert.deepEqual(await ua, { action: 'accept' });
});

test('abort removes the prompt and tells listeners; a pre-aborted signal never shows it', async () => {
  const events: PresenterEvent[] = [];
  const off = presenter.on((e) => events.push(e));
  const ac = new AbortController();
  const prompt = formPrompt();
  const answer = presenter.present(prompt, ac.signal);
  ac.abort();
  assert.deepEqual(await answer, { action: 'cancel' });
  assert.equal(presenter.pending().length, 0);
  assert.deepEqual(
    events.map((e) => e.type),
    ['prompt', 'prompt-closed'],
  );
  assert.equal((events[1] as { reason: string }).reason, 'aborted');
  const pre = formPrompt();
  assert.deepEqual(await presenter.present(pre, AbortSignal.abort()), { action: 'cancel' });
  assert.equal(events.length, 3);
  off();
});

test('presenting the same id again replaces the prompt quietly (no prompt-closed event)', async () => {
  const events: PresenterEvent[] = [];
  const off = presenter.on((e) => events.push(e));
  const first = formPrompt();
  const a1 = presenter.present(first, new AbortController().signal);
  const a2 = presenter.present(
    { ...first, round: 2, issues: [{ code: 'required', path: '/name', severity: 'error', message: 'String is required' }] },
    new AbortController().signal,
  );
  assert.deepEqual(await a1, { action: 'cancel' });
  assert.deepEqual(
    events.map((e) => e.type),
    ['prompt', 'prompt'],
  );
  assert.equal(presenter.pending().length, 1);
  assert.equal(presenter.pending()[0].prompt.round, 2);
  await call('POST', `/api/prompts/${first.id}/answer`, { action: 'decline' });
  assert.deepEqual(await a2, { action: 'decline' });
  off();
});

test('SSE: a snapshot of pending prompts and notices, then live prompt, notice and host events', async () => {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 15_000);
  presenter.notify({ kind: 'refused', server: 'everything', message: 'Form asks for a password', reason: 'sensitive-field' });
  const res = await fetch(con.origin + '/api/events', { headers: { authorization: `Bearer ${con.token}` }, signal: ac.signal });
  assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const reader = res.body!.getReader();
  let text = '';
  const until = async (re: RegExp) => {
    while (!re.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended');
      text += new TextDecoder().decode(value);
    }
  };
  await until(/event: snapshot\ndata: .*"refused"/);
  const prompt = formPrompt({ server: 'second' });
  const answer = presenter.present(prompt, new AbortController().signal);
  await until(/event: prompt\ndata: .*"second"/);
  host.emit({ type: 'roots' });
  await until(/event: host\ndata: \{"type":"roots"\}/);
  await call('POST', `/api/prompts/${prompt.id}/answer`, { action: 'decline' });
  await until(/event: prompt-closed\ndata: .*"answered"/);
  assert.deepEqual(await answer, { action: 'decline' });
  ac.abort();
  clearTimeout(timer);
  await reader.cancel().catch(() => undefined);
});

test('tools: list with inputSchema; call renders text, image, structured and error results', async () => {
  const tools = await call('GET', '/api/tools');
  assert.equal(tools.data.find((t: { name: string }) => t.name === 'echo').inputSchema.required[0], 'message');
  assert.deepEqual((await call('POST', '/api/tools/call', { server: 'everything', tool: 'echo', arguments: { message: 'hi' } })).data, {
    content: [{ type: 'text', text: 'Echo: hi' }],
  });
  assert.equal((await call('POST', '/api/tools/call', { server: 'everything', tool: 'fail' })).data.isError, true);
  assert.equal((await call('POST', '/api/tools/call', { server: 'everything' })).status, 400);
  assert.equal((await call('POST', '/api/tools/call', { server: 'everything', tool: 'echo', arguments: [1] })).status, 400);
});

test('roots: add (health-checked, with scope), list, remove; bad URIs are 400', async () => {
  const uri = pathToFileURL(dir).href;
  const added = await call('POST', '/api/roots', { uri, name: 'tmp', lifetime: 'app' });
  assert.equal(added.status, 200);
  assert.equal(added.data.health.status, 'ok');
  assert.equal(added.data.lifetime, 'app');
  const missing = await call('POST', '/api/roots', { uri: pathToFileURL(join(dir, 'nope')).href });
  assert.equal(missing.data.health.status, 'missing');
  assert.equal((await call('GET', '/api/roots')).data.length, 2);
  assert.equal((await call('POST', '/api/roots', { uri: 'not a uri' })).status, 400);
  assert.equal((await call('POST', '/api/roots', { uri, lifetime: 'forever' })).status, 400);
  assert.deepEqual((await call('POST', '/api/roots/remove', { uri: pathToFileURL(join(dir, 'nope')).href })).data, { removed: true });
  assert.deepEqual(
    (await host.store.listRoots({ ...SCOPE, session: null })).map((r) => r.uri),
    [added.data.uri],
  );
});

test('presets: save, list, load, export as a download; audit filters by server, kind and action', async () => {
  assert.equal((await call('POST', '/api/presets', { name: 'work' })).status, 200);
  const list = await call('GET', '/api/presets');
  assert.equal(list.data[0].name, 'work');
  assert.equal((await call('POST', '/api/presets/work/load')).status, 200);
  assert.equal((await call('POST', '/api/presets/nope/load')).status, 400);
  const exp = await call('GET', '/api/presets/export');
  assert.match(exp.headers.get('content-disposition') ?? '', /attachment; filename="parley-presets.json"/);
  assert.equal(exp.data.format, 'parley-presets');
  assert.equal(exp.data.presets[0].name, 'work');

  const now = Date.now();
  await host.store.appendAudit({ ts: now, scope: SCOPE, server: 'everything', kind: 'answer', action: 'accept', requestId: 'r1' });
  await host.store.appendAudit({ ts: now, scope: SCOPE, server: 'everything', kind: 'answer', action: 'decline', requestId: 'r2' });
  await host.store.appendAudit({ ts: now, scope: SCOPE, server: 'files', kind: 'policy', action: 'refuse' });
  assert.deepEqual(
    (await call('GET', '/api/audit?server=everything&kind=answer&action=decline')).data.map((r: { requestId: string }) => r.requestId),
    ['r2'],
  );
  assert.equal((await call('GET', '/api/audit?server=files')).data.length, 1);
  assert.ok((await call('GET', '/api/audit')).data.length >= 3);
});

test('the browser script parses and never writes HTML from strings', async () => {
  const { APP_JS } = await import('../src/ui/web/assets/app.js');
  assert.doesNotThrow(() => new Function(APP_JS));
  assert.doesNotMatch(APP_JS, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
});

test('masked: accepted as field names of the form and passed on; a bad masked value is 400 naming the rule', async () => {
  const prompt = formPrompt();
  const answer = presenter.present(prompt, new AbortController().signal);
  const url = `/api/prompts/${prompt.id}/answer`;
  for (const [masked, why] of [
    ['name', /masked must be an array of field names/],
    [['nope'], /masked\/0 \("nope"\) is not a field of this form/],
    [[7], /masked\/0 \(7\) is not a field of this form/],
    [Array.from({ length: 101 }, () => 'name'), /masked lists 101 names; at most 100/],
  ] as const) {
    const r = await call('POST', url, { action: 'accept', content: { name: 'Ada' }, masked });
    assert.equal(r.status, 400, JSON.stringify(masked).slice(0, 40));
    assert.match(r.data.error ?? r.data.message, why);
    assert.match(r.data.error ?? r.data.message, /send "masked" as an array of field names of this form \("name"/);
    assert.equal(await state(answer), 'pending');
  }
  const ok = await call('POST', url, { action: 'accept', content: { name: 'Ada' }, masked: ['name', 'name'] });
  assert.equal(ok.status, 200);
  const a = await answer;
  assert.equal(a.action, 'accept');
  assert.deepEqual(a.action === 'accept' && a.masked, ['name']);
});

test('a preset loaded while forms are open: each takes the valid values for its fields, or says why nothing was filled', () => {
  const p = new WebPresenter();
  const events: PresenterEvent[] = [];
  const off = p.on((e) => events.push(e));
  const open = formPrompt();
  const other = formPrompt({ server: 'other' });
  const ac = new AbortController();
  void p.present(open, ac.signal);
  void p.present(other, ac.signal);
  try {
    const forms = p.fillFromPreset('scene', { everything: { name: 'Ada', integer: 'not a number', unknown: 1, check: true } });
    assert.deepEqual(forms, [
      { id: open.id, server: 'everything', filled: ['name', 'check'] },
      {
        id: other.id,
        server: 'other',
        filled: [],
        reason: 'The preset "scene" has no answers for other; this form is as it was.',
      },
    ]);
    const fill = events.find((e) => e.type === 'prompt-fill' && e.id === open.id) as Extract<PresenterEvent, { type: 'prompt-fill' }>;
    assert.deepEqual(
      fill.fields.map((f) => [f.name, f.value, f.source]),
      [
        ['name', 'Ada', 'preset "scene"'],
        ['check', true, 'preset "scene"'],
      ],
    );
    // A browser that connects later gets the filled form.
    const later = p.pending().find((x) => x.prompt.id === open.id);
    assert.equal(later?.fields.find((f) => f.name === 'name')?.value, 'Ada');
    const none = p.fillFromPreset('other-scene', { everything: { nothing: 1 } });
    assert.match(none[0].reason ?? '', /has answers for everything, but none fits a field of this form \(name, check,/);
  } finally {
    off();
    ac.abort();
  }
});
