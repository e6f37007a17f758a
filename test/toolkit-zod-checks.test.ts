// Issue 12 item 3: zod checks the wire form cannot express (z.email()'s stricter pattern, a field
// .refine(), a cross-field .refine(), a refined configuration). An answer the wire schema accepts but
// the zod schema refuses is asked again with zod's reason on every era (docs/server.md "Answers"), up to
// maxReasks; a refine is never dropped. Real SDK v2 clients on 2025-11-25 (push) and 2026-07-28 (MRTR).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { legacyPair, modernPair, text } from './fixtures/toolkit/peers.js';
import type { Answer } from './fixtures/toolkit/peers.js';

const pairs = { '2025-11-25': legacyPair, '2026-07-28': modernPair } as const;

/** An answerer that gives `answers` in turn (the last one again when they run out) and records prompts. */
function script(...answers: unknown[]) {
  const seen: string[] = [];
  const answer: Answer = (r) => {
    seen.push(r.params.message);
    return answers[Math.min(seen.length - 1, answers.length - 1)];
  };
  return { seen, answer };
}

for (const [era, pair] of Object.entries(pairs)) {
  test(`${era}: an email the wire format accepts but z.email() refuses is asked again with the reason, then used`, async () => {
    const s = script({ action: 'accept', content: { email: 'a@b.c' } }, { action: 'accept', content: { email: 'ada@example.com' } });
    const p = await pair(s.answer);
    try {
      const r: any = await p.client.callTool({ name: 'signup', arguments: {} });
      assert.notEqual(r.isError, true, text(r));
      assert.equal(text(r), 'email:ada@example.com');
      assert.equal(s.seen.length, 2);
      assert.match(s.seen[1], /^Your email\?\n\nPlease correct: field "email": Invalid email address \(invalid_format email\)$/);
    } finally {
      await p.close();
    }
  });

  test(`${era}: field and cross-field .refine() are enforced by asking again with their messages, never dropped`, async () => {
    const s = script(
      { action: 'accept', content: { from: 5, to: 1, label: 'x' } },
      { action: 'accept', content: { from: 5, to: 1, label: 'w-1' } },
      { action: 'accept', content: { from: 1, to: 5, label: 'w-1' } },
    );
    const p = await pair(s.answer);
    try {
      const r: any = await p.client.callTool({ name: 'window', arguments: {} });
      assert.equal(text(r), 'window:w-1:1..5');
      assert.equal(s.seen.length, 3);
      // Every failing check is named at once: the field refine and the cross-field one.
      assert.match(
        s.seen[1],
        /Please correct: field "label": label must start with "w-" \(refine\); field "to": to is before from \(refine\)$/,
      );
      assert.match(s.seen[2], /Please correct: field "to": to is before from \(refine\)$/);
    } finally {
      await p.close();
    }
  });

  test(`${era}: a configuration with a .refine() is asked (no .pick() error) and re-asked when the refine fails`, async () => {
    const s = script({ action: 'accept', content: { from: 9, to: 2 } }, { action: 'accept', content: { from: 2, to: 9 } });
    const p = await pair(s.answer);
    try {
      const r: any = await p.client.callTool({ name: 'windowcfg', arguments: {} });
      assert.equal(text(r), 'windowcfg:2..9');
      assert.equal(s.seen.length, 2);
      assert.match(s.seen[1], /^Configure window\n\nPlease correct: field "to": to is before from \(refine\)$/);
    } finally {
      await p.close();
    }
  });

  test(`${era}: an answer that keeps failing a zod check ends the call after maxReasks, naming the field and the check`, async () => {
    const s = script({ action: 'accept', content: { email: 'a@b.c' } });
    const p = await pair(s.answer, { extra: { maxReasks: 2 } });
    try {
      const r: any = await p.client.callTool({ name: 'signup', arguments: {} });
      assert.equal(r.isError, true);
      assert.match(text(r), /invalid answer after 2 re-asks: field "email": Invalid email address \(invalid_format email\)/);
      assert.equal(s.seen.length, 3, 'asked once and re-asked twice');
    } finally {
      await p.close();
    }
  });
}
