// Fuzzing (issue 7): at least 10,000 generated schemas, results and root lists through the pure
// functions, and generated elicitations through a live server ↔ host-broker pair. No input may crash
// anything or leave an unhandled rejection; every input is accepted or refused with a clear error.
// PARLEY_FUZZ_RUNS scales the pure runs (default 10000) and the live runs (default 300).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Client } from '@modelcontextprotocol/client';
import { McpServer, InMemoryTransport } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import {
  applyDefaults,
  coerceFormValues,
  fileUriToPath,
  lintRequestedSchema,
  normalizeRequestedSchema,
  normalizeRootUri,
  readElicitResult,
  validateContent,
  type RequestedSchema,
} from '../src/schema/index.js';
import { parseRootsList } from '../src/server/roots.js';
import { ElicitationBroker } from '../src/host/broker/index.js';
import type { Presenter, PresenterAnswer, InputRequestView } from '../src/host/presenter.js';

const RUNS = Number(process.env.PARLEY_FUZZ_RUNS ?? 10_000);
const LIVE = Math.max(50, Math.round(RUNS / 33));

const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => void unhandled.push(e);
process.on('unhandledRejection', onUnhandled);
after(() => {
  process.off('unhandledRejection', onUnhandled);
  assert.deepEqual(unhandled, [], 'no unhandled rejections anywhere in the fuzz run');
});

const word = fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/);
const keyword = fc.constantFrom(
  'type',
  'title',
  'description',
  'enum',
  'enumNames',
  'oneOf',
  'anyOf',
  'items',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'format',
  'default',
  '$ref',
  'pattern',
  'const',
  'properties',
  '__proto__',
  'constructor',
);
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('string', 'number', 'integer', 'boolean', 'array', 'object', 'null', 'email', 'date', 'date-time', 'uri'),
);
const property = fc.oneof(
  fc.dictionary(keyword, value, { maxKeys: 6 }),
  fc.record(
    { type: fc.constantFrom('string', 'number', 'integer', 'boolean'), title: fc.string(), default: value },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constant('array'),
      items: fc.oneof(
        fc.record({ type: fc.constant('string'), enum: fc.array(fc.string(), { maxLength: 4 }) }),
        fc.record({ anyOf: fc.array(fc.record({ const: fc.string(), title: fc.string() }), { maxLength: 4 }) }),
      ),
      minItems: fc.integer({ min: -1, max: 5 }),
    },
    { requiredKeys: ['type', 'items'] },
  ),
);
/** Schemas from plausible to hostile. */
const schema = fc.oneof(
  fc.record(
    {
      type: fc.constant('object'),
      properties: fc.dictionary(fc.oneof(word, fc.constantFrom('__proto__', 'constructor', 'a/b~c')), property, { maxKeys: 5 }),
      required: fc.array(fc.oneof(word, fc.constantFrom('constructor', 'toString')), { maxLength: 3 }),
    },
    { requiredKeys: ['type', 'properties'] },
  ),
  fc.dictionary(fc.constantFrom('type', 'properties', 'required', '$schema', '$defs', 'title'), value, { maxKeys: 5 }),
  fc.anything(),
);
const result = fc.oneof(
  fc.record(
    {
      action: fc.oneof(fc.constantFrom('accept', 'decline', 'cancel', 'reject', ''), fc.anything()),
      content: fc.oneof(
        fc.constant(null),
        fc.dictionary(word, fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.array(fc.string()), fc.anything()), { maxKeys: 4 }),
      ),
    },
    { requiredKeys: [] },
  ),
  fc.anything(),
);

test(`${RUNS} generated schemas through lint, normalise, validate and the form helpers: never a throw`, () => {
  fc.assert(
    fc.property(schema, fc.anything(), (s, content) => {
      for (const revision of ['2025-06-18', '2025-11-25', '2026-07-28'] as const) {
        const issues = lintRequestedSchema(s, { revision });
        for (const i of issues) assert.ok(typeof i.message === 'string' && i.message.length > 0 && typeof i.path === 'string');
      }
      const n = normalizeRequestedSchema(s);
      if (!n.ok) {
        assert.ok(n.issues.length > 0 && n.issues.every((i) => i.severity === 'error' && i.message.length > 0));
        return;
      }
      assert.deepEqual(
        lintRequestedSchema(n.schema).filter((i) => i.severity === 'error'),
        [],
        'normalised output lints clean',
      );
      const v = validateContent(n.schema, content);
      assert.ok(v.ok || v.issues.length > 0);
      const filled = applyDefaults(n.schema, {});
      assert.ok(validateContent(n.schema, filled).ok || Object.keys(n.schema.properties).length > 0);
      coerceFormValues(
        n.schema,
        typeof content === 'object' && content !== null && !Array.isArray(content) ? (content as Record<string, unknown>) : { x: content },
      );
    }),
    { numRuns: RUNS },
  );
});

test(`${RUNS} generated results through readElicitResult: accept, decline, cancel, or -32602 with a message`, () => {
  fc.assert(
    fc.property(result, fc.option(schema, { nil: undefined }), (raw, s) => {
      const n = s === undefined ? undefined : normalizeRequestedSchema(s);
      const r = readElicitResult(raw, n?.ok ? n.schema : undefined);
      if (r.ok) assert.ok(['accept', 'decline', 'cancel'].includes(r.result.action));
      else assert.ok(r.code === -32602 && r.message.length > 0);
    }),
    { numRuns: RUNS },
  );
});

test(`${RUNS} generated root lists and URIs: bad entries dropped one by one, URIs decoded or refused with UriError`, () => {
  const uri = fc.oneof(
    fc.webUrl(),
    fc.string(),
    fc.constantFrom(
      'file:///c%3A/temp',
      'file:///srv/data',
      'file://server/share/x',
      'file:///a/%2e%2e/b',
      'file:///%ZZ',
      'file://',
      'https://example.com/repo',
    ),
    fc.string().map((s) => `file:///${encodeURIComponent(s)}`),
  );
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.record({ uri, name: fc.option(fc.string(), { nil: undefined }) }, { requiredKeys: ['uri'] }), fc.anything()), {
        maxLength: 6,
      }),
      uri,
      (list, u) => {
        const parsed = parseRootsList({ roots: list });
        assert.equal(parsed.roots.length + parsed.dropped.length, list.length, 'every entry is kept or dropped with a reason');
        for (const r of parsed.roots) assert.ok(r.uri.startsWith('file://'));
        for (const platform of ['posix', 'win32'] as const) {
          try {
            fileUriToPath(u, { platform });
          } catch (e) {
            assert.equal((e as Error).name, 'UriError', String(e));
          }
        }
        try {
          normalizeRootUri(u);
        } catch (e) {
          assert.equal((e as Error).name, 'UriError', String(e));
        }
      },
    ),
    { numRuns: RUNS },
  );
});

/** A person who answers at random: accept with the prefill or with junk, decline, or cancel. */
function randomPresenter(pick: () => number): Presenter {
  return {
    interactive: true,
    async present(p: InputRequestView): Promise<PresenterAnswer> {
      const r = pick();
      if (r < 0.2) return { action: 'decline' };
      if (r < 0.35) return { action: 'cancel' };
      if (r < 0.5) return { action: 'accept', content: { junk: r, [Object.keys(p.schema?.properties ?? {})[0] ?? 'x']: { nested: true } } };
      return { action: 'accept', content: p.schema ? applyDefaults(p.schema as RequestedSchema, p.prefill) : undefined };
    },
    notify() {},
  };
}

test(`${LIVE} generated elicitations through a live server ↔ host-broker pair: every call ends with an answer or a clear error`, async () => {
  let seed = 7;
  const pick = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const broker = new ElicitationBroker({
    presenter: randomPresenter(pick),
    policy: { ratePerMinute: 1e9, burst: 1e9, maxPendingPerServer: 1000, sensitiveFields: 'decline', urlSchemes: ['https'] },
  });
  const server = new McpServer({ name: 'fuzz', version: '1' });
  // Raw send: the SDK's elicitInput would check the schema first; the broker must face the raw input.
  server.registerTool('ask', { inputSchema: z.object({ params: z.string() }) }, async ({ params }, ctx) => {
    try {
      const r = await ctx.mcpReq.send({ method: 'elicitation/create', params: JSON.parse(params) } as never, { timeout: 10_000 });
      return { content: [{ type: 'text', text: JSON.stringify(r) }] };
    } catch (e) {
      return { isError: true, content: [{ type: 'text', text: `error ${(e as { code?: unknown }).code}: ${(e as Error).message}` }] };
    }
  });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'fuzz-host', version: '1' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(
    'elicitation/create',
    async (req, c) =>
      (await broker.elicit(req.params as never, {
        server: 'fuzz',
        era: 'legacy',
        revision: '2025-11-25',
        signal: c.mcpReq.signal,
        requestId: c.mcpReq.id,
      })) as never,
  );
  await server.connect(st);
  await client.connect(ct);
  const request = fc.oneof(
    fc.record({ message: fc.string(), requestedSchema: schema }),
    fc.record(
      {
        mode: fc.constantFrom('url', 'form', 'bogus'),
        message: fc.string(),
        url: fc.oneof(fc.webUrl(), fc.constantFrom('javascript:alert(1)', 'file:///etc/passwd', 'http://xn--80ak6aa92e.com/')),
        elicitationId: fc.string(),
      },
      { requiredKeys: ['mode', 'message'] },
    ),
  );
  try {
    await fc.assert(
      fc.asyncProperty(request, async (params) => {
        const r = await client.callTool({ name: 'ask', arguments: { params: JSON.stringify(params) } });
        const text = (r.content as Array<{ text: string }>)[0].text;
        if (r.isError) assert.match(text, /^error (-?\d+|undefined): ./, 'a refusal carries a code and a message');
        else assert.ok(['accept', 'decline', 'cancel'].includes(JSON.parse(text).action), text);
      }),
      { numRuns: LIVE },
    );
  } finally {
    await client.close();
    await server.close();
  }
});
