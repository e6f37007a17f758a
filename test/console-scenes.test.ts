// Switching scenes in the console (Chromium on `parley up`, the reference server-filesystem as the peer):
// loading scene B after scene A takes A's roots away again, so the server stops seeing A's folders, while
// a root the person added themselves stays. Before, every scene loaded in a session piled up its roots:
// a server kept seeing the folders of every scene loaded since start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO } from './fixtures/cli/setup.js';
import { CHROMIUM, openTool, up } from './fixtures/e2e/up.js';
import { runParley } from './helpers/cli.js';

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed`;
const FILESYSTEM = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

async function addRoot(page: Page, uri: string) {
  await page.locator('#root-uri').fill(uri);
  await page.getByRole('button', { name: 'Add root' }).click();
  await page.locator(`tr[data-uri="${uri}"]`).waitFor();
}
async function removeRoot(page: Page, uri: string) {
  await page
    .locator(`tr[data-uri="${uri}"]`)
    .getByRole('button', { name: /Remove/ })
    .click();
  await page.locator(`tr[data-uri="${uri}"]`).waitFor({ state: 'detached' });
}
async function saveScene(page: Page, name: string) {
  await page.getByLabel('Preset name').fill(name);
  await page.getByRole('button', { name: 'Save current roots and answers' }).click();
  await page.locator(`li[data-preset="${name}"]`).waitFor();
}
const rootUris = async (page: Page) =>
  (await page.locator('tr[data-uri]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-uri') ?? ''))).sort();

test("loading scene B after scene A removes A's roots (the server stops seeing them); the person's own root stays", {
  skip,
  timeout: 240_000,
}, async () => {
  let dir = '';
  const u = await up([], {
    expectReady: 1,
    prepare: (d) => {
      dir = d;
      for (const f of ['a', 'b', 'own']) mkdirSync(join(d, f));
      writeFileSync(join(d, 'parley.json'), JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM] } } }));
    },
  });
  const uri = (f: string) => `file://${join(dir, f)}`;
  try {
    const page = u.page;
    // Two scenes, each with its own folder, made in the console.
    await addRoot(page, uri('a'));
    await saveScene(page, 'scene-a');
    await removeRoot(page, uri('a'));
    await addRoot(page, uri('b'));
    await saveScene(page, 'scene-b');
    await removeRoot(page, uri('b'));
    await addRoot(page, uri('own'));

    /**
     * server-filesystem's allowed directories, called again until `ok` holds (at most 60 s): a root change
     * reaches it asynchronously (roots/list_changed, its roots/list, its realpath checks), so a call made
     * as soon as the console shows the change can overtake it. The last answer either way.
     */
    const allowed = async (ok: (t: string) => boolean) => {
      const tool = await openTool(page, 'fs', 'list_allowed_directories');
      const out = tool.locator('div.result').first();
      for (const end = Date.now() + 60_000; ; ) {
        await tool.getByRole('button', { name: 'Call list_allowed_directories' }).click(); // the result shows "Calling…" at once
        await out.getByText('Allowed directories', { exact: false }).first().waitFor({ timeout: 60_000 });
        const t = await out.innerText();
        if (ok(t) || Date.now() > end) return t;
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    const has = (t: string, sub: string) => new RegExp(`${sub}$`, 'm').test(t);

    await page.locator('li[data-preset="scene-a"]').getByRole('button', { name: 'Load preset scene-a' }).click();
    await page.locator(`tr[data-uri="${uri('a')}"]`).waitFor();
    const withA = await allowed((t) => has(t, join(dir, 'a')));
    assert.match(withA, new RegExp(join(dir, 'a')));

    await page.locator('li[data-preset="scene-b"]').getByRole('button', { name: 'Load preset scene-b' }).click();
    await page.locator(`tr[data-uri="${uri('b')}"]`).waitFor();
    await page.locator(`tr[data-uri="${uri('a')}"]`).waitFor({ state: 'detached' });
    assert.deepEqual(await rootUris(page), [uri('b'), uri('own')]);
    await u.shot('scene-switch-roots', page.locator('#roots-section'));
    const withB = await allowed((t) => !has(t, join(dir, 'a')) && has(t, join(dir, 'b')) && has(t, join(dir, 'own')));
    assert.doesNotMatch(withB, new RegExp(`${join(dir, 'a')}$`, 'm'), withB);
    assert.match(withB, new RegExp(join(dir, 'b')));
    assert.match(withB, new RegExp(join(dir, 'own')));

    // Unload undoes the load: scene-b's root leaves (the server stops seeing it), the person's own stays.
    const loaded = page.locator('li[data-preset="scene-b"]');
    assert.match(await loaded.innerText(), /scene-b \(loaded\)/);
    await loaded.getByRole('button', { name: 'Unload preset scene-b' }).click();
    await page.locator(`tr[data-uri="${uri('b')}"]`).waitFor({ state: 'detached' });
    assert.deepEqual(await rootUris(page), [uri('own')]);
    assert.match(
      await page.locator('#preset-status').innerText(),
      /^Unloaded scene-b: removed file:\/\/\S+\/b; its answers no longer prefill forms\.$/,
    );
    await page.locator('li[data-preset="scene-b"]:not([data-active])').waitFor();
    const unloaded = await allowed((t) => !has(t, join(dir, 'b')) && has(t, join(dir, 'own')));
    assert.doesNotMatch(unloaded, new RegExp(`${join(dir, 'b')}$`, 'm'), unloaded);
    assert.match(unloaded, new RegExp(join(dir, 'own')));
  } finally {
    await u.stop();
  }
});

test("the configuration's presets are listed in the console (marked as such) and load there", { skip, timeout: 180_000 }, async () => {
  let dir = '';
  const u = await up([], {
    expectReady: 1,
    prepare: (d) => {
      dir = d;
      mkdirSync(join(d, 'team'));
      writeFileSync(
        join(d, 'parley.json'),
        JSON.stringify({
          mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM] } },
          presets: { team: { roots: [join(d, 'team')], answers: { fs: { path: '.' } } } },
        }),
      );
    },
  });
  try {
    const item = u.page.locator('li[data-preset="team"]');
    await item.waitFor();
    assert.match(await item.innerText(), /team — 1 root, answers for fs, from the configuration/);
    await item.getByRole('button', { name: 'Load preset team' }).click();
    await u.page.locator(`tr[data-uri="file://${join(dir, 'team')}"]`).waitFor();
  } finally {
    await u.stop();
  }
});

test("loading a scene while the sales form is open fills the form with the scene's answers; a field the person changed is kept", {
  skip,
  timeout: 240_000,
}, async () => {
  const u = await up([], { expectReady: 2 });
  try {
    const page = u.page;
    const tool = await openTool(page, 'sales', 'query_sales');
    const card = page.locator('article.prompt[data-server="sales"]');
    const select = (field: string) => card.locator(`[data-field="${field}"] select`);
    const answer = async (table: string, range: string, region: string) => {
      await card.waitFor();
      await select('table').selectOption(table);
      await select('range').selectOption(range);
      await select('region').selectOption(region);
      await card.getByRole('button', { name: 'Accept and send' }).click();
      await card.waitFor({ state: 'detached' });
    };
    // Scene "products" holds one answer of the sales form; scene "regions" another.
    await tool.getByRole('button', { name: 'Call query_sales' }).click();
    await answer('products', 'last_month', '北京');
    await saveScene(page, 'products');
    await tool.getByLabel('reconfigure').check();
    await tool.getByRole('button', { name: 'Call query_sales' }).click();
    await answer('regions', 'last_quarter', '上海');
    await saveScene(page, 'regions');
    // The form is open again; the person changes the region, then loads scene "products".
    await tool.getByRole('button', { name: 'Call query_sales' }).click();
    await card.waitFor();
    await select('region').selectOption('广州');
    await page.locator('li[data-preset="products"]').getByRole('button', { name: 'Load preset products' }).click();
    const note = card.locator('.fill-note');
    await note.waitFor();
    assert.equal(await select('table').inputValue(), 'products');
    assert.equal(await select('range').inputValue(), 'last_month');
    assert.equal(await select('region').inputValue(), '广州', 'the field the person changed is kept');
    assert.match(
      await note.innerText(),
      /^Filled .*table.* from the preset "products": review before sending\. Kept what you had changed: .*region/i,
    );
    assert.match(await card.locator('[data-field="table"] .source').innerText(), /Prefilled from preset "products"/);
    await u.shot('scene-fills-open-form', card);
    await card.getByRole('button', { name: 'Accept and send' }).click();
    await card.waitFor({ state: 'detached' });
    const text = await tool.locator('.result pre.text').first().innerText();
    assert.match(text, /^products · .* · region 广州:/, text);
  } finally {
    await u.stop();
  }
});

test('`parley roots add` in another terminal while `parley up` runs: the console shows the root and the server sees it, no restart', {
  skip,
  timeout: 240_000,
}, async () => {
  let dir = '';
  const u = await up([], {
    expectReady: 1,
    prepare: (d) => {
      dir = d;
      mkdirSync(join(d, 'later'));
      writeFileSync(join(d, 'parley.json'), JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM] } } }));
    },
  });
  try {
    const page = u.page;
    const add = await runParley(['roots', 'add', join(dir, 'later')], { cwd: dir, timeoutMs: 120_000 });
    assert.equal(add.code, 0, add.stderr);
    // Within the store poll (rootPolicy.storePollMs, 2000 ms) plus the page's reload of the panel.
    await page.locator(`tr[data-uri="file://${join(dir, 'later')}"]`).waitFor({ timeout: 15_000 });
    // Called again until the root is there (at most 60 s): the roots/list_changed reaches server-filesystem
    // asynchronously, so a call made as soon as the console shows the root can overtake it.
    const tool = await openTool(page, 'fs', 'list_allowed_directories');
    const out = tool.locator('div.result').first();
    let t = '';
    for (const end = Date.now() + 60_000; !t.includes(join(dir, 'later')) && Date.now() < end; ) {
      if (t) await new Promise((r) => setTimeout(r, 250));
      await tool.getByRole('button', { name: 'Call list_allowed_directories' }).click(); // the result shows "Calling…" at once
      await out.getByText('Allowed directories', { exact: false }).first().waitFor({ timeout: 60_000 });
      t = await out.innerText();
    }
    assert.ok(t.includes(join(dir, 'later')), t);
  } finally {
    await u.stop();
  }
});
