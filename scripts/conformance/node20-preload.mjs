// ESM preload for the conformance CLI on Node 20 (`node --import ./node20-preload.mjs <cli> …`).
// The CLI bundle imports `globSync` from `fs`, which exists only from Node 22, so on Node 20 it fails at
// link time. A CommonJS patch of `fs` does not help (the ESM facade of `fs` fixes its export names
// early); instead a resolve hook points `fs`/`node:fs`, when imported from the conformance package,
// at ./node20-fs.mjs (all of `node:fs` plus a `globSync`). On Node >= 22 this file does nothing.
// "The conformance package" is any module under node_modules/@modelcontextprotocol/conformance/ (an own
// install, PARLEY_CONFORMANCE_TOOLS) or node_modules/conformance-<line>/ (the npm aliases in
// devDependencies); CONFORMANCE_PARENT below is that test, exported for test/conformance.test.ts.
import { register } from 'node:module';
import fs from 'node:fs';

export const CONFORMANCE_PARENT = /\/node_modules\/(?:@modelcontextprotocol\/conformance|conformance-[^/]+)\//;

if (typeof fs.globSync !== 'function') {
  const target = new URL('./node20-fs.mjs', import.meta.url).href;
  const hook = `
    const target = ${JSON.stringify(target)};
    const parent = ${CONFORMANCE_PARENT};
    export async function resolve(specifier, context, next) {
      if ((specifier === 'fs' || specifier === 'node:fs') && parent.test(context.parentURL ?? '')) {
        return { url: target, shortCircuit: true };
      }
      return next(specifier, context);
    }`;
  register('data:text/javascript,' + encodeURIComponent(hook));
}
