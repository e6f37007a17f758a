#!/usr/bin/env node
/**
 * The `parley` command. Subcommands load lazily, so `parley lint` does not pay for the host.
 * Exit codes (`EXIT` in ./output.ts): 0 ok, 1 failed (errors found, tool failed), 2 unusable input
 * (bad flags, unreadable files, unknown documents). `--help` works on every command.
 * @module
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineCommand, renderUsage, runCommand } from 'citty';
import { resolveCommand } from './flags.js';
import { CliError, EXIT, useColour } from './output.js';

const ANSI = /\x1b\[[0-9;]*m/g;
/** Removes colour codes unless colour is allowed (TTY, no NO_COLOR). */
function tone(text: string, stream: NodeJS.WriteStream = process.stdout): string {
  return useColour(stream) ? text : text.replace(ANSI, '');
}

export const main = defineCommand({
  meta: {
    name: 'parley',
    version: '0.1.0',
    description: 'MCP host, gateway and server toolkit: elicitation, roots and configuration negotiation',
  },
  subCommands: {
    lint: () => import('./lint.js').then((m) => m.lintCommand),
    up: () => import('./up.js').then((m) => m.upCommand),
    serve: () => import('./serve.js').then((m) => m.serveCommand),
    call: () => import('./call.js').then((m) => m.callCommand),
    read: () => import('./read.js').then((m) => m.readCommand),
    servers: () => import('./list.js').then((m) => m.serversCommand),
    tools: () => import('./list.js').then((m) => m.toolsCommand),
    roots: () => import('./list.js').then((m) => m.rootsCommand),
    presets: () => import('./list.js').then((m) => m.presetsCommand),
    answers: () => import('./answers.js').then((m) => m.answersCommand),
    audit: () => import('./list.js').then((m) => m.auditCommand),
    config: () => import('./config.js').then((m) => m.configCommand),
    auth: () => import('./auth.js').then((m) => m.authCommand),
    store: () => import('./store.js').then((m) => m.storeCommand),
  },
});

/**
 * Where `runCli` itself writes (usage, version, the one-line errors); the commands write to the process's
 * streams. Tests pass their own to read it without touching `process.stdout`.
 */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const PROCESS_IO: CliIo = { out: (t) => void process.stdout.write(t), err: (t) => void process.stderr.write(t) };

/** Runs the CLI with `rawArgs` (without node and script). Resolves to the exit code. */
export async function runCli(rawArgs: string[], io: CliIo = PROCESS_IO): Promise<number> {
  try {
    const help = rawArgs.length === 0 || rawArgs.includes('--help') || rawArgs.includes('-h');
    const { leaf, parent, names } = await resolveCommand(main, rawArgs, !help);
    if (help) {
      io.out(tone(await renderUsage(leaf, parent)) + '\n');
      return EXIT.OK;
    }
    if (rawArgs[0] === '--version') {
      io.out('0.1.0\n');
      return EXIT.OK;
    }
    if (names.length === 0) {
      const word = rawArgs.find((a) => !a.startsWith('-'));
      throw new CliError(word ? `unknown command ${JSON.stringify(word)} (see parley --help)` : 'no command given (see parley --help)');
    }
    await runCommand(main, { rawArgs });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
  } catch (e) {
    if (e instanceof CliError) {
      io.err(`parley: ${e.message}\n`);
      return e.exitCode;
    }
    const msg = (e as Error).message ?? String(e);
    // citty's usage errors, by their code (EARG: a missing or invalid argument).
    if (['EARG', 'E_UNKNOWN_COMMAND', 'E_NO_COMMAND'].includes(String((e as { code?: unknown }).code))) {
      io.err(tone(`parley: ${msg} (see parley --help)\n`, process.stderr));
      return EXIT.USAGE;
    }
    io.err(`parley: unexpected error: ${(e as Error).stack ?? msg}\n`);
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
/**
 * `parley tools | head -1`: the reader of stdout went away (EPIPE). The rest of the output has nowhere
 * to go; the command still finishes normally (its servers are stopped as usual), with no stack trace.
 * Any other stdout error stays fatal.
 */
function ignoreClosedStdout(stream: NodeJS.EventEmitter = process.stdout): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
  });
}

if (invokedDirectly) {
  ignoreClosedStdout();
  runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
