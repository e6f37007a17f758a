/**
 * `parley read <server> <uri>`: reads one resource through the host. When the URI leaves out variables
 * of one of the server's resource templates (`sql-query://orders` for `sql-query://{table}{?range}`),
 * the missing ones are asked on the terminal, from `--answers`, or fail fast headless; the completed
 * URI is read. Text contents are printed; binary contents are saved to temp files (the path is printed);
 * `--json` prints the whole `ReadResourceResult`.
 * Exit: 0 ok, 1 failed (not found, declined), 2 usage.
 * @module
 */
import { defineCommand } from 'citty';
import { HeadlessPresenter, UserInteractionRequiredError } from '../host/index.js';
import type { Presenter } from '../host/index.js';
import { TerminalPresenter } from '../ui/terminal/index.js';
import { AnswersFilePresenter, readAnswers, renderResult } from './call.js';
import { commonArgs, openHost, parseFlags, printJson } from './context.js';
import { CliError, EXIT, serverText } from './output.js';

export const readCommand = defineCommand({
  meta: {
    name: 'read',
    description: 'Read a resource; missing resource-template variables are asked (terminal, --answers, or fail fast headless)',
  },
  args: {
    server: { type: 'positional', description: 'server name from the configuration', required: true },
    uri: { type: 'positional', description: 'resource URI, e.g. sql-query://orders', required: true },
    ...commonArgs,
    answers: { type: 'string', description: 'answer the form from a JSON file: {"<variable>": value} or {"<server>": {...}}' },
    'non-interactive': { type: 'boolean', description: 'never ask a person (default when stdin is not a terminal)' },
    json: { type: 'boolean', description: 'print the ReadResourceResult as JSON' },
  },
  async run({ args, rawArgs }) {
    const pos = parseFlags('read', rawArgs, { '--answers': true, '--non-interactive': false, '--json': false });
    if (pos.length !== 2) throw new CliError('read: expected <server> <uri>');
    const [server, uri] = pos;
    const presenter: Presenter = args.answers
      ? new AnswersFilePresenter(String(args.answers), readAnswers(String(args.answers)))
      : args['non-interactive'] || !process.stdin.isTTY
        ? new HeadlessPresenter(true)
        : new TerminalPresenter();
    const ctx = await openHost(args, presenter);
    try {
      let result;
      try {
        result = await ctx.host.readResource(server, uri);
      } catch (e) {
        // Nobody to ask (no terminal, --non-interactive): say how to answer from the command line.
        const asked = e instanceof UserInteractionRequiredError ? e : (e as Error).cause;
        const hint =
          asked instanceof UserInteractionRequiredError
            ? ` Supply the values with --answers <file> ({"<variable>": value}, e.g. {"${Object.keys(asked.prompt.schema?.properties ?? {})[0] ?? 'id'}": "…"}), or run on a terminal.`
            : '';
        throw new CliError(`read ${server} ${uri}: ${(e as Error).message}${hint}`, EXIT.FAILED);
      }
      if (args.json) return printJson(result);
      const content = result.contents.map((c) => ({ type: 'resource' as const, resource: c }));
      process.stdout.write(serverText(renderResult({ content } as never)) + '\n');
    } finally {
      await ctx.close();
    }
  },
});
