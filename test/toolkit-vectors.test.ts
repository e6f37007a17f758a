// Regression vectors R3-R7, S1, S8, Q1, Q3, Q4 and tampered requestState, on both eras.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { legacyPair, modernPair, text } from './fixtures/toolkit/peers.js';
import { verifies } from './helpers/verifies.js';

const callRaw = (c: any, name: string, extra: Record<string, unknown> = {}) =>
  c.callTool({ name, arguments: {}, ...extra }, { allowInputRequired: true });

test('R3 legacy: accept without the required field ends the call with an error naming it', async () => {
  const p = await legacyPair(() => ({ action: 'accept', content: {} }));
  try {
    const r: any = await p.client.callTool({ name: 'raw', arguments: {} });
    assert.equal(r.isError, true);
    assert.match(text(r), /"name" is required/);
    verifies('ELIC-VALIDATE-BOTH-SIDES');
  } finally {
    await p.close();
  }
});

test('R5/R6/R7 legacy: wrong types, coercion and extra fields are refused with the field and rule named', async () => {
  const answers = [{ name: 42 }, { name: 'Ada', age: -5 }, { name: 'Ada', age: 1.5 }, { name: 'Ada', admin: true }];
  const rules = [
    /"name" must be of type string/,
    /"age" must be at least 0/, // the minimum rule in words (issue 15)
    /"age" must be an integer/,
    /"admin" was not asked for/,
  ];
  let i = 0;
  const p = await legacyPair(() => ({ action: 'accept', content: answers[i] }));
  try {
    for (; i < answers.length; i++) {
      const r: any = await p.client.callTool({ name: 'greet', arguments: {} });
      assert.equal(r.isError, true, `case ${i}`);
      assert.match(text(r), rules[i]);
    }
  } finally {
    await p.close();
  }
  const b = await legacyPair(() => ({ action: 'accept', content: { agree: 'true' } }));
  try {
    const r: any = await b.client.callTool({ name: 'agree', arguments: {} });
    assert.equal(r.isError, true);
    assert.match(text(r), /"agree" must be (of type )?(a )?boolean/); // no silent coercion (R6)
  } finally {
    await b.close();
  }
});

test('R3 modern: an invalid answer is answered with input_required again for the same key', async () => {
  const p = await modernPair(() => ({ action: 'accept' }), { autoFulfill: false });
  try {
    const r1: any = await callRaw(p.client, 'raw');
    assert.equal(r1.resultType, 'input_required');
    assert.deepEqual(Object.keys(r1.inputRequests), ['e0']);
    assert.equal(r1.inputRequests.e0.method, 'elicitation/create');
    verifies('MRTR-INPUT-REQUESTS-SHAPE');
    const r2: any = await callRaw(p.client, 'raw', {
      inputResponses: { e0: { action: 'accept', content: {} } },
      requestState: r1.requestState,
    });
    assert.equal(r2.resultType, 'input_required');
    verifies('MRTR-SERVER-REASK');
    assert.match(r2.inputRequests.e0.params.message, /"name" is required/);
    const r3: any = await callRaw(p.client, 'raw', {
      inputResponses: { e0: { action: 'accept', content: { name: 'Ada' } } },
      requestState: r2.requestState,
    });
    assert.equal(JSON.parse(text(r3)).content.name, 'Ada');
  } finally {
    await p.close();
  }
});

test('R4 modern: unknown action is a JSON-RPC -32602 naming the allowed actions', async () => {
  const p = await modernPair(() => ({ action: 'accept' }), { autoFulfill: false });
  try {
    const r1: any = await callRaw(p.client, 'raw');
    await assert.rejects(
      callRaw(p.client, 'raw', { inputResponses: { e0: { action: 'reject' } }, requestState: r1.requestState }),
      (e: any) => e.code === -32602 && /accept, decline, cancel/.test(e.message),
    );
  } finally {
    await p.close();
  }
});

test('R4 legacy, SDK v2 client: its own check refuses the unknown action; the tool call ends with an error', async () => {
  const p = await legacyPair(() => ({ action: 'reject' }));
  try {
    const r: any = await p.client.callTool({ name: 'greet', arguments: {} });
    assert.equal(r.isError, true);
    assert.match(text(r), /client answered the elicitation with JSON-RPC error/);
  } finally {
    await p.close();
  }
});

test('tampered, foreign-tool, foreign-key and expired requestState get JSON-RPC -32602 naming the reason', async () => {
  const { createShared } = await import('../src/server/index.js');
  // The SDK codec counts expiry in whole seconds of Date.now: a 1000 ms state is refused 2 s after minting.
  const p = await modernPair(() => ({ action: 'accept' }), { autoFulfill: false, extra: { requestStateTtlMs: 1000 } });
  const other = await modernPair(() => ({ action: 'accept' }), { autoFulfill: false, shared: createShared() });
  try {
    const r1: any = await callRaw(p.client, 'raw');
    const s: string = r1.requestState;
    const refused = (reason: string) => (e: any) => e.code === -32602 && e.message.includes(`Invalid requestState (${reason})`);
    const retry = (c: any, name: string, state: string, args: Record<string, unknown> = {}) =>
      callRaw(c, name, { arguments: args, inputResponses: { e0: { action: 'decline' } }, requestState: state });
    assert.equal(JSON.parse(text(await retry(p.client, 'raw', s))).action, 'decline', 'the untouched state is accepted until it expires');
    const tampered = s.slice(0, -3) + (s.endsWith('A') ? 'BBB' : 'AAA');
    await assert.rejects(retry(p.client, 'raw', tampered), refused('mac'));
    verifies('MRTR-STATE-INTEGRITY');
    await assert.rejects(retry(p.client, 'greet', s), refused('tool')); // bound to the tool name
    await assert.rejects(retry(p.client, 'two', s, { x: 2 }), refused('tool'));
    await assert.rejects(retry(other.client, 'raw', s), refused('mac'), 'a state minted with another key is foreign');
    await assert.rejects(retry(p.client, 'raw', 'p1.e30.AAAA'), refused('malformed'));
    await new Promise((r) => setTimeout(r, 2_100));
    await assert.rejects(retry(p.client, 'raw', s), refused('expired'));
  } finally {
    await p.close();
    await other.close();
  }
});

test('a requestState sealed with another key (a restart, or createShared() inside the factory) is refused with a message naming the fix', async () => {
  const { createShared } = await import('../src/server/index.js');
  // Two instances with their own Shared: what a restart, a second process, or a factory that calls
  // createShared() per request produces (each 2026-07-28 request gets a fresh instance).
  const first = await modernPair(() => ({ action: 'accept' }), { autoFulfill: false, shared: createShared() });
  const second = await modernPair(() => ({ action: 'accept' }), { autoFulfill: false, shared: createShared() });
  try {
    const r1: any = await callRaw(first.client, 'raw');
    await assert.rejects(
      callRaw(second.client, 'raw', { inputResponses: { e0: { action: 'decline' } }, requestState: r1.requestState }),
      (e: any) => {
        assert.equal(e.code, -32602);
        assert.match(e.message, /Invalid requestState \(mac\)/);
        assert.match(e.message, /the server restarted/);
        assert.match(e.message, /outside the factory/);
        assert.match(e.message, /createShared\(\{ requestStateKey \}\)/);
        return true;
      },
    );
  } finally {
    await first.close();
    await second.close();
  }
});

test('requestState is bound to the arguments digest', async () => {
  const p = await modernPair(() => ({ action: 'accept' }), { autoFulfill: false });
  try {
    const r1: any = await p.client.callTool({ name: 'two', arguments: { x: 1 } }, { allowInputRequired: true });
    await assert.rejects(
      p.client.callTool(
        {
          name: 'two',
          arguments: { x: 2 },
          inputResponses: { e0: { action: 'accept', content: { first: 'a' } } },
          requestState: r1.requestState,
        } as any,
        { allowInputRequired: true },
      ),
      (e: any) => e.code === -32602 && /arguments/.test(e.message),
    );
  } finally {
    await p.close();
  }
});

for (const era of ['legacy', 'modern'] as const) {
  const pair = era === 'legacy' ? legacyPair : modernPair;
  test(`Q4 ${era}: no elicitation capability → nothing sent, isError lists the fields and how to supply them`, async () => {
    let asked = 0;
    const p = await pair(
      () => {
        asked++;
        return { action: 'cancel' };
      },
      { caps: {} },
    );
    try {
      if (era === 'legacy') {
        const r: any = await p.client.callTool({ name: 'greet', arguments: {} });
        assert.equal(r.isError, true);
        assert.match(text(r), /name \(Your name\)/);
        assert.match(text(r), /tool arguments or in the server configuration/);
      } else {
        // 2026-07-28: a missing client capability is MissingRequiredClientCapabilityError -32021.
        await assert.rejects(p.client.callTool({ name: 'greet', arguments: {} }), (e: any) => {
          assert.equal(e.code, -32021);
          verifies('MRTR-MISSING-CAPABILITY');
          assert.deepEqual(e.data?.requiredCapabilities, { elicitation: { form: {} } });
          assert.match(e.message, /name \(Your name\)/);
          assert.match(e.message, /tool arguments or in the server configuration/);
          return true;
        });
      }
      assert.equal(asked, 0);
      verifies('ELIC-1125-NO-UNDECLARED-MODE');
    } finally {
      await p.close();
    }
  });
  test(`S1 ${era}: confirm sends an empty form; a plain empty form is refused`, async () => {
    const seen: any[] = [];
    const p = await pair((r) => {
      seen.push(r.params.requestedSchema);
      return { action: 'accept', content: {} };
    });
    try {
      assert.equal(text(await p.client.callTool({ name: 'confirm', arguments: {} })), 'confirmed:true');
      assert.deepEqual(seen[0].properties, {});
      const r: any = await p.client.callTool({ name: 'empty', arguments: {} });
      assert.equal(r.isError, true);
      assert.match(text(r), /ctx\.confirm/);
    } finally {
      await p.close();
    }
  });
  test(`S8 ${era}: a sensitive field is never sent in form mode; the error points to elicitUrl`, async () => {
    let asked = 0;
    const p = await pair(() => {
      asked++;
      return { action: 'cancel' };
    });
    try {
      const r: any = await p.client.callTool({ name: 'secret', arguments: {} });
      assert.equal(r.isError, true);
      assert.match(text(r), /"apiKey"/);
      assert.match(text(r), /ctx\.elicitUrl/);
      verifies('ELIC-NO-SENSITIVE-FORM');
      assert.equal(asked, 0);
    } finally {
      await p.close();
    }
  });
}

test('Q1 legacy: a slow human within elicitationTimeoutMs succeeds; beyond it the call ends with a clean timeout', async () => {
  let delay = 150;
  const p = await legacyPair(() => new Promise((r) => setTimeout(() => r({ action: 'accept', content: { name: 'Ada' } }), delay)), {
    extra: { elicitationTimeoutMs: 300 },
  });
  try {
    assert.equal(text(await p.client.callTool({ name: 'greet', arguments: {} })), 'hello Ada');
    verifies('TIMEOUT-HUMAN-PAUSE');
    delay = 450;
    const r: any = await p.client.callTool({ name: 'greet', arguments: {} });
    assert.equal(r.isError, true);
    assert.match(text(r), /within 300 ms/);
  } finally {
    await p.close();
  }
});

test('Q1 legacy: keep-alive progress lets a host with a short, progress-reset call timeout wait for a slow human', async () => {
  const slow = () => new Promise((r) => setTimeout(() => r({ action: 'accept', content: { name: 'Ada' } }), 600));
  const p = await legacyPair(slow, { extra: { progressIntervalMs: 100 } });
  try {
    let beats = 0;
    const r = await p.client.callTool(
      { name: 'greet', arguments: {} },
      { timeout: 300, resetTimeoutOnProgress: true, onprogress: () => void beats++ },
    );
    assert.equal(text(r), 'hello Ada');
    assert.ok(beats >= 3);
    verifies('TIMEOUT-HUMAN-PAUSE');
  } finally {
    await p.close();
  }
  const off = await legacyPair(slow, { extra: { progressIntervalMs: 0 } });
  try {
    // negative control: without keep-alive the same host times out
    await assert.rejects(
      off.client.callTool({ name: 'greet', arguments: {} }, { timeout: 300, resetTimeoutOnProgress: true, onprogress: () => undefined }),
    );
  } finally {
    await off.close();
  }
});

test('Q1: the default elicitation timeout is 30 minutes, not the SDK 60 s', async () => {
  const { createParleyServer, createShared } = await import('../src/server/index.js');
  const s = createParleyServer({ name: 'x', version: '1', shared: createShared() });
  assert.equal(s.settings.elicitationTimeoutMs, 30 * 60_000);
  assert.equal(createParleyServer({ name: 'x', version: '1', elicitationTimeoutMs: 5 }).settings.elicitationTimeoutMs, 5);
});

test('Q3 legacy: cancelling the tool call cancels the pending elicitation', async () => {
  let aborted!: () => void;
  const done = new Promise<void>((r) => (aborted = r));
  const ac = new AbortController();
  const p = await legacyPair(
    (_r, signal) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => {
          aborted();
          resolve({ action: 'cancel' });
        });
        setTimeout(() => ac.abort('user'), 20);
      }),
  );
  try {
    const call = p.client.callTool({ name: 'greet', arguments: {} }, { signal: ac.signal });
    await assert.rejects(call);
    await Promise.race([done, new Promise((_r, j) => setTimeout(() => j(new Error('elicitation not cancelled within 2 s')), 2000))]);
    verifies('CANCEL-SERVER-REQUEST');
  } finally {
    await p.close();
  }
});
