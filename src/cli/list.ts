/**
 * The list commands: `parley servers | tools | roots | presets | audit`, each with `--json`.
 * Roots and presets are stored at user scope (they outlive the process); see docs/cli.md.
 * @module
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand } from 'citty';
import {
  exportPresets,
  HeadlessPresenter,
  importPresets,
  MAX_PRESETS_DOCUMENT_BYTES,
  mergeAnswers,
  rememberedAnswers,
  RootRegistry,
} from '../host/index.js';
import type { Preset, Scope } from '../host/index.js';
import { normalizeRootUri, pathToFileUri } from '../schema/index.js';
import { CLI_SCOPE, commonArgs, loadConfig, openHost, openStore, parseFlags, printJson } from './context.js';
import { CliError, EXIT, jsonErrorText, timeText, withoutBom } from './output.js';
import { termText } from '../ui/terminal/safe-text.js';

const json = { type: 'boolean', description: 'print JSON' } as const;
const USER: Scope = { ...CLI_SCOPE, session: null };

const healthText = (h: { status: string; error?: string } | undefined) =>
  !h
    ? 'unchecked'
    : h.status === 'ok'
      ? 'ok'
      : `${h.status === 'timeout' ? 'timeout' : h.status} (invalid: not sent to servers${h.error ? `; ${h.error}` : ''})`;
const stateText = (s: { status: string; message?: string }, lazy = false) =>
  s.status === 'error' || s.status === 'invalid'
    ? `${s.status}: ${s.message}`
    : s.status === 'stopped' && lazy
      ? 'not started (lazy)'
      : s.status;

export const serversCommand = defineCommand({
  meta: {
    name: 'servers',
    description:
      'List configured servers (name, type, state; a lazy server shows "not started (lazy)"); --start starts them to show revision and capabilities',
  },
  args: {
    ...commonArgs,
    start: { type: 'boolean', description: 'start every server, lazy ones too (bounded by its startup timeout)' },
    json,
  },
  async run({ args, rawArgs }) {
    parseFlags('servers', rawArgs, { '--start': false, '--json': false });
    const ctx = await openHost(args, new HeadlessPresenter(true));
    try {
      const started = args.start ? await ctx.host.start(ctx.host.serverNames()) : [];
      // A start that failed is reported as it failed: by the time the list is read, the restart it
      // scheduled (backoff from 500 ms) may already be 'starting' again on a slow machine.
      const failed = new Map(started.filter((r) => !r.ok && r.error).map((r) => [r.name, r.error!.message]));
      const list: Array<{
        name: string;
        type: string;
        state: { status: string; message?: string };
        lazy?: boolean;
        revision?: string;
        capabilities?: unknown;
      }> = ctx.host
        .listServers()
        .map(({ stderr: _e, ...s }) =>
          failed.has(s.name) && s.state.status !== 'error'
            ? { ...s, state: { status: 'error', message: `could not start: ${failed.get(s.name)}` } }
            : s,
        );
      for (const [name, why] of Object.entries(ctx.invalid))
        list.push({ name, type: 'invalid', state: { status: 'invalid', message: why } });
      process.exitCode = list.some((s) => s.state.status === 'error' || s.state.status === 'invalid') ? EXIT.FAILED : EXIT.OK;
      if (args.json) return printJson(list);
      for (const s of list)
        process.stdout.write(
          `${s.name}\t${s.type}\t${stateText(s.state as never, s.lazy)}${s.revision ? `\trevision ${s.revision}` : ''}${s.capabilities ? `\tcapabilities ${Object.keys(s.capabilities as object).join(',')}` : ''}\n`,
        );
    } finally {
      await ctx.close();
    }
  },
});

export const toolsCommand = defineCommand({
  meta: { name: 'tools', description: 'List tools per server (starts the servers); exit 1 when a server fails' },
  args: { server: { type: 'positional', required: false, description: 'only this server' }, ...commonArgs, json },
  async run({ args, rawArgs }) {
    const pos = parseFlags('tools', rawArgs, { '--json': false });
    const ctx = await openHost(args, new HeadlessPresenter(true));
    try {
      const names = pos.length ? pos : [...ctx.host.serverNames(), ...Object.keys(ctx.invalid)];
      for (const n of names)
        if (!ctx.host.serverNames().includes(n) && !Object.hasOwn(ctx.invalid, n))
          throw new CliError(`tools: no server named "${n}" (configured: ${ctx.host.serverNames().join(', ')})`, EXIT.FAILED);
      const out: Record<string, { tools?: Array<{ name: string; description?: string }>; error?: string }> = {};
      await Promise.all(
        names.map(async (n) => {
          if (Object.hasOwn(ctx.invalid, n)) return void (out[n] = { error: `invalid configuration: ${ctx.invalid[n]}` });
          try {
            const tools = await ctx.host.listTools(n);
            out[n] = {
              tools: tools.map((t) => ({
                name: t.name,
                ...(t.description ? { description: t.description } : {}),
                inputSchema: t.inputSchema,
              })),
            };
          } catch (e) {
            out[n] = { error: (e as Error).message };
          }
        }),
      );
      if (args.json) printJson(out);
      else
        for (const n of names) {
          process.stdout.write(`${n}${out[n].error ? `: error: ${out[n].error}` : ''}\n`);
          // A server's names and descriptions are shown, never obeyed (an ESC sequence could hide text
          // from the person reviewing the tools, e.g. SGR 8 "conceal"): see src/ui/terminal/safe-text.ts.
          for (const t of out[n].tools ?? [])
            process.stdout.write(`  ${termText(t.name)}${t.description ? `  ${termText(t.description.split('\n')[0])}` : ''}\n`);
        }
      process.exitCode = Object.values(out).some((o) => o.error) ? EXIT.FAILED : EXIT.OK;
    } finally {
      await ctx.close();
    }
  },
});

/** Whether two root URIs name the same root (normalised); a malformed stored URI matches nothing. */
function sameRoot(a: string, b: string): boolean {
  try {
    return normalizeRootUri(a) === normalizeRootUri(b);
  } catch {
    return false;
  }
}

export const rootsCommand = defineCommand({
  meta: { name: 'roots', description: 'List roots; `roots add <path|uri> [--name N] [--scope app]`, `roots remove <uri>`' },
  args: {
    action: { type: 'positional', required: false, description: 'list (default) | add | remove' },
    target: { type: 'positional', required: false, description: 'path or URI' },
    name: { type: 'string', description: 'root name (add)' },
    scope: { type: 'string', description: 'app (kept in the store; the default and only scope a one-shot command can give)' },
    ...commonArgs,
    json,
  },
  async run({ args, rawArgs }) {
    const [action = 'list', target, ...extra] = parseFlags('roots', rawArgs, { '--name': true, '--scope': true, '--json': false });
    if (extra.length) throw new CliError(`roots: unexpected arguments ${extra.join(' ')}`);
    const { config } = loadConfig(args.config);
    const store = await openStore(args);
    try {
      const reg = new RootRegistry({ store, scope: USER, routes: config.routes });
      await reg.ready;
      for (const r of config.roots) reg.add(r.uri, { name: r.name, lifetime: 'app', source: 'config' });
      if (action === 'add' || action === 'remove') {
        if (!target) throw new CliError(`roots ${action}: give a path or URI`);
        const uri =
          /^[a-z][a-z0-9+.-]*:/i.test(target) && !/^[a-z]:[\\/]/i.test(target)
            ? target
            : pathToFileUri(resolve(target), { platform: process.platform === 'win32' ? 'win32' : 'posix' });
        if (action === 'add') {
          const lifetime = (args.scope ?? 'app') as string;
          if (lifetime === 'session')
            throw new CliError(
              'roots add: --scope session would end with this command (each parley command is its own session); use --scope app (kept in the store), add the root in the console of a running `parley up`, or put it in a preset',
            );
          if (lifetime !== 'app') throw new CliError(`roots add: --scope must be app (got ${JSON.stringify(lifetime)})`);
          // A root of the configuration is read anew by every command, which would undo a stored copy.
          const fromConfig = reg.get(uri);
          if (fromConfig?.source === 'config') {
            reg.close();
            if (args.json) return void printJson({ ...fromConfig, added: false });
            return void process.stdout.write(
              `${fromConfig.uri} is already a root, from the configuration (${config.sources.join(', ') || 'the embedded default'}); nothing added (change its name there)\n`,
            );
          }
          let root;
          try {
            root = reg.add(uri, { name: args.name as string | undefined, lifetime: lifetime as 'app' | 'session', source: 'user' });
          } catch (e) {
            throw new CliError(`roots add: ${(e as Error).message}`);
          }
          // Checked now (bounded, 2000 ms), so a typo'd or not-yet-created folder is said at once: it is
          // kept, but not sent to servers while it is missing or unreadable.
          if (!root.virtual) await reg.check(root.uri);
          const added = reg.list().find((r) => r.uri === root.uri) ?? root;
          args.json
            ? printJson(added)
            : process.stdout.write(
                `added ${added.uri}${added.virtual ? ' (virtual: routing only)' : added.health?.status === 'ok' ? '' : `: ${healthText(added.health)}`}\n`,
              );
        } else {
          // A root of the configuration is put back by every command: "removed" would not be true. A stored
          // copy under it (added before the configuration named it) is what a remove can take away.
          const fromConfig = reg.get(uri);
          if (fromConfig?.source === 'config') {
            const stored = (await store.listRoots(USER)).find((r) => sameRoot(r.uri, fromConfig.uri));
            if (stored) {
              await store.deleteRoot(USER, stored.uri);
              reg.close();
              if (args.json) return void printJson({ removed: stored.uri, stillFromConfig: true });
              return void process.stdout.write(
                `removed the stored copy of ${fromConfig.uri}; it stays a root while the configuration (${config.sources.join(', ') || 'the embedded default'}) names it in "roots"\n`,
              );
            }
            throw new CliError(
              `roots remove: ${reg.get(uri)!.uri} comes from the configuration (${config.sources.join(', ') || 'the embedded default'}), which every command reads again; remove it from "roots" there`,
              EXIT.FAILED,
            );
          }
          const ok = reg.remove(uri);
          if (!ok) throw new CliError(`roots remove: no root ${uri} (see parley roots)`, EXIT.FAILED);
          args.json ? printJson({ removed: uri }) : process.stdout.write(`removed ${uri}\n`);
        }
      } else if (action === 'list') {
        // Health is checked now (bounded, 2000 ms per root): a missing or unreadable root is shown as
        // such, and it is what servers are not sent.
        await reg.check();
        const list = reg.list();
        if (args.json) printJson(list);
        else if (!list.length) process.stdout.write('no roots (add one: parley roots add <path> [--name N])\n');
        else
          for (const r of list)
            process.stdout.write(
              `${r.uri}${r.name ? `\t${r.name}` : ''}\t${r.lifetime}\t${r.source}\t${r.virtual ? 'virtual' : healthText(r.health)}\n`,
            );
      } else throw new CliError(`roots: unknown action "${action}" (list, add, remove)`);
      await reg.flush();
      reg.close();
    } finally {
      await store.close();
    }
  },
});

export const presetsCommand = defineCommand({
  meta: {
    name: 'presets',
    description: 'List presets; `presets save <name>`, `load <name>`, `unload [name]`, `export [file]`, `import <file>`',
  },
  args: {
    action: { type: 'positional', required: false, description: 'list (default) | save | load | unload | export | import' },
    target: { type: 'positional', required: false, description: 'preset name or file' },
    ...commonArgs,
    json,
  },
  async run({ args, rawArgs }) {
    const [action = 'list', target] = parseFlags('presets', rawArgs, { '--json': false });
    const { config } = loadConfig(args.config);
    const store = await openStore(args);
    try {
      if (action === 'list') {
        const stored = (await store.listPresets(USER)).map((p) => ({
          name: p.name,
          source: 'store',
          roots: p.roots.length,
          answers: Object.keys(p.answers),
          updatedAt: p.updatedAt,
        }));
        const fromConfig = Object.entries(config.presets).map(([name, p]) => ({
          name,
          source: 'config',
          roots: p.roots?.length ?? 0,
          answers: Object.keys(p.answers ?? {}),
        }));
        const all = [...stored, ...fromConfig];
        if (args.json) return printJson(all);
        if (!all.length) process.stdout.write('no presets (save the current roots and answers: parley presets save <name>)\n');
        for (const p of all)
          process.stdout.write(`${p.name}\t${p.source}\t${p.roots} root(s)\tanswers for: ${p.answers.join(', ') || '-'}\n`);
      } else if (action === 'save') {
        if (!target) throw new CliError('presets save: give a name');
        const reg = new RootRegistry({ store, scope: USER });
        await reg.ready;
        const earlier = await store.loadPreset(USER, target);
        const preset: Preset = {
          name: target,
          scope: USER,
          roots: reg
            .list()
            .filter((r) => r.source !== 'config')
            .map((r) => ({ uri: r.uri, ...(r.name ? { name: r.name } : {}) })),
          answers: mergeAnswers(earlier?.answers, await rememberedAnswers(store, USER)),
          config: earlier?.config ?? {},
          updatedAt: Date.now(),
        };
        reg.close();
        await store.savePreset(preset);
        args.json
          ? printJson(preset)
          : process.stdout.write(
              `saved preset ${target} (${preset.roots.length} root(s); answers for ${Object.keys(preset.answers).join(', ') || 'no server'})\n`,
            );
      } else if (action === 'load') {
        if (!target) throw new CliError('presets load: give a name');
        const p =
          (await store.loadPreset(USER, target)) ??
          (config.presets[target]
            ? { name: target, roots: config.presets[target].roots ?? [], answers: config.presets[target].answers ?? {} }
            : undefined);
        if (!p) {
          const known = [...(await store.listPresets(USER)).map((x) => x.name), ...Object.keys(config.presets)];
          throw new CliError(`presets load: no preset named "${target}" (saved: ${known.join(', ') || 'none'})`, EXIT.FAILED);
        }
        const reg = new RootRegistry({ store, scope: USER });
        await reg.ready;
        for (const r of config.roots) reg.add(r.uri, { name: r.name, lifetime: 'app', source: 'config' });
        // A root the person already has (stored or from the configuration) keeps its name, scope and source:
        // loading a scene adds what is missing and loses nothing.
        const have = new Set(reg.list().map((r) => r.uri));
        let added = 0;
        for (const r of p.roots) {
          let key = r.uri;
          try {
            key = normalizeRootUri(r.uri);
          } catch {
            // an unusable URI is refused by add() below, with its reason
          }
          if (have.has(key)) continue;
          reg.add(r.uri, { name: r.name, lifetime: 'app', source: 'user' });
          have.add(key);
          added++;
        }
        await reg.flush();
        reg.close();
        const kept = p.roots.length - added;
        args.json
          ? printJson(p)
          : process.stdout.write(
              `loaded preset ${target}: added ${added} root(s) to the app roots${kept ? ` (${kept} already there, kept as they were)` : ''}; answers for ${Object.keys(p.answers).join(', ') || 'no server'}\n`,
            );
      } else if (action === 'unload') {
        // A one-shot command keeps no scene loaded: `presets load` here added the preset's roots to the
        // stored app roots, where they are the person's like any other. Unloading cannot tell them from
        // roots that were there before, so it names what to remove instead of guessing.
        const p = target ? await store.loadPreset(USER, target) : undefined;
        const rootsNow = new Set((await store.listRoots(USER)).map((r) => r.uri));
        const there = (p?.roots ?? []).map((r) => r.uri).filter((u) => rootsNow.has(u));
        throw new CliError(
          `presets unload: a parley command keeps no preset loaded; \`parley presets load\` added its roots to the app roots, which stay until removed${
            there.length ? ` (${there.map((u) => `parley roots remove ${u}`).join('; ')})` : ''
          }. A preset loaded in the console of a running \`parley up\` is unloaded there (Presets → Unload)`,
          EXIT.FAILED,
        );
      } else if (action === 'export') {
        const text = (await exportPresets(store, USER)) + '\n';
        if (target) writeFileSync(target, text);
        else process.stdout.write(text);
      } else if (action === 'import') {
        if (!target) throw new CliError('presets import: give a file');
        let text: string;
        try {
          // Checked before reading, so a huge file is refused without loading it (importPresets would refuse it too).
          const size = statSync(target).size;
          if (size > MAX_PRESETS_DOCUMENT_BYTES)
            throw new CliError(
              `presets import: ${target} is ${size} bytes, over the ${MAX_PRESETS_DOCUMENT_BYTES}-byte (4 MiB) limit; split it into smaller documents`,
            );
          text = withoutBom(readFileSync(target, 'utf8'));
        } catch (e) {
          if (e instanceof CliError) throw e;
          throw new CliError(`presets import: cannot read ${target} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        }
        try {
          JSON.parse(text);
        } catch (e) {
          // As --answers and lint say it: where, in editor terms, and what to do (exit 2, unusable input).
          throw new CliError(
            `presets import: ${target}: not valid JSON (${jsonErrorText(text, e)}); fix the file there, or write it again with parley presets export`,
          );
        }
        const r = await importPresets(store, USER, text);
        for (const i of r.issues)
          process.stderr.write(`${target} ${i.path || '(root)'}: ${i.severity}: ${i.message}${i.fix ? ` (${i.fix})` : ''}\n`);
        if (r.issues.some((i) => i.severity === 'error')) return void (process.exitCode = EXIT.FAILED);
        process.stdout.write(`imported ${r.imported} preset(s)\n`);
      } else throw new CliError(`presets: unknown action "${action}" (list, save, load, unload, export, import)`);
    } finally {
      await store.close();
    }
  },
});

export const auditCommand = defineCommand({
  meta: {
    name: 'audit',
    description:
      "Show the audit log, newest first (--server, --kind, --action, --limit); `audit purge --user <name> [--tenant <t>]` deletes a user's audit rows and remembered answers",
  },
  args: {
    op: { type: 'positional', required: false, description: 'list (default) | purge' },
    server: { type: 'string', description: 'only this server' },
    kind: { type: 'string', description: 'e.g. request, answer, tool-call, policy' },
    action: { type: 'string', description: 'e.g. accept, decline, cancel, ok, error' },
    limit: { type: 'string', description: 'maximum records (default 50)' },
    user: { type: 'string', description: 'purge: the user whose rows are deleted' },
    tenant: { type: 'string', description: 'purge: the user\'s tenant (default "default")' },
    ...commonArgs,
    json,
  },
  async run({ args, rawArgs }) {
    const [sub = 'list', ...extra] = parseFlags('audit', rawArgs, {
      '--server': true,
      '--kind': true,
      '--action': true,
      '--limit': true,
      '--json': false,
      '--user': true,
      '--tenant': true,
    });
    if (extra.length) throw new CliError(`audit: unexpected arguments ${extra.join(' ')}`);
    if (sub === 'purge') return purgeUser(args);
    if (sub !== 'list') throw new CliError(`audit: unknown action "${sub}" (list, purge)`);
    const action = args.action as string | undefined;
    const limit = args.limit === undefined ? 50 : Number(args.limit);
    if (!Number.isInteger(limit) || limit < 1)
      throw new CliError(`audit: --limit must be a positive integer (got ${JSON.stringify(args.limit)})`);
    const store = await openStore(args);
    try {
      const q = { server: args.server as string | undefined, kind: args.kind as string | undefined };
      let rows = await store.queryAudit({
        ...q,
        scope: { tenant: CLI_SCOPE.tenant, user: CLI_SCOPE.user },
        limit: action ? Math.max(limit, 1000) : limit,
      });
      if (action) rows = rows.filter((r) => r.action === action).slice(0, limit);
      if (args.json) return printJson(rows);
      for (const r of rows)
        process.stdout.write(
          `${timeText(r.ts)}\t${r.server}\t${r.kind}${r.action ? `\t${r.action}` : ''}${r.durationMs !== undefined ? `\t${r.durationMs}ms` : ''}${r.detail ? `\t${JSON.stringify(r.detail)}` : ''}\n`,
        );
    } finally {
      await store.close();
    }
  },
});

/** `parley audit purge --user <name> [--tenant <t>]`: deletes the user's audit rows and remembered answers. */
async function purgeUser(args: { user?: unknown; tenant?: unknown; json?: unknown; store?: unknown; db?: unknown }): Promise<void> {
  const user = typeof args.user === 'string' ? args.user : '';
  const tenant = typeof args.tenant === 'string' ? args.tenant : 'default';
  if (!user) throw new CliError('audit purge: give the user with --user <name> (and --tenant <t> on a multi-tenant gateway)', EXIT.USAGE);
  if (!tenant) throw new CliError('audit purge: --tenant needs a value', EXIT.USAGE);
  const store = await openStore(args);
  try {
    const r = await store.purgeUser(tenant, user);
    if (args.json) return printJson({ tenant, user, ...r });
    process.stdout.write(`purged ${user} (tenant ${tenant}): ${r.audit} audit row(s), ${r.answers} remembered answer(s)\n`);
  } finally {
    await store.close();
  }
}
