/**
 * The console's browser script (plain ES2020, no framework), served as /app.js: the parts below
 * joined inside one function scope. It draws the panels from the JSON API and follows server-sent
 * events. Never uses innerHTML: every server string goes through textContent. URL-mode URLs are shown
 * as text and opened only after the person's consent. (The parts are kept free of backticks and
 * dollar-brace so they can live in template strings.)
 * @module
 */
import { APP_CORE_JS } from './app-core.js';
import { APP_PROMPTS_JS } from './app-prompts.js';
import { APP_PANELS_JS } from './app-panels.js';
import { APP_WIRING_JS } from './app-wiring.js';

export const APP_JS = "'use strict';\n(function () {\n" + APP_CORE_JS + APP_PROMPTS_JS + APP_PANELS_JS + APP_WIRING_JS + '})();\n';
