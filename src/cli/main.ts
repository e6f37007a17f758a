#!/usr/bin/env node
/**
 * The `parley` command. Subcommands load lazily, so `parley lint` does not pay for the host.
 * Exit codes (`EXIT` in ./output.ts): 0 ok, 1 failed (errors found, tool failed), 2 unusable input
 * (bad flags, unreadable files, unknown documents). `--help` works on every command.
 * @module
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineCommand, renderUsage, runCommand, type CommandDef } from 'citty';
import { CliError, EXIT, useColour } from './output.js';

const ANSI = /\x1b\[[0-9;]*m/g;
/** Removes colour codes unless colour is allowed (TTY, no NO_COLOR). */
function tone(text: string, stream: NodeJS.WriteStream = process.stdout): string {
  return useColour(stream) ? text : text.replace(ANSI, '');
}

export const main = defineCommand({
  meta: { name: 'parley', version: '0.1.0', description: 'MCP host, gateway and server toolkit: elicitation, roots and configuration negotiation' },
  subCommands: {
    lint: () => import('./lint.js').then((m) => m.lintCommand),
    up: () => import('./up.js').then((m) => m.upCommand),
    serve: () => import('./serve.js').then((m) => m.serveCommand),
    call: () => import('./call.js').then((m) => m.callCommand),
    servers: () => import('./list.js').then((m) => m.serversCommand),
    tools: () => import('./list.js').then((m) => m.toolsCommand),
    roots: () => import('./list.js').then((m) => m.rootsCommand),
    presets: () => import('./list.js').then((m) => m.presetsCommand),
    audit: () => import('./list.js').then((m) => m.auditCommand),
    config: () => import('./config.js').then((m) => m.configCommand),
    store: () => import('./store.js').then((m) => m.storeCommand),
  },
});

async function resolveSub(cmd: CommandDef<any>, rawArgs: string[]): Promise<[CommandDef<any>, CommandDef<any> | undefined]> {
  const subs = typeof cmd.subCommands === 'function' ? await cmd.subCommands() : await cmd.subCommands;
  const name = rawArgs.find((a) => !a.startsWith('-'));
  const loader = name && subs ? (subs as Record<string, unknown>)[name] : undefined;
  if (!loader) return [cmd, undefined];
  const sub = (typeof loader === 'function' ? await (loader as () => Promise<CommandDef<any>>)() : loader) as CommandDef<any>;
  return resolveSub(sub, rawArgs.slice(rawArgs.indexOf(name!) + 1)).then(([leaf, parent]) => [leaf, parent ?? cmd]);
}

/** Runs the CLI with `rawArgs` (without node and script). Resolves to the exit code. */
export async function runCli(rawArgs: string[]): Promise<number> {
  try {
    if (rawArgs.length === 0 || rawArgs.includes('--help') || rawArgs.includes('-h')) {
      const [leaf, parent] = await resolveSub(main, rawArgs);
      process.stdout.write(tone(await renderUsage(leaf, parent)) + '\n');
      return EXIT.OK;
    }
    if (rawArgs[0] === '--version') {
      process.stdout.write('0.1.0\n');
      return EXIT.OK;
    }
    await runCommand(main, { rawArgs });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
  } catch (e) {
    if (e instanceof CliError) {
      process.stderr.write(`parley: ${e.message}\n`);
      return e.exitCode;
    }
    const msg = (e as Error).message ?? String(e);
    if (/Unknown command|Missing required|Invalid value/i.test(msg)) {
      process.stderr.write(tone(`parley: ${msg} (see parley --help)\n`, process.stderr));
      return EXIT.USAGE;
    }
    process.stderr.write(`parley: unexpected error: ${(e as Error).stack ?? msg}\n`);
    return EXIT.FAILED;
  }
}

const invokedDirectly = (() => {
  try {
    return realpathSync(process.argv[1] ?? '') === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();
if (invokedDirectly) {
  runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
