// docs/walkthrough.md as a new user follows it (issue 15 "Done when"): `parley up` on the embedded default,
// the console in real Chromium, a root, query_sales with a custom date range (asked in a second form),
// a chart of the result with its default chart, then a restart in the middle (SIGINT, as Ctrl-C, and
// `parley up` again in the same folder): the chart of the result from before the restart still works
// without querying again, and the session's answers are asked again as the walkthrough says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { CHROMIUM, REPO, openTool, up, type Up } from './fixtures/e2e/up.js';

const built = existsSync(join(REPO, 'dist/servers/sales/main.js')) && existsSync(join(REPO, 'dist/servers/charts/main.js'));
const skip = !existsSync(CHROMIUM) ? `${CHROMIUM} is not installed` : !built ? 'dist/servers is not built: run npm run build' : false;

async function resultText(tool: Locator): Promise<string> {
  const box = tool.locator('.result');
  await box.locator('h4').first().waitFor({ timeout: 30_000 });
  assert.equal(await box.locator('h4').first().innerText(), 'Result', await box.innerText());
  return box.locator('pre.text').first().innerText();
}

/** Step 7: chart `uri` with nothing else filled in (the default chart of its table). */
async function chartOf(page: Page, uri: string): Promise<string> {
  const chart = await openTool(page, 'charts', 'generate_chart');
  await chart.locator('.field', { hasText: 'data_source' }).locator('input, textarea').fill(uri);
  await chart.getByRole('button', { name: 'Call generate_chart' }).click();
  const text = await resultText(chart);
  await chart.locator('.result img').waitFor();
  return text;
}

test('docs/walkthrough.md: custom date range, a chart, a restart in the middle, the chart again', { skip, timeout: 120_000 }, async () => {
  const t0 = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'parley-walk-'));
  const rootDir = mkdtempSync(join(tmpdir(), 'parley-walk-root-'));
  let u: Up | undefined;
  try {
    // 1–2. npm start (here: parley up) and the printed URL.
    u = await up([], { dir, expectReady: 2 });
    let page = u.page;
    // 3. A root, this session.
    const rootUri = pathToFileURL(rootDir).href;
    await page.locator('#root-uri').fill(rootUri);
    await page.locator('#root-name').fill('reports');
    await page.getByRole('button', { name: 'Add root' }).click();
    await page.locator(`#roots tr[data-uri="${rootUri}"]`).waitFor();
    // 4–5. query_sales; the form; a custom range asks for its days next.
    const tool = await openTool(page, 'sales', 'query_sales');
    await tool.getByRole('button', { name: 'Call query_sales' }).click();
    const form = page.locator('article.prompt[data-server="sales"]', { hasText: 'Which sales data' });
    await form.locator('[data-field="table"] select').selectOption('orders');
    await form.locator('[data-field="range"] select').selectOption('custom');
    await form.locator('[data-field="region"] select').selectOption('上海');
    await form.getByRole('button', { name: 'Accept and send' }).click();
    const days = page.locator('article.prompt[data-server="sales"]', { hasText: 'Custom range' });
    await days.locator('[data-field="from"] input').fill('2025-03-01');
    await days.locator('[data-field="to"] input').fill('2025-04-15');
    await days.getByRole('button', { name: 'Accept and send' }).click();
    // 6. The result: the custom window, and its sales://results address.
    const text = await resultText(tool);
    const head = /^orders · 2025-03-01\.\.2025-04-15 · region 上海: (\d+) orders, \d+ units, revenue ¥(\d+\.\d\d)/.exec(text);
    assert.ok(head, text);
    const [, orders, revenue] = head;
    const uri = /Saved as (sales:\/\/results\/[0-9a-f]{16})/.exec(text)?.[1];
    assert.ok(uri, text);
    assert.match(text, new RegExp(`first 100 of ${orders}`));
    // 7. The chart: the default chart of an orders result, of the whole result, saying so.
    const note = `the result lists only 100 of ${orders} orders, so this chart shows the daily totals of all ${orders} orders (revenue ¥${revenue})`;
    const first = await chartOf(page, uri);
    assert.match(first, new RegExp(`^line chart of revenue by date from ${uri.replace(/[/.]/g, '\\$&')} \\(46 rows\\)`), first);
    assert.ok(first.includes(note), first);
    const tBefore = Date.now();

    // 8. Ctrl-C, and parley up again in the same folder: a new console address, a new session.
    await u.stop();
    u = await up([], { dir, expectReady: 2 });
    page = u.page;
    // Both servers' tool lists have loaded (the page fetches them after 'ready'), then count query_sales.
    await page.locator('details.tool[data-tool="sales/query_sales"]').waitFor();
    await page.locator('details.tool[data-tool="charts/generate_chart"]').waitFor();
    const listed = await page.locator('details.tool').evaluateAll((els) => els.map((e) => e.getAttribute('data-tool')));
    assert.deepEqual(
      listed.filter((t) => t?.endsWith('/query_sales')),
      ['sales/query_sales'],
      listed.join(', '),
    );
    // The result from before the restart charts as it did, without querying again.
    const again = await chartOf(page, uri);
    assert.ok(again.includes(note), again);
    // The session's answers were for that session: query_sales asks again (walkthrough §5, §8).
    const tool2 = await openTool(page, 'sales', 'query_sales');
    await tool2.getByRole('button', { name: 'Call query_sales' }).click();
    const asked = page.locator('article.prompt[data-server="sales"]', { hasText: 'Which sales data' });
    await asked.waitFor();
    await asked.locator('[data-field="table"] select').focus();
    await page.keyboard.press('Escape');
    await tool2.locator('.result', { hasText: 'the user chose cancel' }).waitFor({ timeout: 30_000 });
    console.log(`# walkthrough: first run ${tBefore - t0} ms, restart and chart ${Date.now() - tBefore} ms`);
  } finally {
    await u?.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(rootDir, { recursive: true, force: true });
  }
});
