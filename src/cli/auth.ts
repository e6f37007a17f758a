/**
 * `parley auth list` and `parley auth logout <server>`: the OAuth sign-ins kept for protected HTTP
 * servers (docs/auth.md). `list` shows server, URL, issuer, scope, expiry and whether a refresh token
 * is held — never a token. `logout` deletes the server's stored tokens and client registration (the
 * next use signs in again); it does not revoke them at the authorization server.
 * Exit codes: 0 ok; 1 `logout` of a server with nothing stored, or the credential store cannot be opened.
 * @module
 */
import { defineCommand } from 'citty';
import { CLI_SCOPE, openCredentials, parseFlags, printJson, storeArgs, storeTarget } from './context.js';
import { CliError, EXIT, timeText } from './output.js';

const iso = (ms: number | undefined) => (ms === undefined ? '-' : timeText(ms));

export const authCommand = defineCommand({
  meta: { name: 'auth', description: 'Stored sign-ins of protected servers: `auth list`, `auth logout <server>`' },
  args: {
    action: { type: 'positional', required: false, description: 'list (default) | logout' },
    server: { type: 'positional', required: false, description: 'server name (logout)' },
    ...storeArgs,
    json: { type: 'boolean', description: 'JSON output' },
  },
  async run({ args, rawArgs }) {
    const [action = 'list', server, ...extra] = parseFlags('auth', rawArgs, { '--json': false });
    if (extra.length) throw new CliError(`auth: unexpected arguments ${extra.join(' ')}`);
    const credentials = await openCredentials(storeTarget(args));
    try {
      if (action === 'list') {
        const rows = await credentials.list(CLI_SCOPE);
        if (args.json) return printJson(rows);
        if (rows.length === 0) return void process.stdout.write('no stored sign-ins\n');
        for (const r of rows)
          process.stdout.write(
            `${r.server}\t${r.url}\t${r.issuer ?? '-'}\tscope=${r.scope ?? '-'}\texpires=${iso(r.expiresAt)}\t${r.refreshable ? 'refreshable' : 'no refresh token'}\n`,
          );
      } else if (action === 'logout') {
        if (!server) throw new CliError('auth logout: give a server name (see parley auth list)');
        const removed = await credentials.delete({ ...CLI_SCOPE, server });
        if (!removed) throw new CliError(`auth logout: no stored sign-in for "${server}" (see parley auth list)`, EXIT.FAILED);
        args.json
          ? printJson({ removed: server })
          : process.stdout.write(`signed out of ${server} (stored tokens and client registration deleted)\n`);
      } else throw new CliError(`auth: unknown action "${action}" (list, logout)`);
    } finally {
      await credentials.close();
    }
  },
});
