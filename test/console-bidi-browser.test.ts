// A server's text in the console is shown, never obeyed: a bidirectional override in a message
// (U+202E) made "Install update\u202Egnp.exe" read "Install updateexe.png". Every string the page
// draws passes through h() (src/ui/web/assets/app-core.ts), which shows such controls as \u{202e}.
// Real Chromium, the console's own script part.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { APP_CORE_JS } from '../src/ui/web/assets/app-core.js';
import { launch } from './fixtures/console/browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('h() shows bidirectional controls in text and string children; other text is untouched', async () => {
  const page = await browser.newPage();
  try {
    await page.setContent('<!doctype html><html><body><div id="out"></div></body></html>');
    await page.addScriptTag({ content: `(function () {\n${APP_CORE_JS}\n  window.__h = h;\n})();` });
    const got = await page.evaluate(() => {
      const h = (window as unknown as { __h: (...a: unknown[]) => HTMLElement }).__h;
      const a = h('p', { text: 'Install update\u202Egnp.exe' });
      const b = h('p', null, 'left\u2066mid\u2069', ' ', h('span', { text: '北京 — ok' }));
      const out = document.getElementById('out')!;
      out.append(a, b);
      return { a: a.textContent, b: b.textContent };
    });
    assert.equal(got.a, 'Install update\\u{202e}gnp.exe');
    assert.equal(got.b, 'left\\u{2066}mid\\u{2069} 北京 — ok');
  } finally {
    await page.close();
  }
});
