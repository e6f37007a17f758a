// What an author reads when ctx.elicit is given a requestedSchema the spec forbids, on every revision:
// the error names the JSON pointer, the rule and the fix, and nothing reaches the client. Includes the
// two findings the lint only warns a host about but a strict client (the SDK v2 Client) refuses the
// whole request for: a string format outside email/uri/date/date-time, a multi-select without
// items.type "string" (before, the toolkit sent them and the call ended with the client's zod dump).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod/v4';
import { createParleyServer, ElicitationSchemaError } from '../src/server/index.js';
import { connect, TEST_REVISIONS } from '../src/testing/index.js';
import { lintRequestedSchema } from '../src/schema/index.js';

type Case = { schema: unknown; pointer: string; rule: RegExp; fix: RegExp; only?: string[] };
const form = (properties: Record<string, unknown>) => ({ type: 'object', properties });
const CASES: Record<string, Case> = {
  nestedRaw: {
    schema: form({ address: { type: 'object', properties: { city: { type: 'string' } } } }),
    pointer: '/properties/address',
    rule: /nested object/,
    fix: /fix: flatten it into separate top-level fields/,
  },
  nestedZod: {
    schema: z.object({ address: z.object({ city: z.string() }) }),
    pointer: '/properties/address',
    rule: /nested objects are not allowed/,
    fix: /flatten into top-level fields/,
  },
  formatRaw: {
    schema: form({ host: { type: 'string', format: 'hostname' } }),
    pointer: '/properties/host/format',
    rule: /format "hostname" is not one of email, uri, date, date-time/,
    fix: /fix: remove "format" or use one of the four/,
  },
  formatZod: {
    schema: z.object({ id: z.uuid() }),
    pointer: '/properties/id',
    rule: /string format "uuid" cannot be sent: a requestedSchema format is one of email, uri, date, date-time/,
    fix: /use z\.string\(\) and check the value with \.refine\(\)/,
  },
  dateZod: {
    schema: z.object({ when: z.date() }),
    pointer: '/properties/when',
    rule: /field "when" \(\/properties\/when\): Date cannot be represented in JSON Schema/,
    fix: /use z\.iso\.date\(\) \(format date\) or z\.iso\.datetime\(\{ offset: true \}\)/,
  },
  itemsTypeRaw: {
    schema: form({ tags: { type: 'array', items: { enum: ['a', 'b'] } } }),
    pointer: '/properties/tags/items/type',
    rule: /lacks "items.type": "string"/,
    fix: /fix: add "type": "string" to "items"/,
    only: ['2025-11-25', '2026-07-28'],
  },
  multiOn0618: {
    schema: form({ tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } }),
    pointer: '/properties/tags',
    rule: /multi-select enum, which revision 2025-06-18 does not have/,
    fix: /fix: for 2025-06-18 peers ask one boolean field per option/,
    only: ['2025-06-18'],
  },
  titledOn0618: {
    schema: form({ size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }] } }),
    pointer: '/properties/size',
    rule: /titled single-select enum \(oneOf\), which revision 2025-06-18 does not have/,
    fix: /fix: for 2025-06-18 peers send the values as "enum" and their titles as "enumNames"/,
    only: ['2025-06-18'],
  },
  defaultOn0618: {
    schema: form({ n: { type: 'integer', default: 3 } }),
    pointer: '/properties/n/default',
    rule: /"default" on an integer is not allowed in revision 2025-06-18/,
    fix: /fix: remove "default" for 2025-06-18 peers/,
    only: ['2025-06-18'],
  },
  sensitive: {
    schema: form({ apiKey: { type: 'string', title: 'API key' } }),
    pointer: '/properties/apiKey',
    rule: /must not ask for sensitive data: field "apiKey"/,
    fix: /fix: collect it out of band with ctx\.elicitUrl/,
    only: ['2025-11-25', '2026-07-28'],
  },
  sensitiveOn0618: {
    schema: form({ apiKey: { type: 'string', title: 'API key' } }),
    pointer: '/properties/apiKey',
    rule: /must not ask for sensitive data: field "apiKey"/,
    fix: /fix: take it outside elicitation \(server configuration, environment\): revision 2025-06-18 has no URL mode/,
    only: ['2025-06-18'],
  },
};

function factory() {
  const s = createParleyServer({ name: 'schema-errors', version: '1.0.0' });
  s.tool('ask', { description: 'Asks the named form', inputSchema: z.object({ name: z.string() }) }, async ({ name }, ctx) => {
    const r = await ctx.elicit('Form?', CASES[name].schema as never);
    return { content: [{ type: 'text', text: r.action }] };
  });
  return s;
}

for (const revision of TEST_REVISIONS) {
  test(`a forbidden requestedSchema names the pointer, the rule and the fix, and is never sent (${revision})`, async () => {
    const { client, asked, close } = await connect(factory, { revision, answer: { action: 'cancel' } });
    try {
      for (const [name, c] of Object.entries(CASES)) {
        if (c.only && !c.only.includes(revision)) continue;
        const r = await client.callTool({ name: 'ask', arguments: { name } });
        const text = (r.content as Array<{ text: string }>)[0].text;
        assert.equal(r.isError, true, `${name}: ${text}`);
        assert.ok(text.includes(c.pointer), `${name}: no pointer ${c.pointer} in: ${text}`);
        assert.match(text, c.rule, name);
        assert.match(text, c.fix, name);
      }
      assert.equal(asked.length, 0, 'nothing reached the client');
    } finally {
      await close();
    }
  });
}

test('the lint fix for a secret in a form points to URL mode only where the revision has it', () => {
  const schema = form({ password: { type: 'string' } });
  const fixOf = (revision: (typeof TEST_REVISIONS)[number]) =>
    lintRequestedSchema(schema, { revision }).find((i) => i.code === 'sensitive-field')?.fix;
  assert.match(fixOf('2025-06-18') ?? '', /^revision 2025-06-18 has no URL mode: take credentials .* outside elicitation/);
  assert.equal(fixOf('2025-11-25'), 'use URL-mode elicitation for credentials and payment data');
  assert.equal(fixOf('2026-07-28'), 'use URL-mode elicitation for credentials and payment data');
});

test('every lint finding on a forbidden schema carries a pointer and a fix, on each revision', () => {
  for (const revision of TEST_REVISIONS)
    for (const [name, c] of Object.entries(CASES)) {
      if (c.schema instanceof z.ZodType) continue;
      const issues = lintRequestedSchema(c.schema, { revision });
      for (const i of issues) {
        assert.ok(i.path.startsWith('/properties/'), `${revision} ${name}: ${JSON.stringify(i)}`);
        assert.ok(i.fix && i.fix.length > 0, `${revision} ${name}: no fix: ${JSON.stringify(i)}`);
      }
    }
});

test('a zod schema the wire cannot carry gives its issue as data too (code, pointer), on every revision', async () => {
  const factory = () => {
    const s = createParleyServer({ name: 'schema-issues', version: '1.0.0' });
    s.tool('ask', { description: 'Asks a nested form', inputSchema: z.object({}) }, async (_args, ctx) => {
      try {
        await ctx.elicit('Form?', z.object({ address: z.object({ city: z.string() }) }));
        return { content: [{ type: 'text', text: 'sent' }] };
      } catch (e) {
        if (!(e instanceof ElicitationSchemaError)) throw e;
        return {
          content: [{ type: 'text', text: JSON.stringify(e.issues.map(({ code, path, severity }) => ({ code, path, severity }))) }],
        };
      }
    });
    return s;
  };
  for (const revision of TEST_REVISIONS) {
    const { client, close } = await connect(factory, { revision });
    try {
      const r = await client.callTool({ name: 'ask', arguments: {} });
      assert.deepEqual(JSON.parse((r.content as Array<{ text: string }>)[0].text), [
        { code: 'nested-object', path: '/properties/address', severity: 'error' },
      ]);
    } finally {
      await close();
    }
  }
});
