/**
 * `parley serve`: the gateway (src/gateway) in front of an MCP client. `--stdio` is what desktop
 * clients spawn (stdout carries MCP only; every log line goes to stderr); `--http` serves Streamable
 * HTTP on 127.0.0.1, dual-era. Prompts the client cannot answer go to parley's web console (single
 * user; stderr names its address without the token and the 0600 file that holds the full address,
 * beside the database; the token is never logged) or, with `--headless` or several users, fail at once
 * with a clear message. `parley serve token <user>` makes a bearer token; with `gateway.oauth` the HTTP
 * gateway also accepts OAuth access tokens of that issuer (`src/gateway/oauth.ts`).
 * docs/gateway.md.
 * @module
 */
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { defineCommand } from 'citty';
import { createGateway, DEFAULT_TENANT, DEFAULT_USER, gatewayIdentities, newToken } from '../gateway/index.js';
import { formatConfigIssues, HeadlessPresenter } from '../host/index.js';
import type { Presenter, InputRequestView } from '../host/index.js';
import { hostApiFor, startConsole, WebPresenter } from '../ui/web/index.js';
import { resolveConfig } from './defaults.js';
import { invalidReasons } from './context.js';
import { CliError, EXIT } from './output.js';
import { SHUTDOWN_BOUND_MS, writeConsoleUrlFile } from './up.js';
import { openCredentials, openStore, STORE_ENV, stateDir, storeArgs, storeTarget } from './context.js';

/** Set in the environment of every server a gateway starts. */
export const GATEWAY_MARKER = 'PARLEY_GATEWAY_PID';

const err = (line: string) => void process.stderr.write(`parley: ${line}\n`);

/** Default database: `$XDG_STATE_HOME/parley/gateway.db` (desktop clients start us in any directory). */
function defaultDb(env = process.env): string {
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'parley', 'gateway.db');
}

/** Wraps the console presenter so each prompt that waits there says where, on stderr (never the token). */
function announcing(inner: Presenter, url: () => string): Presenter {
  return {
    interactive: inner.interactive,
    sampling: inner.sampling,
    present(prompt: InputRequestView, signal: AbortSignal) {
      const what = prompt.call?.tool ? ` during ${prompt.call.tool}` : '';
      err(
        prompt.sampling
          ? `server "${prompt.server}" asks for a model reply (sampling)${what}: open ${url()}`
          : `server "${prompt.server}" asks for input${what}; the client cannot answer it: open ${url()}`,
      );
      return inner.present(prompt, signal);
    },
    notify: (n) => inner.notify(n),
    ...(inner.decide ? { decide: inner.decide.bind(inner) } : {}),
  };
}

const tokenCommand = defineCommand({
  meta: {
    name: 'token',
    description:
      'Make a bearer token for a gateway user (of a tenant with --tenant); prints the token once and the parley.json lines with its hash',
  },
  args: {
    user: { type: 'positional', required: true, description: 'user name (letters, digits, . _ @ -)' },
    tenant: { type: 'string', description: 'the user\'s tenant (letters, digits, . _ @ -); default: gateway.users, tenant "default"' },
    admin: {
      type: 'boolean',
      description: "make the user an administrator of the tenant (reads the tenant's /admin/* views)",
      default: false,
    },
  },
  run({ args }) {
    const user = String(args.user);
    if (!/^[A-Za-z0-9._@-]{1,64}$/.test(user))
      throw new CliError(`user name "${user}" must be 1-64 characters of letters, digits, ".", "_", "@" or "-"`, EXIT.USAGE);
    const tenant = args.tenant === undefined ? DEFAULT_TENANT : String(args.tenant);
    if (!/^[A-Za-z0-9._@-]{1,64}$/.test(tenant))
      throw new CliError(`--tenant "${tenant}" must be 1-64 characters of letters, digits, ".", "_", "@" or "-"`, EXIT.USAGE);
    if (args.admin && tenant === DEFAULT_TENANT)
      throw new CliError('--admin needs --tenant <t>: administrators are per tenant (gateway.tenants.<t>.admins)', EXIT.USAGE);
    const t = newToken();
    const entry = { [user]: { tokenSha256: t.tokenSha256 } };
    const lines =
      tenant === DEFAULT_TENANT
        ? { gateway: { users: entry } }
        : { gateway: { tenants: { [tenant]: { users: entry, ...(args.admin ? { admins: [user] } : {}) } } } };
    const who = tenant === DEFAULT_TENANT ? user : `${user} (tenant ${tenant})`;
    process.stdout.write(
      `token for ${who} (shown once; give it to ${user}, keep it out of files):\n  ${t.token}\n\nadd to parley.json:\n${JSON.stringify(lines, null, 2)}\n`,
    );
  },
});

export const serveCommand = defineCommand({
  meta: {
    name: 'serve',
    description: 'Run the gateway: serve the configured servers to an MCP client over stdio or HTTP, with elicitation, roots and policy',
  },
  args: {
    stdio: { type: 'boolean', description: 'serve over stdin/stdout (what desktop clients spawn)', default: false },
    http: { type: 'boolean', description: 'serve Streamable HTTP on 127.0.0.1', default: false },
    port: { type: 'string', description: 'HTTP port (0 = any free port)', default: '0' },
    config: {
      type: 'string',
      description:
        'configuration file (highest precedence over parley.json, .mcp.json, .vscode/mcp.json, ~/.config/parley/parley.json; else the embedded default)',
    },
    ...storeArgs,
    // The gateway's own default (desktop clients start it in any directory), not the console's .parley/parley.db.
    store: {
      ...storeArgs.store,
      description: `store: a postgres://user:pw@host:port/db URL or a SQLite file path (default $${STORE_ENV}, else $XDG_STATE_HOME/parley/gateway.db, i.e. ~/.local/state/parley/gateway.db)`,
    },
    headless: { type: 'boolean', description: 'no console: prompts the client cannot answer fail at once', default: false },
  },
  subCommands: { token: tokenCommand },
  async run({ args, rawArgs }) {
    if (rawArgs[0] === 'token') return; // handled by the subcommand
    if (args.stdio === args.http) throw new CliError('choose one transport: --stdio or --http', EXIT.USAGE);
    // A configuration that lists the gateway itself (a project .mcp.json with "parley serve") would
    // start parley inside parley without end: the servers a gateway starts inherit this marker.
    if (process.env[GATEWAY_MARKER])
      throw new CliError(
        `refusing to start: this process was started by a parley gateway (${GATEWAY_MARKER} is set), so its configuration lists parley serve itself; remove that entry or pass --config with the real servers`,
        EXIT.FAILED,
      );
    process.env[GATEWAY_MARKER] = String(process.pid);
    const port = Number(args.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new CliError(`--port must be 0..65535 (got ${JSON.stringify(args.port)})`, EXIT.USAGE);
    const { config, issues, origin } = resolveConfig({ flagFile: args.config });
    if (issues.length > 0) process.stderr.write(formatConfigIssues(issues) + '\n');
    const names = Object.keys(config.servers);
    if (names.length === 0) throw new CliError(`no servers to serve (configuration from ${origin})`, EXIT.FAILED);
    const users = Object.keys(gatewayIdentities(config.gateway));
    for (const [t, def] of Object.entries(config.gateway?.tenants ?? {})) {
      const unknown = (def.servers ?? []).filter((n) => !(n in config.servers));
      if (unknown.length)
        throw new CliError(
          `gateway.tenants.${t}.servers names ${unknown.map((n) => `"${n}"`).join(', ')}, not in mcpServers (${names.join(', ')}); fix the name or remove it`,
          EXIT.FAILED,
        );
    }
    const oauth = config.gateway?.oauth;
    const multi = args.http && (users.length > 0 || !!oauth);
    // PARLEY_SECRET seals 2026-07-28 requestState; replicas of one gateway share it (docs/scaling.md).
    const secret = process.env.PARLEY_SECRET;
    if (secret !== undefined && Buffer.byteLength(secret, 'utf8') < 32) {
      throw new CliError(
        `PARLEY_SECRET must be at least 32 bytes (got ${Buffer.byteLength(secret, 'utf8')}); make one with: openssl rand -base64 32`,
        EXIT.FAILED,
      );
    }
    // --store / --db / $PARLEY_STORE, else $XDG_STATE_HOME/parley/gateway.db. Unreachable: exit 1, one line.
    const store = await openStore(args, defaultDb());
    const credentials = await openCredentials(storeTarget(args, defaultDb()));

    let consoleWhere = '';
    let consoleOrigin = '';
    const web = !args.headless && !multi ? new WebPresenter() : undefined;
    const gw = createGateway(config, {
      store,
      credentials,
      ...(secret ? { secret } : {}),
      fallback: (user) => (web && user === DEFAULT_USER ? announcing(web, () => consoleWhere) : new HeadlessPresenter()),
      log: (level, message) => (level === 'warn' || level === 'error' ? err(`${level}: ${message}`) : undefined),
      // Named to clients that cannot elicit while a prompt of their call waits in the console: the
      // address only, never the token (src/gateway/hold.ts).
      consoleAddress: () => (consoleOrigin ? `${consoleOrigin}/` : undefined),
    });
    const consoleHandle = web
      ? await startConsole({ host: hostApiFor(gw.space(DEFAULT_USER).host, store), presenter: web, port: 0 })
      : undefined;
    const urlFile = consoleHandle
      ? writeConsoleUrlFile(stateDir(storeTarget(args, defaultDb()), dirname(defaultDb())), consoleHandle)
      : undefined;
    // stderr is a log (desktop clients keep it in files): the address without its token, and where the full one is.
    consoleOrigin = consoleHandle?.origin ?? '';
    if (consoleHandle && urlFile)
      consoleWhere = `the console at ${consoleHandle.origin}/ (its address with the token is in ${urlFile.path})`;
    let onTransportClose = () => {};
    let handle;
    try {
      handle = args.stdio ? await gw.serve({ stdio: true, onClose: () => onTransportClose() }) : await gw.serve({ http: { port } });
    } catch (e) {
      await consoleHandle?.close().catch(() => undefined);
      urlFile?.remove();
      await gw.close().catch(() => undefined);
      await store.close();
      const code = (e as { code?: string }).code;
      throw new CliError(
        code === 'EADDRINUSE'
          ? `port ${port} is in use; choose another with --port, or 0 for any free port`
          : `cannot serve: ${(e as Error).message}`,
        EXIT.FAILED,
      );
    }
    const served = handle;
    err(
      `gateway for ${names.join(', ')} (configuration from ${origin === 'embedded' ? 'the embedded default' : config.sources.join(', ')})`,
    );
    for (const [name, why] of Object.entries(invalidReasons(config, issues))) err(`${name}: not served, its tools are missing: ${why}`);
    if (args.http)
      err(`serving MCP at ${served.url}${multi ? ` for ${users.length} user(s) with bearer tokens` : ' (single user, loopback only)'}`);
    if (args.http && oauth)
      err(
        `accepting OAuth access tokens of ${oauth.issuer} for resource ${oauth.resource ?? served.url} (metadata: ${new URL(oauth.resource ?? served.url).origin}/.well-known/oauth-protected-resource)`,
      );
    if (!args.http && oauth) err('gateway.oauth applies to --http only; over stdio there is one user');
    err(
      consoleHandle
        ? `prompts the client cannot answer go to ${consoleWhere}`
        : 'no console: prompts the client cannot answer fail at once',
    );

    await new Promise<void>((done) => {
      let stopping = false;
      const stop = (why: string) => {
        if (stopping) return;
        stopping = true;
        err(`stopping (${why})…`);
        setTimeout(() => process.exit(EXIT.FAILED), SHUTDOWN_BOUND_MS).unref();
        void (async () => {
          await served.close().catch(() => undefined);
          await consoleHandle?.close().catch(() => undefined);
          urlFile?.remove();
          await gw.close().catch(() => undefined);
          await store.close().catch(() => undefined);
          setTimeout(() => process.exit(EXIT.OK), 200).unref();
          done();
        })();
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
      // A desktop client ends a stdio server by closing its stdin; the transport may also give up on
      // its own (an oversized message closes it and pauses stdin, so 'end' never comes).
      if (args.stdio) process.stdin.once('end', () => stop('stdin closed'));
      onTransportClose = () => stop('the stdio connection closed');
    });
  },
});
