/**
 * The embedded default configuration: the lowest layer under `parley.json`, `.mcp.json`,
 * `.vscode/mcp.json` and the user file (see docs/config.md). It starts the two bundled example
 * servers from the built package (`dist/servers/...`) with their data in `.parley/` of the project.
 * @module
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package directory: the nearest ancestor of this file holding `package.json`. */
export function packageDir(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return dirname(dirname(dirname(from)));
}

/** `{mcpServers: {sales, charts}}`: the bundled servers, run with the current Node (`process.execPath`). */
export function embeddedDefault(): { mcpServers: Record<string, { command: string; args: string[] }> } {
  const pkg = packageDir();
  return {
    mcpServers: {
      sales: { command: process.execPath, args: [join(pkg, 'dist/servers/sales/main.js'), '--db', '.parley/sales.db'] },
      charts: { command: process.execPath, args: [join(pkg, 'dist/servers/charts/main.js'), '--with-sales', '--sales-db', '.parley/sales.db'] },
    },
  };
}
