/**
 * `parley auth list`, `parley auth login <server>` and `parley auth logout <server>`: the OAuth sign-ins
 * kept for protected HTTP servers (docs/auth.md). `list` shows server, URL, issuer, scope, expiry and
 * whether a refresh token is held — never a token. `login` signs in now: it prints the authorization
 * address (a browser on this machine opens it; the redirect comes back to a loopback listener here) and
 * waits for the sign-in, at most `signInTimeoutMs` (5 min). `logout` deletes the server's stored tokens
 * and client registration (the next use signs in again); it does not revoke them at the authorization
 * server. `--user <u>` / `--tenant <t>` (default: the CLI's own user) act for a user of a multi-user
 * gateway, whose sign-ins live under (tenant, user) in the same store.
 * Exit codes: 0 ok; 1 `logout` of a server with nothing stored, a sign-in that did not complete, or the
 * credential store cannot be opened; 2 usage (unknown server or user, a bad name).
 * @module
 */
import { defineCommand } from 'citty';
import type { InputRequestView, Presenter, PresenterAnswer, PresenterNotice } from '../host/index.js';
import { gatewayIdentities, identityKey } from '../gateway/users.js';
import { CLI_SCOPE, loadConfig, openCredentials, openHost, parseFlags, printJson, storeArgs, storeTarget } from './context.js';
import { CliError, EXIT, timeText } from './output.js';

const iso = (ms: number | undefined) => (ms === undefined ? '-' : timeText(ms));
/**
 * A user as the gateway may know one: a static name, or an OAuth user claim (1-256 printable
 * characters without "/", `MAX_CLAIM_CHARS`; e.g. Auth0's `auth0|5f7c…`, `alice+work@example.com`).
 */
const USER = /^[^\u0000-\u001f\u007f/]{1,256}$/;
/** A tenant: a static name, or an OAuth tenant claim as the gateway keys it (URI-encoded, so `%`). */
const TENANT = /^[A-Za-z0-9._@%-]{1,256}$/;

/** The person ran `parley auth login`: that is the consent. Shows the address; nothing else is answered. */
class SignInPrinter implements Presenter {
  readonly interactive = true;
  signIns = 0;
  constructor(private readonly who: string) {}
  async present(p: InputRequestView): Promise<PresenterAnswer> {
    if (!p.signIn || !p.url) return { action: 'decline' };
    this.signIns++;
    process.stderr.write(
      `${p.message}${this.who}.\nOpen this address in a browser on this machine (the sign-in comes back to 127.0.0.1 here):\n\n  ${p.url.full}\n\nwaiting for the sign-in (at most 5 min; Ctrl-C stops)\n`,
    );
    return { action: 'accept' };
  }
  notify(n: PresenterNotice): void {
    process.stderr.write(`parley: ${n.server}: ${n.message}\n`);
  }
}

/** The (tenant, user) of `--tenant` / `--user`, checked against the names rule. */
export function scopeOf(args: { user?: unknown; tenant?: unknown }): { tenant: string; user: string } {
  const user = args.user === undefined ? CLI_SCOPE.user : String(args.user);
  const tenant = args.tenant === undefined ? CLI_SCOPE.tenant : String(args.tenant);
  if (!USER.test(user))
    throw new CliError(
      `--user ${JSON.stringify(user.slice(0, 300))} must be 1-256 printable characters without "/" (a gateway user name or OAuth user claim)`,
    );
  if (!TENANT.test(tenant))
    throw new CliError(
      `--tenant ${JSON.stringify(tenant.slice(0, 300))} must be 1-256 characters of letters, digits, ".", "_", "@", "%" or "-" (an OAuth tenant claim URI-encoded, as the gateway names it)`,
    );
  return { tenant, user };
}

export const authCommand = defineCommand({
  meta: {
    name: 'auth',
    description: 'Stored sign-ins of protected servers: `auth list`, `auth login <server>`, `auth logout <server>`',
  },
  args: {
    action: { type: 'positional', required: false, description: 'list (default) | login | logout' },
    server: { type: 'positional', required: false, description: 'server name (login, logout)' },
    config: { type: 'string', description: 'configuration file (login)' },
    ...storeArgs,
    user: { type: 'string', description: 'a gateway user: act on their sign-ins (default: the CLI user)' },
    tenant: { type: 'string', description: "the gateway user's tenant (default: tenant default)" },
    json: { type: 'boolean', description: 'JSON output' },
  },
  async run({ args, rawArgs }) {
    const [action = 'list', server, ...extra] = parseFlags('auth', rawArgs, { '--json': false, '--user': true, '--tenant': true });
    if (extra.length) throw new CliError(`auth: unexpected arguments ${extra.join(' ')}`);
    const scope = scopeOf(args);
    const who =
      scope.tenant === CLI_SCOPE.tenant && scope.user === CLI_SCOPE.user ? '' : ` as user "${scope.user}" of tenant "${scope.tenant}"`;
    if (action === 'login') return login(args, server, scope, who);
    const credentials = await openCredentials(storeTarget(args));
    try {
      if (action === 'list') {
        const rows = await credentials.list(scope);
        if (args.json) return printJson(rows);
        if (rows.length === 0) return void process.stdout.write(`no stored sign-ins${who}\n`);
        for (const r of rows)
          process.stdout.write(
            `${r.server}\t${r.url}\t${r.issuer ?? '-'}\tscope=${r.scope ?? '-'}\texpires=${iso(r.expiresAt)}\t${r.refreshable ? 'refreshable' : 'no refresh token'}\n`,
          );
      } else if (action === 'logout') {
        if (!server) throw new CliError('auth logout: give a server name (see parley auth list)');
        const removed = await credentials.delete({ ...scope, server });
        if (!removed) throw new CliError(`auth logout: no stored sign-in for "${server}"${who} (see parley auth list)`, EXIT.FAILED);
        args.json
          ? printJson({ removed: server })
          : process.stdout.write(`signed out of ${server}${who} (stored tokens and client registration deleted)\n`);
      } else throw new CliError(`auth: unknown action "${action}" (list, login, logout)`);
    } finally {
      await credentials.close();
    }
  },
});

async function login(
  args: { config?: string; db?: string; store?: string; json?: boolean; user?: string },
  server: string | undefined,
  scope: { tenant: string; user: string },
  who: string,
): Promise<void> {
  const { config } = loadConfig(args.config);
  const names = Object.keys(config.servers);
  if (!server) throw new CliError(`auth login: give a server name (${names.join(', ') || 'none configured'})`);
  const def = config.servers[server];
  if (!def) throw new CliError(`auth login: no server "${server}" in the configuration (${names.join(', ') || 'none configured'})`);
  if (def.type !== 'http') throw new CliError(`auth login: "${server}" is a stdio server; only HTTP servers sign in`);
  // A user the gateway does not know would sign in for nobody (a typo). With gateway.oauth users come from
  // claims, so any name may be right.
  const known = gatewayIdentities(config.gateway);
  if (args.user !== undefined && !config.gateway?.oauth && !(identityKey(scope.tenant, scope.user) in known))
    throw new CliError(
      `auth login: the gateway has no user "${scope.user}" in tenant "${scope.tenant}" (${scope.tenant === 'default' ? 'gateway.users' : `gateway.tenants.${scope.tenant}.users`} in parley.json); fix the name, or add the user with parley serve token ${scope.user}${scope.tenant === 'default' ? '' : ` --tenant ${scope.tenant}`}`,
    );
  const printer = new SignInPrinter(who);
  const ctx = await openHost(args, printer, scope);
  try {
    await ctx.host.ensureRunning(server);
  } catch (e) {
    throw new CliError(`auth login: ${server}: ${(e as Error).message}`, EXIT.FAILED);
  } finally {
    await ctx.close();
  }
  const what = printer.signIns > 0 ? 'signed in' : 'already signed in (the stored sign-in works), or the server needs none';
  if (args.json) printJson({ server, tenant: scope.tenant, user: scope.user, signedIn: printer.signIns > 0 });
  else process.stdout.write(`${server}: ${what}${who}\n`);
}
