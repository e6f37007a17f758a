// Session ids that name their replica (src/gateway/sessions-id.ts): only holders of the secret can mint
// one, a changed byte or another secret is refused, hostile input is refused before parsing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_SESSION_ID_CHARS, openSessionId, sealSessionId } from '../src/gateway/sessions-id.js';

const SECRET = 'a shared secret of at least 32 bytes!';
const owner = { replica: 'r-1', url: 'http://127.0.0.1:8701/mcp' };

describe('sealed session ids', () => {
  it('round-trips the owner; every id is new; visible ASCII only', () => {
    const a = sealSessionId(SECRET, owner);
    const b = sealSessionId(SECRET, owner);
    assert.notEqual(a, b);
    assert.deepEqual(openSessionId(SECRET, a), owner);
    assert.match(a, /^[\x21-\x7e]+$/);
    assert.ok(a.length <= MAX_SESSION_ID_CHARS);
  });

  it('refuses another secret, a changed payload, a changed MAC, plain UUIDs and oversized input', () => {
    const sid = sealSessionId(SECRET, owner);
    assert.equal(openSessionId('another secret of at least 32 bytes!!', sid), undefined);
    const [head, payload, nonce, mac] = sid.split('.');
    const evil = Buffer.from(JSON.stringify({ r: 'r-1', a: 'http://127.0.0.1:1/mcp' })).toString('base64url');
    assert.equal(openSessionId(SECRET, `${head}.${evil}.${nonce}.${mac}`), undefined);
    assert.equal(openSessionId(SECRET, `${head}.${payload}.${nonce}.${'A'.repeat(22)}`), undefined);
    assert.equal(openSessionId(SECRET, crypto.randomUUID()), undefined);
    assert.equal(openSessionId(SECRET, `ps1.${'A'.repeat(MAX_SESSION_ID_CHARS)}.${nonce}.${mac}`), undefined);
    // Linear time on bounded hostile input.
    const t0 = performance.now();
    for (let i = 0; i < 1000; i++) openSessionId(SECRET, `ps1.${'A'.repeat(400)}.`);
    assert.ok(performance.now() - t0 < 1000);
  });
});
