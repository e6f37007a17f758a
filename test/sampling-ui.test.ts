// Sampling prompts in the terminal and the console (issue 14 item 9): the conversation is shown, the reply
// is typed into a text box (multi-line in the console), Send / Decline / Cancel; never "remember".
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { ElicitationBroker } from '../src/host/index.js';
import type { PresenterAnswer, InputRequestView } from '../src/host/index.js';
import { TerminalPresenter } from '../src/ui/terminal/index.js';
import { WebPresenter } from '../src/ui/web/index.js';
import { promptPayload } from '../src/ui/web/fields.js';

const params = {
  messages: [
    { role: 'user', content: { type: 'text', text: 'What is the capital of France?' } },
    { role: 'assistant', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } },
  ],
  systemPrompt: 'Be brief.',
  maxTokens: 20,
};
const ctx = { server: 'geo', era: 'legacy' as const, revision: '2025-11-25', signal: new AbortController().signal };

/** The InputRequestView the broker builds for `params`, captured from a one-shot presenter. */
async function samplingView(): Promise<InputRequestView> {
  let seen: InputRequestView | undefined;
  const b = new ElicitationBroker({
    presenter: {
      interactive: true,
      sampling: true,
      present: async (p) => ((seen = p), { action: 'cancel' } as PresenterAnswer),
      notify: () => {},
    },
  });
  await b.sample(params, ctx);
  return seen!;
}

describe('sampling prompts in the UIs', () => {
  it('terminal: shows who asks and the conversation, takes the reply, Send returns it (no remember step)', {
    timeout: 10_000,
  }, async () => {
    const input = new PassThrough();
    let screen = '';
    const output = Object.assign(
      new Writable({
        write(c, _e, cb) {
          screen += c.toString();
          cb();
        },
      }),
      { columns: 120, rows: 40 },
    );
    const presenter = new TerminalPresenter({ input, output, colour: false });
    const answer = presenter.present(await samplingView(), new AbortController().signal);
    for (const c of ['Paris', '\r', '\r']) {
      await new Promise((r) => setTimeout(r, 60));
      input.write(c);
    }
    assert.deepEqual(await answer, { action: 'accept', content: { reply: 'Paris' } });
    const s = screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    assert.match(s, /geo asks for a model reply \(sampling\)/);
    assert.match(s, /\[system\] Be brief\./);
    assert.match(s, /\[user\] What is the capital of France\?/);
    assert.match(s, /\[assistant\] \[image image\/png\]/);
    assert.match(s, /Send this reply to geo/);
    assert.doesNotMatch(s, /Remember/);
  });

  it('console: the reply is a multi-line box, never rememberable, and an accepted reply is validated', async () => {
    const view = await samplingView();
    const payload = promptPayload(view, 0);
    assert.equal(payload.rememberable, false);
    assert.deepEqual(
      payload.fields.map((f) => [f.name, f.multiline, f.required, f.maxLength]),
      [['reply', true, true, 100_000]],
    );
    const web = new WebPresenter();
    const answer = web.present(view, new AbortController().signal);
    assert.equal(web.answer(view.id, { action: 'accept', content: { reply: '' } }).status, 422, 'an empty reply is not sent');
    assert.equal(web.answer(view.id, { action: 'accept', content: { reply: 'Paris\nFrance' }, remember: 'always' }).status, 200);
    assert.deepEqual(await answer, { action: 'accept', content: { reply: 'Paris\nFrance' }, remember: 'once' });
  });
});
