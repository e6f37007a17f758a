// The terminal presenter driven through in-memory streams: keystrokes in, what it drew out.
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import type { InputRequestView } from '../../src/host/presenter.js';
import type { RequestedSchema } from '../../src/schema/index.js';
import { TerminalPresenter } from '../../src/ui/terminal/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A TerminalPresenter on a `columns` × `rows` in-memory terminal without colour (opening a browser fails the test). */
export function terminalRig(size: { columns: number; rows: number } = { columns: 120, rows: 40 }) {
  const input = new PassThrough();
  let drawn = '';
  const output = new Writable({
    write(c, _e, cb) {
      drawn += c.toString();
      cb();
    },
  }) as Writable & { columns: number; rows: number };
  output.columns = size.columns;
  output.rows = size.rows;
  const presenter = new TerminalPresenter({ input, output, colour: false, openUrl: () => assert.fail('must not open a browser') });
  return {
    presenter,
    /** Everything written, escape sequences included. */
    raw: () => drawn,
    /** What was written without parley's own CSI sequences (cursor moves, clears). */
    screen: () => drawn.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ''),
    /** Types keys, one chunk at a time, after the prompt has rendered (60 ms before each). */
    async type(...chunks: string[]) {
      for (const c of chunks) {
        await sleep(60);
        input.write(c);
      }
    },
  };
}

/** A form request view for `schema` (id r1, server srv), with `extra` fields over the defaults. */
export const formView = (schema: Record<string, unknown>, extra: Partial<InputRequestView> = {}): InputRequestView => ({
  id: 'r1',
  server: 'srv',
  message: 'Please answer',
  mode: 'form',
  schema: schema as unknown as RequestedSchema,
  prefill: {},
  prefillSources: {},
  repairs: [],
  warnings: [],
  sensitiveFields: [],
  round: 1,
  ...extra,
});
