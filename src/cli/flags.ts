/**
 * One contract for flags on every command: an unknown option, or a value option without its value, is a
 * one-line error and exit 2 (`CliError`), whatever the command. The known flags come from the command's own
 * citty `args`, so a command cannot forget to check them.
 * @module
 */
import type { ArgsDef, CommandDef } from 'citty';
import { CliError } from './output.js';

/** `--help`, `-h` and `--version` are known everywhere. */
const ALWAYS = new Map<string, boolean>([
  ['--help', false],
  ['-h', false],
  ['--version', false],
]);

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
}

/**
 * The flags a command takes: flag text (`--name`, `-a`) → whether it takes a value. Boolean flags also
 * accept `--no-name`.
 */
export function knownFlags(args: ArgsDef | undefined): Map<string, boolean> {
  const known = new Map(ALWAYS);
  for (const [name, def] of Object.entries(args ?? {})) {
    if (def.type === 'positional') continue;
    const takesValue = def.type === 'string' || def.type === 'enum';
    for (const n of new Set([name, kebab(name)])) {
      known.set(`--${n}`, takesValue);
      if (!takesValue) known.set(`--no-${n}`, false);
    }
    const aliases = 'alias' in def && def.alias ? (Array.isArray(def.alias) ? def.alias : [def.alias]) : [];
    for (const a of aliases) known.set(a.length === 1 ? `-${a}` : `--${a}`, takesValue);
  }
  return known;
}

/**
 * Checks `rawArgs` (what follows the command's name) against `known`.
 * @param command the command as typed, e.g. `'serve token'`, for the message.
 * @throws CliError (exit 2) naming the first unknown option, or a value option given no value.
 */
export function checkFlags(command: string, known: Map<string, boolean>, rawArgs: string[]): void {
  const see = command ? `parley ${command} --help` : 'parley --help';
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i];
    if (a === '--') return;
    if (!a.startsWith('-') || a === '-' || /^-\d/.test(a)) continue;
    const eq = a.indexOf('=');
    const flag = eq === -1 ? a : a.slice(0, eq);
    const takesValue = known.get(flag);
    if (takesValue === undefined) throw new CliError(`${command ? command + ': ' : ''}unknown option ${flag} (see ${see})`);
    if (takesValue && eq === -1) {
      if (i + 1 >= rawArgs.length) throw new CliError(`${command ? command + ': ' : ''}${flag} needs a value (see ${see})`);
      i++;
    }
  }
}

/** A command resolved from the raw arguments: the leaf command, its parent, and the names typed. */
export interface Resolved {
  leaf: CommandDef<any>;
  parent?: CommandDef<any>;
  names: string[];
}

/**
 * Walks `rawArgs` down the subcommand tree as citty does (the first word that is not an option names the
 * subcommand; lazy subcommands are loaded), checking the options typed at each level against that level's
 * command when `strict` is set.
 * @throws CliError (exit 2) from {@link checkFlags}.
 */
export async function resolveCommand(root: CommandDef<any>, rawArgs: string[], strict = true): Promise<Resolved> {
  let leaf = root;
  let parent: CommandDef<any> | undefined;
  const names: string[] = [];
  let rest = rawArgs;
  for (;;) {
    const subs = (typeof leaf.subCommands === 'function' ? await leaf.subCommands() : await leaf.subCommands) as
      | Record<string, unknown>
      | undefined;
    const args = (typeof leaf.args === 'function' ? await leaf.args() : await leaf.args) as ArgsDef | undefined;
    const idx = subs ? rest.findIndex((a) => !a.startsWith('-')) : -1;
    const loader = idx === -1 ? undefined : subs?.[rest[idx]];
    if (!loader) {
      if (strict) checkFlags(names.join(' '), knownFlags(args), rest);
      return { leaf, parent, names };
    }
    if (strict) checkFlags(names.join(' '), knownFlags(args), rest.slice(0, idx));
    parent = leaf;
    leaf = (typeof loader === 'function' ? await (loader as () => Promise<CommandDef<any>>)() : loader) as CommandDef<any>;
    names.push(rest[idx]);
    rest = rest.slice(idx + 1);
  }
}
