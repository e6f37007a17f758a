/**
 * `parley config check [file]`: loads the configuration exactly like `parley up` (the file given, or
 * the search order) and prints every issue. Exit 1 on errors, 0 when clean (warnings allowed).
 * @module
 */
import { defineCommand } from 'citty';
import { formatConfigIssues, hasErrors } from '../host/index.js';
import { commonArgs, parseFlags, printJson } from './context.js';
import { resolveConfig } from './defaults.js';
import { CliError, EXIT } from './output.js';

export const configCheckCommand = defineCommand({
  meta: { name: 'check', description: 'Load the configuration and print its issues (exit 1 on errors)' },
  args: {
    file: { type: 'positional', required: false, description: 'file to check (default: the search order, like parley up)' },
    config: commonArgs.config,
    json: { type: 'boolean', description: 'print {servers, issues} as JSON' },
  },
  run({ args, rawArgs }) {
    const pos = parseFlags('config check', rawArgs, { '--json': false });
    if (pos.length > 1) throw new CliError(`config check: expected at most one file, got ${pos.join(' ')}`);
    const flagFile = pos[0] ?? (args.config as string | undefined);
    const { config, issues, origin } = resolveConfig({ flagFile });
    const bad = hasErrors(issues);
    if (args.json) printJson({ origin, servers: Object.keys(config.servers), issues });
    else {
      if (issues.length) process.stdout.write(formatConfigIssues(issues) + '\n');
      const errors = issues.filter((i) => i.severity === 'error').length;
      process.stdout.write(
        `${origin === 'embedded' ? 'no configuration file found; the embedded default: ' : ''}${Object.keys(config.servers).length} server(s): ${Object.keys(config.servers).join(', ') || 'none'}; ${errors} error(s), ${issues.length - errors} warning(s)\n`,
      );
    }
    process.exitCode = bad ? EXIT.FAILED : EXIT.OK;
  },
});

export const configCommand = defineCommand({
  meta: { name: 'config', description: 'Configuration tools: `parley config check [file]`' },
  subCommands: { check: configCheckCommand },
});
