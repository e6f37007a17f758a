// The terminal presenter driven through in-memory streams (keystrokes in, screen text out):
// masking, confirm-only prompts, re-asking only invalid fields, remember choice, bounds, Esc, abort.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RequestedSchema } from '../src/schema/index.js';
import { checkField, fieldLabel } from '../src/ui/terminal/index.js';
import { verifies } from './helpers/verifies.js';
import { formView, terminalRig } from './helpers/terminal-rig.js';

const ESC = '\x1b';
const DOWN = '\x1b[B';
const BACKSPACE = '\x7f';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const rig = () => terminalRig();
const view = formView;

describe('TerminalPresenter', () => {
  it('masks sensitive fields and never offers to remember them', { timeout: 10_000 }, async () => {
    const t = rig();
    const answer = t.presenter.present(
      view(
        { type: 'object', properties: { apiKey: { type: 'string', title: 'API key' } }, required: ['apiKey'] },
        { sensitiveFields: ['apiKey'], warnings: ['Field "apiKey" looks sensitive'] },
      ),
      new AbortController().signal,
    );
    await t.type('s3cret', '\r', '\r');
    assert.deepEqual(await answer, { action: 'accept', content: { apiKey: 's3cret' } });
    assert.ok(!t.screen().includes('s3cret'), 'the secret is never echoed');
    assert.match(t.screen(), /srv is asking/);
    assert.match(t.screen(), /looks sensitive/);
    assert.doesNotMatch(t.screen(), /Remember/);
  });

  it('a confirm-only prompt asks accept/decline/cancel only; decline is explicit', { timeout: 10_000 }, async () => {
    const t = rig();
    const answer = t.presenter.present(view({ type: 'object', properties: {} }), new AbortController().signal);
    await t.type(DOWN, '\r');
    verifies('ELIC-RESULT-ACTIONS');
    assert.deepEqual(await answer, { action: 'decline' });
    assert.match(t.screen(), /Accept[\s\S]*Decline[\s\S]*Cancel/);
  });

  it('a re-presented prompt asks only the fields with issues, keeps the rest, and returns the remember choice', {
    timeout: 10_000,
  }, async () => {
    const t = rig();
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
      required: ['name'],
    };
    const answer = t.presenter.present(
      view(schema, {
        prefill: { name: 'Ada', email: 'bad' },
        issues: [{ code: 'format', path: '/email', severity: 'error', message: 'email must be a valid email' }],
        round: 2,
      }),
      new AbortController().signal,
    );
    await t.type(BACKSPACE.repeat(3), 'ada@example.com', '\r', '\r', DOWN + DOWN, '\r');
    assert.deepEqual(await answer, { action: 'accept', content: { name: 'Ada', email: 'ada@example.com' }, remember: 'always' });
    assert.doesNotMatch(t.screen(), /◆\s+name/, 'name was not asked again');
    assert.match(t.screen(), /email must be a valid email/);
  });

  it('checks bounds as typed: an integer out of range is refused until fixed', { timeout: 10_000 }, async () => {
    const t = rig();
    const answer = t.presenter.present(
      view({ type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 100 } } }),
      new AbortController().signal,
    );
    await t.type('500', '\r', BACKSPACE.repeat(3), '42', '\r', '\r', '\r');
    assert.deepEqual(await answer, { action: 'accept', content: { n: 42 }, remember: 'once' });
    assert.match(t.screen(), /1\.\.100/);
  });

  it('Esc answers cancel; an aborted signal answers cancel', { timeout: 10_000 }, async () => {
    const t = rig();
    const a = t.presenter.present(view({ type: 'object', properties: { x: { type: 'string' } } }), new AbortController().signal);
    await t.type(ESC);
    verifies('ELIC-RESULT-ACTIONS');
    assert.deepEqual(await a, { action: 'cancel' });
    const ctl = new AbortController();
    const b = t.presenter.present(view({ type: 'object', properties: { x: { type: 'string' } } }), ctl.signal);
    await sleep(100);
    ctl.abort();
    assert.deepEqual(await b, { action: 'cancel' });
  });
});

describe('terminal field helpers', () => {
  it('labels show title, requiredness, bounds and format hints', () => {
    assert.equal(
      fieldLabel('age', { type: 'integer', title: 'Age', minimum: 0, maximum: 150 }, true),
      'Age (age) * [0..150, whole number]',
    );
    assert.equal(fieldLabel('d', { type: 'string', format: 'date' }, false), 'd [YYYY-MM-DD (ISO 8601), e.g. 2025-01-31]');
  });
  it('checkField validates one field with the schema core', () => {
    const s = {
      type: 'object',
      properties: { e: { type: 'string', format: 'email' }, n: { type: 'number', maximum: 5 } },
      required: ['e'],
    } as unknown as RequestedSchema;
    assert.match(checkField(s, 'e', 'nope') ?? '', /email/);
    assert.match(checkField(s, 'e', '') ?? '', /required/);
    assert.equal(checkField(s, 'e', 'a@b.co'), undefined);
    assert.match(checkField(s, 'n', '9') ?? '', /5/);
    assert.equal(checkField(s, 'n', ''), undefined);
  });

  it('a long form adds no abort listener per field to the request signal (no MaxListenersExceededWarning)', {
    timeout: 30_000,
  }, async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const t = rig();
      const properties: Record<string, unknown> = {};
      for (let i = 0; i < 15; i++) properties[`f${i}`] = { type: 'string' };
      const answer = t.presenter.present(view({ type: 'object', properties }), new AbortController().signal);
      for (let i = 0; i < 15; i++) await t.type(`v${i}`, '\r');
      await t.type('\r', '\r');
      const r = await answer;
      assert.equal(r.action, 'accept');
      assert.equal((r as { content: Record<string, unknown> }).content.f14, 'v14');
      await sleep(50); // warnings are emitted on the next tick
      assert.deepEqual(
        warnings.map((w) => w.name),
        [],
      );
    } finally {
      process.off('warning', onWarning);
    }
  });
});
