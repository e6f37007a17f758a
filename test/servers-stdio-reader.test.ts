// The stdio line reader's state machine (stdio-lines.ts) in isolation: lines are the same however the
// bytes are chunked (CRLF, UTF-8 split inside a character, blank lines), a line over the cap keeps only
// its ends and its length and the next line is read whole, and an oversized message's id and method are
// read only from its top level. Reading a 4 MiB line in 1-byte… 64 KiB chunks stays linear.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LineReader, peekMembers, type Line } from '../src/host/servers/stdio-lines.js';

function readAll(bytes: Buffer, chunk: number, max = 1024, peek = 16): Line[] {
  const r = new LineReader(max, peek);
  const out: Line[] = [];
  for (let i = 0; i < bytes.length; i += chunk) r.push(bytes.subarray(i, i + chunk), (l) => out.push(l));
  return out;
}

describe('LineReader', () => {
  it('yields the same lines for every chunking: CRLF, split UTF-8, blank lines skipped', () => {
    const text = '{"a":"北京"}\r\n\n  \n{"b":"深圳🙂"}\n{"c":1}\n';
    const want = [
      { kind: 'line', text: '{"a":"北京"}' },
      { kind: 'line', text: '{"b":"深圳🙂"}' },
      { kind: 'line', text: '{"c":1}' },
    ];
    const bytes = Buffer.from(text);
    for (let chunk = 1; chunk <= bytes.length; chunk++) assert.deepEqual(readAll(bytes, chunk), want, `chunk ${chunk}`);
  });

  it('keeps only the ends of a line over the cap, then reads the next line whole', () => {
    const long = `{"x":"${'y'.repeat(3000)}","id":5}`;
    const bytes = Buffer.from(`${long}\n{"ok":true}\n`);
    for (const chunk of [1, 7, 1000, bytes.length]) {
      const [over, next] = readAll(bytes, chunk, 1024, 16);
      assert.deepEqual(over, { kind: 'oversized', bytes: long.length, head: long.slice(0, 16), tail: long.slice(-16) }, `chunk ${chunk}`);
      assert.deepEqual(next, { kind: 'line', text: '{"ok":true}' });
    }
  });

  it('a line of exactly the cap is read; one byte more is not', () => {
    const at = `"${'a'.repeat(1022)}"`;
    assert.equal(readAll(Buffer.from(`${at}\n`), 100)[0].kind, 'line');
    assert.equal(readAll(Buffer.from(`${at} \n`), 100)[0].kind, 'oversized');
  });

  it('reads a 4 MiB line in linear time whatever the chunk size', () => {
    const line = Buffer.from(`{"p":"${'z'.repeat(4 * 1024 * 1024)}"}\n`);
    const ms = (chunk: number) => {
      const t0 = performance.now();
      const [l] = readAll(line, chunk, 16 * 1024 * 1024, 4096);
      assert.equal(l.kind, 'line');
      return performance.now() - t0;
    };
    ms(65_536);
    const big = ms(65_536);
    const small = ms(1024); // 4096 chunks: a reader that re-joined the buffer per chunk would take seconds
    assert.ok(small < Math.max(500, big * 50), `1 KiB chunks ${small.toFixed(0)} ms vs 64 KiB chunks ${big.toFixed(0)} ms`);
  });
});

describe('peekMembers', () => {
  const pad = 'Q'.repeat(50);
  it('reads a top-level id and method at either end', () => {
    assert.deepEqual(peekMembers(`{"method":"elicitation/create","params":{"pad":"${pad}`, `${pad}"},"jsonrpc":"2.0","id":"big"}`), {
      method: 'elicitation/create',
      id: 'big',
    });
    assert.deepEqual(peekMembers(`{"jsonrpc":"2.0","id":99,"method":"x","params":{"a":"${pad}`, `${pad}"}}`), { id: 99, method: 'x' });
  });

  it('never takes a nested or quoted "id" or "method" for the message', () => {
    assert.deepEqual(peekMembers(`{"params":{"id":1,"method":"m","pad":"${pad}`, `${pad}","id":2}}`), {});
    assert.deepEqual(peekMembers(`{"x":"\\"id\\":3,\\"method\\":\\"m\\",${pad}`, `${pad}\\",\\"id\\":4}"}`), {});
    assert.deepEqual(peekMembers(`["${pad}`, `${pad}"]`), {});
    assert.deepEqual(peekMembers(`{"id":1.5,"method":7,"p":"${pad}`, `${pad}"}`), {});
  });

  it('stays fast on a peek full of commas and brackets', () => {
    const nasty = `{"a":[${'[1,'.repeat(1300)}`;
    const t0 = performance.now();
    for (let i = 0; i < 20; i++) peekMembers(nasty.slice(0, 4096), `${',{"a":1}'.repeat(500)}}`.slice(-4096));
    assert.ok(performance.now() - t0 < 2000);
  });
});
