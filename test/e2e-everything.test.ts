// Issue 5, end to end with a reference server: `parley up --config <file>` running
// @modelcontextprotocol/server-everything over stdio, driven from real Chromium. The 13-field form
// (every 2025-11-25 field kind) is filled and accepted in the page; then URL mode through the
// -32042 path: each consent screen shows the full URL and its host, and consenting completes the tool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { CHROMIUM, EVERYTHING, openTool, up, type Up } from './fixtures/e2e/up.js';
import { verifies } from './helpers/verifies.js';

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed`;

/** The result box of a tool card once it shows a heading (not "Calling…"). */
async function toolResult(tool: Locator): Promise<Locator> {
  const box = tool.locator('.result');
  await box.locator('h4').first().waitFor({ timeout: 60_000 });
  return box;
}

/** Consents to the pending URL card: checks what it shows, clicks Open, returns the URL shown. */
async function consent(u: Up, page: Page, shot: string): Promise<{ full: string; host: string }> {
  // A consent card marks the URL's host; the retry-or-cancel card lists URLs without (it may still be on
  // the page for a moment after its Retry was clicked).
  const first = page.locator('article.prompt[data-server="everything"]:has(mark.url-host)').first();
  await first.waitFor({ timeout: 30_000 });
  // This card by its id: the retry question that follows is another card of the same server.
  const card = page.locator(`article.prompt[data-id="${await first.getAttribute('data-id')}"]`);
  const full = await card.locator('code.url-full').innerText();
  const host = await card.locator('mark.url-host').innerText();
  verifies('ELIC-1125-URL-CONSENT');
  assert.equal(await card.locator('strong.url-site').innerText(), host, 'the site name is shown in bold');
  assert.equal(new URL(full).host, host, "the highlighted host is the URL's host");
  assert.equal(await card.locator('a[href]').count(), 0, 'the URL is never a link');
  const open = card.getByRole('button', { name: `Open ${host}` });
  await open.waitFor();
  await u.shot(shot, card);
  const popup = page.context().waitForEvent('page', { timeout: 15_000 });
  await open.click();
  await card.waitFor({ state: 'detached' });
  const win = await popup; // opened only after consent (its load is aborted by the test's route)
  await win.close();
  return { full, host };
}

test('server-everything through parley up: the 13-field form and URL mode (-32042 path) in the browser', {
  skip,
  timeout: 180_000,
}, async () => {
  const t0 = Date.now();
  let u: Up | undefined;
  try {
    u = await up(['--config', 'everything.json'], {
      expectReady: 1,
      prepare: (dir) =>
        writeFileSync(
          join(dir, 'everything.json'),
          JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }),
        ),
    });
    const { page } = u;
    assert.equal(u.events.find((e) => e.event === 'config')?.origin, 'flag');
    const tReady = Date.now();

    // The 13-field form
    const tool = await openTool(page, 'everything', 'trigger-elicitation-request');
    await tool.getByRole('button', { name: 'Call trigger-elicitation-request' }).click();
    const c = page.locator('article.prompt[data-server="everything"]');
    await c.waitFor({ timeout: 30_000 });
    const field = (name: string) => c.locator(`[data-field="${name}"]`);
    assert.equal(await c.locator('.field').count(), 13, 'one control per property');
    verifies('ELIC-1125-DEFAULTS');
    assert.equal(await field('firstLine').locator('input').inputValue(), 'It was a dark and stormy night.');
    assert.equal(await field('integer').locator('input').inputValue(), '42');
    verifies('ELIC-1125-FORMATS');
    for (const [name, type] of [
      ['email', 'email'],
      ['homepage', 'url'],
      ['birthdate', 'text'],
      ['integer', 'number'],
      ['number', 'number'],
      ['check', 'checkbox'],
    ]) {
      assert.equal(await field(name).locator('input').first().getAttribute('type'), type, name);
    }
    // A date is a text box showing the one format it accepts (not the locale's date picker).
    assert.equal(await field('birthdate').locator('input').getAttribute('placeholder'), 'YYYY-MM-DD');
    await field('name').locator('input').fill('Ada Lovelace');
    await field('check').locator('input').check();
    await field('email').locator('input').fill('ada@example.com');
    await field('homepage').locator('input').fill('https://ada.example.org');
    await field('birthdate').locator('input').fill('1815-12-10');
    await field('integer').locator('input').fill('7');
    await field('number').locator('input').fill('12.5');
    verifies('ELIC-1125-ENUM-SHAPES');
    await field('untitledSingleSelectEnum').locator('select').selectOption('Ross');
    await field('untitledMultipleSelectEnum').getByLabel('Guitar').uncheck();
    await field('untitledMultipleSelectEnum').getByLabel('Piano').check();
    await field('untitledMultipleSelectEnum').getByLabel('Drums').check();
    await field('titledSingleSelectEnum').locator('select').selectOption({ label: 'Green Lantern' });
    await field('titledMultipleSelectEnum').getByLabel('Salmon').check();
    await field('legacyTitledEnum').locator('select').selectOption({ label: 'Birds' });
    await u.shot('7-everything-form', c, 2400);
    await c.getByRole('button', { name: 'Accept and send' }).click();
    await c.waitFor({ state: 'detached' });
    const result = await toolResult(tool);
    const text = await result.innerText();
    assert.match(text, /User provided the requested information/, text);
    assert.match(text, /Name: Ada Lovelace/);
    assert.match(text, /Favorite Integer: 7/);
    // The raw result echoes the typed content the host sent (enum values, not their titles).
    assert.match(text, /"titledSingleSelectEnum":\s*"hero-2"/);
    assert.match(text, /"legacyTitledEnum":\s*"pet-3"/);
    assert.match(text, /"untitledMultipleSelectEnum":\s*\[\s*"Piano",\s*"Drums"\s*\]/);
    const tForm = Date.now();

    // URL mode, -32042 path: the prerequisite URL from the error, then the tool's own URL on the retry
    const urlTool = await openTool(page, 'everything', 'trigger-url-elicitation');
    await urlTool.locator('.field', { hasText: /^url/ }).locator('input').fill('https://example.com/pay');
    await urlTool.locator('.field', { hasText: 'errorPath' }).locator('input[type=checkbox]').check();
    await urlTool.getByRole('button', { name: 'Call trigger-url-elicitation' }).click();
    const seen: Array<{ full: string; host: string }> = [];
    verifies('ELIC-1125-URL-REQUIRED-ERROR');
    seen.push(await consent(u, page, '8-url-consent-1')); // the prerequisite from the -32042 error's data.elicitations
    // server-everything sends no elicitation/complete: the person is asked to retry or cancel (docs/broker.md)
    const retry = page.locator('article.prompt').getByRole('button', { name: 'Retry trigger-url-elicitation' });
    await retry.waitFor();
    await u.shot('8-url-retry');
    await retry.click();
    await retry.waitFor({ state: 'detached' });
    seen.push(await consent(u, page, '8-url-consent-2')); // the retried call's own elicitation
    assert.deepEqual(seen, [
      { full: 'https://modelcontextprotocol.io', host: 'modelcontextprotocol.io' },
      { full: 'https://example.com/pay', host: 'example.com' },
    ]);
    const urlResult = await toolResult(urlTool);
    const urlText = await urlResult.innerText();
    assert.equal(await urlResult.locator('h4').first().innerText(), 'Result', urlText);
    assert.match(urlText, /User completed the URL elicitation flow/, urlText);
    assert.match(urlText, /URL: https:\/\/example\.com\/pay/);
    await u.shot('9-url-done', urlTool, 700);
    console.log(
      `# timings: up+ready+page ${tReady - t0} ms, 13-field form ${tForm - tReady} ms, url flow ${Date.now() - tForm} ms; consent screens: ${JSON.stringify(seen)}`,
    );
  } finally {
    await u?.stop();
  }
});
