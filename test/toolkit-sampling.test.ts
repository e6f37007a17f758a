// Issue 14 item 7, toolkit side: dual-era ctx.sample() (pushed sampling/createMessage on 2025 eras, an
// input request on 2026-07-28), several kinds in one input_required round (ctx.all), tool-named input
// keys, and ctx.supports(). Real SDK v2 clients; the raw 2026-07-28 rounds are read with autoFulfill off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { legacyPair, modernPair, text } from './fixtures/toolkit/peers.js';

const ALL = { elicitation: { form: {}, url: {} }, roots: { listChanged: true }, sampling: {} };
const accept = () => ({ action: 'accept', content: { name: 'Ada' } });

for (const [era, pair] of Object.entries({ '2025-11-25': legacyPair, '2026-07-28': modernPair })) {
  test(`${era}: ctx.sample reaches the client's sampling handler and returns its result`, async () => {
    const p = await pair(accept, { caps: ALL });
    try {
      assert.equal(text(await p.client.callTool({ name: 'sample', arguments: {} })), 'model:re:A haiku, please');
    } finally {
      await p.close();
    }
  });

  test(`${era}: ctx.sample without the sampling capability sends nothing and names what is missing`, async () => {
    const p = await pair(accept, { caps: { elicitation: {} } });
    try {
      const r: any = await p.client.callTool({ name: 'sample', arguments: {} }).catch((e) => e);
      // 2026-07-28: JSON-RPC -32021 with requiredCapabilities; 2025 eras: an isError result.
      if (era === '2026-07-28') assert.equal(r.code, -32021, String(r));
      else assert.equal(r.isError, true);
      assert.match(era === '2026-07-28' ? r.message : text(r), /no sampling capability/);
    } finally {
      await p.close();
    }
  });

  test(`${era}: ctx.all asks a form, the model and the roots; ctx.supports reads the declared capabilities`, async () => {
    const p = await pair(accept, { caps: ALL });
    try {
      assert.equal(text(await p.client.callTool({ name: 'gather', arguments: {} })), 'Ada|re:A haiku, please|file:///tmp/ws');
      assert.equal(text(await p.client.callTool({ name: 'caps', arguments: {} })), 'elicitation,elicitation.url,sampling,roots');
    } finally {
      await p.close();
    }
    const q = await pair(accept, { caps: { sampling: {} } });
    try {
      assert.equal(text(await q.client.callTool({ name: 'caps', arguments: {} })), 'sampling');
    } finally {
      await q.close();
    }
  });

  test(`${era}: an input key of the toolkit's own form, or one used twice, is refused naming it`, async () => {
    const p = await pair(() => ({ action: 'accept', content: {} }), { caps: ALL });
    try {
      const own: any = await p.client.callTool({ name: 'badkey', arguments: { key: 'e7' } });
      assert.equal(own.isError, true);
      assert.match(text(own), /input key "e7" is not allowed/);
      const twice: any = await p.client.callTool({ name: 'badkey', arguments: { key: 'one' } });
      assert.equal(twice.isError, true);
      assert.match(text(twice), /input key "same" is used twice in one call/);
    } finally {
      await p.close();
    }
  });
}

test("2026-07-28: ctx.all puts every kind in ONE input_required round under the tool's keys; one retry completes it", async () => {
  const p = await modernPair(accept, { caps: ALL, autoFulfill: false });
  try {
    const r1: any = await p.client.callTool({ name: 'gather', arguments: {} }, { allowInputRequired: true } as never);
    assert.equal(r1.resultType, 'input_required');
    assert.deepEqual(Object.keys(r1.inputRequests).sort(), ['client_roots', 'poem', 'user_name']);
    assert.deepEqual(Object.fromEntries(Object.entries(r1.inputRequests).map(([k, v]: [string, any]) => [k, v.method])), {
      user_name: 'elicitation/create',
      poem: 'sampling/createMessage',
      client_roots: 'roots/list',
    });
    const inputResponses = {
      user_name: { action: 'accept', content: { name: 'Lin' } },
      poem: { role: 'assistant', model: 'm', content: { type: 'text', text: 'old pond' } },
      client_roots: { roots: [{ uri: 'file:///srv/a' }] },
    };
    const r2: any = await p.client.callTool(
      { name: 'gather', arguments: {}, inputResponses, requestState: r1.requestState } as never,
      { allowInputRequired: true } as never,
    );
    assert.equal(text(r2), 'Lin|old pond|file:///srv/a');
    // A sampling answer that is not a CreateMessageResult is -32602 naming the key, not "no answer".
    const bad = await p.client
      .callTool(
        { name: 'gather', arguments: {}, inputResponses: { ...inputResponses, poem: { nope: 1 } }, requestState: r1.requestState } as never,
        { allowInputRequired: true } as never,
      )
      .catch((e) => e);
    assert.equal((bad as any).code, -32602);
    assert.match(String((bad as any).message), /inputResponses\.poem: expected a sampling\/createMessage result/);
  } finally {
    await p.close();
  }
});
