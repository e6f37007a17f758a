// End to end: server-everything over stdio → SDK v2 client → ElicitationBroker → WebPresenter →
// the console in Chromium → the person's answer goes back to the real server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Browser } from 'playwright-core';
import { ElicitationBroker } from '../src/host/broker/index.js';

// Typed from the method itself, so the test follows the broker's own names.
type ElicitParams = Parameters<ElicitationBroker['elicit']>[0];
import { CHROMIUM, launch, open, within, type Session } from './fixtures/console/browser.js';
import { SCOPE } from './fixtures/console/host.js';

const SERVER = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed`;
type ToolResult = { isError?: boolean; content?: Array<{ type: string; text?: string }> };
const text = (r: ToolResult) => (r.content ?? []).map((c) => c.text ?? '').join('\n');

let browser: Browser;
let s: Session;
let client: Client;
let broker: ElicitationBroker;

before(async () => {
  if (skip) return;
  browser = await launch();
  s = await open(browser);
  client = new Client({ name: 'parley-console-e2e', version: '0.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(
    'elicitation/create',
    async (req, ctx) =>
      (await broker.elicit(req.params as ElicitParams, {
        server: 'everything',
        era: 'legacy',
        revision: client.getNegotiatedProtocolVersion?.() ?? '2025-11-25',
        signal: ctx.mcpReq.signal,
        requestId: ctx.mcpReq.id,
      })) as never,
  );
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER, 'stdio'], stderr: 'pipe' }));
});
after(async () => {
  await client?.close();
  await s?.stop();
  await browser?.close();
});

const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<ToolResult>;

test('the real 13-field form is answered in the browser and the server gets typed content', { skip, timeout: 120_000 }, async () => {
  broker = new ElicitationBroker({ presenter: s.presenter, store: s.host.store, scope: SCOPE });
  const pending = call('trigger-elicitation-request');
  const c = s.page.locator('article.prompt');
  await c.waitFor({ timeout: 30_000 });
  assert.equal(await c.locator('[data-field]').count(), 13);
  await c.locator('[data-field="name"] input').fill('Ada');
  await c.locator('[data-field="check"] input').check();
  await c.locator('[data-field="integer"] input').fill('7');
  await s.shot('e2e-everything-form');
  await c.getByRole('button', { name: 'Accept and send' }).click();
  const out = text(await within(pending, 'tool result'));
  assert.match(out, /User provided the requested information/);
  assert.match(out, /- Name: Ada/);
  assert.match(out, /- Agreed to terms: true/);
  assert.match(out, /- Favorite Integer: 7/);
  const answers = await s.host.store.queryAudit({ kind: 'answer' });
  assert.ok(answers.some((a) => a.action === 'accept'));
});

test('URL mode from the real server: consent screen, Open accepts', { skip, timeout: 120_000 }, async () => {
  const url = 'https://example.com/oauth?state=abc';
  const pending = call('trigger-url-elicitation', { url });
  const c = s.page.locator('article.prompt');
  await c.waitFor({ timeout: 30_000 });
  assert.equal(await c.locator('.url-full').innerText(), url);
  await s.page.evaluate(() => {
    (window as unknown as { open: () => null }).open = () => null;
  });
  await c.getByRole('button', { name: 'Open example.com' }).click();
  assert.match(text(await within(pending, 'url tool result')), /User completed the URL elicitation flow/);
  assert.ok(!s.requests.some((u) => u.includes('example.com')));
});
