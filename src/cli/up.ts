/**
 * `parley up`: the main job. Until the host runtime and console land (issue 5), it prints what
 * parley can do today.
 * @module
 */
import { defineCommand } from 'citty';

export const upCommand = defineCommand({
  meta: { name: 'up', description: 'Run the host with the web console (in progress: prints what exists today)' },
  run() {
    process.stdout.write(
      [
        'parley is being built. What works today:',
        '  parley lint <file> [--revision R] [--json]   lint a requestedSchema / elicitation request / input_required result',
        '  mcp-parley/schema  lint, normalise, validate, form helpers, zod → requestedSchema',
        '  mcp-parley/host    configuration loader (mcpServers, VS Code, parley.json), SQLite store, roots and routing',
        'Coming next: the server toolkit, the host runtime, the web console and the gateway.',
      ].join('\n') + '\n',
    );
  },
});
