// A server's text on the person's terminal is shown, never obeyed: an ESC in a message, title,
// description, option label, default or notice could clear the screen and redraw a fake
// "is asking" box, set the window title or write the clipboard (OSC 52); a bidirectional override
// reorders what the person reads. The terminal presenter draws every server string through termText.
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import type { InputRequestView } from '../src/host/presenter.js';
import type { RequestedSchema } from '../src/schema/index.js';
import { TerminalPresenter } from '../src/ui/terminal/index.js';
import { termText } from '../src/ui/terminal/safe-text.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const EVIL = 'x\x1b[2J\x1b[31mRED\x1b]0;pwned\x07\x1b]52;c;Y3VybA==\x07\r\u202egnp.exe\x9b1m';
/** What a server must never get onto the terminal raw. */
const RAW = ['\x1b[2J', '\x1b[31mRED', '\x1b]0;', '\x1b]52;', '\x07', '\u202e', '\x9b', '\rgnp'];

function rig() {
  const input = new PassThrough();
  let screen = '';
  const output = new Writable({
    write(c, _e, cb) {
      screen += c.toString();
      cb();
    },
  }) as Writable & { columns: number; rows: number };
  output.columns = 200;
  output.rows = 60;
  const presenter = new TerminalPresenter({ input, output, colour: false, openUrl: () => assert.fail('must not open a browser') });
  return {
    presenter,
    raw: () => screen,
    async type(...chunks: string[]) {
      for (const c of chunks) {
        await sleep(60);
        input.write(c);
      }
    },
  };
}

function assertShownNotObeyed(raw: string, where: string): void {
  for (const seq of RAW) assert.ok(!raw.includes(seq), `${where}: ${JSON.stringify(seq)} reached the terminal raw`);
  assert.match(raw, /x␛\[2J␛\[31mRED␛\]0;pwned␇/, `${where}: the escapes are shown as control pictures`);
  assert.match(raw, /\\u\{202e\}gnp\.exe/, `${where}: the bidi override is shown as \\u{202e}`);
}

describe('the terminal presenter shows a server text control characters instead of obeying them', () => {
  it('termText: control pictures, \\u{…} for C1 and bidi controls, line breaks kept only when asked', () => {
    assert.equal(termText('a\x1bb\x00c\x7f'), 'a␛b␀c␡');
    assert.equal(termText('a\r\nb\nc'), 'a b c');
    assert.equal(termText('a\r\nb\rc', { lines: true }), 'a\nb␍c');
    assert.equal(termText('\u202ed\u2066\u200f\x85'), '\\u{202e}d\\u{2066}\\u{200f}\\u{85}');
    assert.equal(termText('北京 ok — “quoted”\tx'), '北京 ok — “quoted” x');
  });

  it('message, title, description, option labels, default and validation messages', { timeout: 15_000 }, async () => {
    const t = rig();
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', title: `Name ${EVIL}`, description: `Your name ${EVIL}`, default: `Ada${EVIL}`, maxLength: 500 },
        pick: { type: 'string', oneOf: [{ const: 'a', title: `Option ${EVIL}` }] },
      },
      required: ['name', 'pick'],
    } as unknown as RequestedSchema;
    const view: InputRequestView = {
      id: 'r1',
      server: 'srv',
      message: `Please answer ${EVIL}`,
      mode: 'form',
      schema,
      prefill: {},
      prefillSources: {},
      repairs: [],
      warnings: [],
      sensitiveFields: [],
      round: 1,
    };
    const answer = t.presenter.present(view, new AbortController().signal);
    // Keep the default (shown, so sent, in its safe form), pick the option, accept, just this once.
    await t.type('\r', '\r', '\r', '\r');
    const got = await answer;
    assert.equal(got.action, 'accept');
    const content = (got as { content: Record<string, unknown> }).content;
    assert.equal(content.pick, 'a', 'the value sent is the option value, untouched');
    assert.equal(content.name, termText(`Ada${EVIL}`), 'what was shown is what was sent');
    assertShownNotObeyed(t.raw(), 'form');
  });

  it('notices', () => {
    const t = rig();
    t.presenter.notify({ server: 'srv', kind: 'refused', message: `refused ${EVIL}`, reason: 'policy' } as never);
    assertShownNotObeyed(t.raw(), 'notice');
  });
});
