// URL-mode elicitation (2025-11-25 push + completion + -32042; 2026-07-28 input_required) and roots.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { legacyPair, modernPair, text } from './fixtures/toolkit/peers.js';
import { pollUntil, waitUntil } from './helpers/wait.js';
import { verifies } from './helpers/verifies.js';

test('URL mode legacy 2025-11-25: elicitationId, consent, and notifications/elicitation/complete', async () => {
  const seen: any[] = [];
  const completed: string[] = [];
  const p = await legacyPair((r) => {
    seen.push(r.params);
    return { action: 'accept' };
  });
  p.client.setNotificationHandler('notifications/elicitation/complete', (n: any) => void completed.push(n.params.elicitationId));
  try {
    assert.equal(text(await p.client.callTool({ name: 'login', arguments: {} })), 'accept:true:true');
    assert.equal(seen[0].mode, 'url');
    assert.equal(seen[0].url, 'https://example.com/connect');
    assert.equal(typeof seen[0].elicitationId, 'string');
    verifies('ELIC-1125-URL-ID');
    await waitUntil(() => completed.length > 0);
    assert.deepEqual(completed, [seen[0].elicitationId]);
    verifies('ELIC-1125-URL-COMPLETE');
  } finally {
    await p.close();
  }
});

test('URL mode legacy: requireUrlElicitation answers -32042 with the elicitation listed', async () => {
  const p = await legacyPair(() => ({ action: 'accept' }));
  try {
    await assert.rejects(p.client.callTool({ name: 'needlogin', arguments: {} }), (e: any) => {
      assert.equal(e.code, -32042);
      verifies('ELIC-1125-URL-REQUIRED-ERROR');
      const el = e.data.elicitations[0];
      assert.equal(el.mode, 'url');
      assert.equal(el.url, 'https://example.com/pay');
      assert.equal(typeof el.elicitationId, 'string');
      return true;
    });
  } finally {
    await p.close();
  }
});

test('URL mode legacy: a client with form-only elicitation gets nothing and an isError result', async () => {
  let asked = 0;
  const p = await legacyPair(
    () => {
      asked++;
      return { action: 'accept' };
    },
    { caps: { elicitation: {} } },
  );
  try {
    const r: any = await p.client.callTool({ name: 'login', arguments: {} });
    assert.equal(r.isError, true);
    assert.match(text(r), /URL-mode/);
    assert.equal(asked, 0);
  } finally {
    await p.close();
  }
});

test('URL mode modern: input_required without elicitationId; the id stays stable through requestState', async () => {
  const p = await modernPair(() => ({ action: 'accept' }), { autoFulfill: false });
  try {
    const r1: any = await p.client.callTool({ name: 'needlogin', arguments: {} }, { allowInputRequired: true });
    assert.equal(r1.resultType, 'input_required');
    const req = r1.inputRequests.u0;
    assert.equal(req.params.mode, 'url');
    assert.equal(req.params.elicitationId, undefined);
    verifies('ELIC-2607-URL-NO-ID');
    const r2: any = await p.client.callTool(
      { name: 'needlogin', arguments: {}, inputResponses: { u0: { action: 'accept' } }, requestState: r1.requestState } as any,
      { allowInputRequired: true },
    );
    assert.equal(text(r2), 'url:accept');
  } finally {
    await p.close();
  }
  const auto = await modernPair(() => ({ action: 'accept' }));
  try {
    assert.equal(text(await auto.client.callTool({ name: 'login', arguments: {} })), 'accept:true:true');
  } finally {
    await auto.close();
  }
});

test('roots legacy: file:// only, cached per connection, invalidated by notifications/roots/list_changed', async () => {
  let lists = 0;
  const p = await legacyPair(() => ({ action: 'cancel' }));
  p.client.setRequestHandler('roots/list', async () => {
    lists++;
    return { roots: [{ uri: `file:///tmp/ws${lists}` }, { uri: 'https://bad.example/x' }] };
  });
  try {
    assert.equal(text(await p.client.callTool({ name: 'roots', arguments: {} })), 'file:///tmp/ws1');
    assert.equal(text(await p.client.callTool({ name: 'roots', arguments: {} })), 'file:///tmp/ws1');
    assert.equal(lists, 1);
    await p.client.sendRootsListChanged();
    await pollUntil(
      async () => text(await p.client.callTool({ name: 'roots', arguments: {} })),
      (t) => t === 'file:///tmp/ws2',
    );
    assert.equal(lists, 2);
    verifies('ROOTS-LIST-CHANGED-INVALIDATE');
  } finally {
    await p.close();
  }
});

for (const era of ['legacy', 'modern'] as const) {
  test(`roots ${era}: no roots capability fails fast without a request`, async () => {
    const p = await (era === 'legacy' ? legacyPair : modernPair)(() => ({ action: 'cancel' }), { caps: { elicitation: {} } });
    try {
      if (era === 'legacy') {
        const r: any = await p.client.callTool({ name: 'roots', arguments: {} });
        assert.equal(r.isError, true);
        assert.match(text(r), /roots capability/);
      } else {
        await assert.rejects(
          p.client.callTool({ name: 'roots', arguments: {} }),
          (e: any) => e.code === -32021 && e.data?.requiredCapabilities?.roots !== undefined && /roots capability/.test(e.message),
        );
      }
    } finally {
      await p.close();
    }
  });
}

test('roots modern: listRoots through input_required', async () => {
  const p = await modernPair(() => ({ action: 'cancel' }));
  try {
    assert.equal(text(await p.client.callTool({ name: 'roots', arguments: {} })), 'file:///tmp/ws');
    verifies('ROOTS-2607-INPUT-REQUEST');
  } finally {
    await p.close();
  }
  const m = await modernPair(() => ({ action: 'cancel' }), { autoFulfill: false });
  try {
    const r: any = await m.client.callTool({ name: 'roots', arguments: {} }, { allowInputRequired: true });
    assert.deepEqual(r.inputRequests.r0, { method: 'roots/list' });
    const done: any = await m.client.callTool(
      {
        name: 'roots',
        arguments: {},
        inputResponses: { r0: { roots: [{ uri: 'file:///a' }, { uri: 'https://x/y' }] } },
        requestState: r.requestState,
      } as any,
      { allowInputRequired: true },
    );
    assert.equal(text(done), 'file:///a'); // the non-file root is dropped, not the list
  } finally {
    await m.close();
  }
});

test('a roots/list that never answers times out naming rootsTimeoutMs, not elicitationTimeoutMs', async () => {
  const p = await legacyPair(() => ({ action: 'accept' }), { extra: { rootsTimeoutMs: 200 } });
  p.client.setRequestHandler('roots/list', () => new Promise<never>(() => undefined));
  try {
    const r: any = await p.client.callTool({ name: 'roots', arguments: {} });
    assert.equal(r.isError, true);
    assert.match(text(r), /no answer to the roots\/list request within 200 ms \(raise rootsTimeoutMs on createParleyServer\)/);
    assert.doesNotMatch(text(r), /elicitationTimeoutMs/);
  } finally {
    await p.close();
  }
});
