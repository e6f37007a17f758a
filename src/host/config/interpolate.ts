/**
 * Variable expansion in configuration strings.
 *
 * Forms (one pass, left to right; replaced text is never expanded again):
 * - `${NAME}` and `${env:NAME}`: the host environment variable; unset → `unset-variable` error.
 * - `${NAME:-default}` and `${env:NAME:-default}`: the variable, or `default` (literal text up to the
 *   first `}`) when it is unset or empty.
 * - `${workspaceFolder}`: the project directory; `${userHome}`: the home directory;
 *   `${pathSeparator}`: `/` (or `\` on Windows).
 * - `${input:id}`: left in place; `id` is reported in `inputRefs` for {@link resolveInputVariables}.
 * - `$NAME` without braces stays literal. A leading `~` (alone or before `/`) becomes the home
 *   directory where the caller asks for it (path-like fields).
 * Anything else inside `${…}` is a `bad-variable` error.
 * @module
 */
import { sep } from 'node:path';

export interface InterpolationContext {
  /** The host's environment (`process.env` in production). */
  env: Readonly<Record<string, string | undefined>>;
  /** Home directory, absolute. */
  home: string;
  /** The project directory (`${workspaceFolder}`), absolute. */
  workspaceFolder: string;
}

export interface ExpansionProblem {
  code: 'unset-variable' | 'bad-variable';
  message: string;
  fix: string;
}

export type Expansion = { ok: true; value: string; inputRefs: string[] } | { ok: false; problems: ExpansionProblem[] };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Matches one `${…}` reference; `[^}]*` keeps defaults literal. */
const REF = /\$\{([^}]*)\}/g;

/** Expands one string. `tilde: true` also expands a leading `~`. */
export function expand(raw: string, ctx: InterpolationContext, opts: { tilde?: boolean } = {}): Expansion {
  const problems: ExpansionProblem[] = [];
  const inputRefs: string[] = [];
  let text = raw;
  let prefix = '';
  if (opts.tilde && (text === '~' || text.startsWith('~/'))) {
    prefix = ctx.home;
    text = text.slice(1);
  }
  const open = text.replace(REF, '').indexOf('${');
  if (open !== -1) {
    problems.push({ code: 'bad-variable', message: 'unterminated "${" (no closing "}")', fix: 'close the reference with "}"' });
  }
  const value = text.replace(REF, (whole, body: string) => {
    const r = resolveOne(body, ctx);
    if (r.kind === 'input') {
      if (!inputRefs.includes(r.id)) inputRefs.push(r.id);
      return whole;
    }
    if (r.kind === 'problem') {
      problems.push(r.problem);
      return whole;
    }
    return r.value;
  });
  if (problems.length) return { ok: false, problems };
  return { ok: true, value: prefix + value, inputRefs };
}

type One = { kind: 'value'; value: string } | { kind: 'input'; id: string } | { kind: 'problem'; problem: ExpansionProblem };

function resolveOne(body: string, ctx: InterpolationContext): One {
  if (body.startsWith('input:')) {
    const id = body.slice('input:'.length);
    return id ? { kind: 'input', id } : bad('${input:} has no id', 'write ${input:<id>} with an id from "inputs"');
  }
  if (body === 'workspaceFolder') return { kind: 'value', value: ctx.workspaceFolder };
  if (body === 'userHome') return { kind: 'value', value: ctx.home };
  if (body === 'pathSeparator') return { kind: 'value', value: sep };
  const spec = body.startsWith('env:') ? body.slice('env:'.length) : body;
  const cut = spec.indexOf(':-');
  const name = cut === -1 ? spec : spec.slice(0, cut);
  if (!NAME.test(name)) {
    return bad(
      `"\${${body}}" is not a supported variable`,
      'use ${NAME}, ${NAME:-default}, ${env:NAME}, ${workspaceFolder}, ${userHome} or ${input:id}',
    );
  }
  const v = ctx.env[name];
  if (cut !== -1) return { kind: 'value', value: v === undefined || v === '' ? spec.slice(cut + 2) : v };
  if (v === undefined) {
    return {
      kind: 'problem',
      problem: {
        code: 'unset-variable',
        message: `environment variable ${name} is not set`,
        fix: `set ${name} in the environment, or give a default: \${${name}:-value}`,
      },
    };
  }
  return { kind: 'value', value: v };
}

function bad(message: string, fix: string): One {
  return { kind: 'problem', problem: { code: 'bad-variable', message, fix } };
}
