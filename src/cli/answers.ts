/**
 * `parley answers`: the list of remembered answers, where "answer automatically next time" is visible
 * and revocable. `answers` lists them; `answers auto <server> <form>`, `answers prefill <server> <form>`
 * and `answers forget <server> [<form>]` change them. `<form>` is the form id the list prints (the
 * schema hash, or any unique prefix of it). Reads the CLI's user scope: answers remembered "always".
 * @module
 */
import { defineCommand } from 'citty';
import type { RememberedAnswerEntry, Scope } from '../host/index.js';
import { CLI_SCOPE, commonArgs, openStore, parseFlags, printJson } from './context.js';
import { CliError, EXIT } from './output.js';

const USER: Scope = { ...CLI_SCOPE, session: null };

function pick(list: RememberedAnswerEntry[], server: string, form: string | undefined, action: string): RememberedAnswerEntry {
  if (!form) throw new CliError(`answers ${action}: give <server> <form> (the form id printed by parley answers)`);
  const hits = list.filter((a) => a.server === server && a.schemaHash.startsWith(form));
  if (hits.length === 0)
    throw new CliError(`answers ${action}: no remembered answer of ${server} for form ${form} (see parley answers)`, EXIT.FAILED);
  if (hits.length > 1) throw new CliError(`answers ${action}: form id ${form} matches ${hits.length} forms of ${server}; give more of it`);
  return hits[0];
}

export const answersCommand = defineCommand({
  meta: {
    name: 'answers',
    description:
      'List remembered answers; `answers auto|prefill <server> <form>` (answer automatically next time, or prefill only), `answers forget <server> [<form>]`',
  },
  args: {
    action: { type: 'positional', required: false, description: 'list (default) | auto | prefill | forget' },
    server: { type: 'positional', required: false, description: 'server name' },
    form: { type: 'positional', required: false, description: 'form id (schema hash or a unique prefix) from the list' },
    ...commonArgs,
    json: { type: 'boolean', description: 'print JSON' },
  },
  async run({ args, rawArgs }) {
    const [action = 'list', server, form, ...extra] = parseFlags('answers', rawArgs, { '--json': false });
    if (extra.length) throw new CliError(`answers: unexpected arguments ${extra.join(' ')}`);
    const store = await openStore(args);
    try {
      if (!store.listAnswers || !store.setAnswerMode || !store.forgetAnswer)
        throw new CliError(
          'answers: this store cannot list remembered answers yet (the PostgreSQL store keeps them, but only the SQLite store lists them)',
          EXIT.FAILED,
        );
      const list = await store.listAnswers(USER);
      if (action === 'list') {
        if (args.json) return printJson(list.map(({ scope: _s, ...a }) => a));
        if (!list.length) return void process.stdout.write('no remembered answers\n');
        for (const a of list) {
          const fields = Object.entries(a.content)
            .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
            .join(' ');
          process.stdout.write(
            `${a.server}\t${a.schemaHash.slice(0, 12)}\t${a.auto ? 'auto' : 'prefill'}\t${a.label ? JSON.stringify(a.label) : '-'}\t${fields}\n`,
          );
        }
        return;
      }
      if (!server) throw new CliError(`answers ${action}: give a server name`);
      if (action === 'auto' || action === 'prefill') {
        const a = pick(list, server, form, action);
        await store.setAnswerMode(USER, a.server, a.schemaHash, action === 'auto');
        process.stdout.write(
          `${a.server} ${a.schemaHash.slice(0, 12)}: ${action === 'auto' ? 'answered automatically next time' : 'prefill only'}\n`,
        );
      } else if (action === 'forget') {
        if (form === undefined) {
          const n = await store.forget(USER, server);
          // As `roots remove`: nothing to remove is exit 1 (a misspelt server name is not a silent success).
          if (n === 0)
            throw new CliError(`answers forget: no remembered answers of ${server} (\`parley answers\` lists them)`, EXIT.FAILED);
          process.stdout.write(`forgot ${n} remembered answer(s) of ${server}\n`);
        } else {
          const a = pick(list, server, form, action);
          await store.forgetAnswer(USER, a.server, a.schemaHash);
          process.stdout.write(`forgot ${a.server} ${a.schemaHash.slice(0, 12)}\n`);
        }
      } else throw new CliError(`answers: unknown action "${action}" (list, auto, prefill, forget)`);
    } finally {
      await store.close();
    }
  },
});
