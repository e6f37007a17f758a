/**
 * `${input:id}` resolution (VS Code `inputs`), at a server's first start.
 *
 * Each input is asked once: answers live in a caller-owned cache shared by all servers, and concurrent
 * starts wait for the same pending question. Values are inserted literally (never expanded again).
 * Env keys and header names whose value used a `password: true` input are listed in `secretEnv` /
 * `secretHeaders`: the caller masks them, keeps them out of logs and out of clear-text files.
 * @module
 */
import type { InputVariableDef, ServerDef } from './types.js';
import type { ConfigIssue, ConfigIssueCode } from './issues.js';
import { ConfigError } from './issues.js';

/** Asks a person for one input (through the presenter). `undefined` = dismissed/cancelled. */
export type AskInputVariable = (input: InputVariableDef) => Promise<string | undefined>;

const pending = new WeakMap<Map<string, string>, Map<string, Promise<string | undefined>>>();
const REF = /\$\{input:([^}]+)\}/g;

/**
 * Returns a copy of `def` with every `${input:id}` replaced, `inputRefs` removed and secrets marked.
 * @param cache answers by input id; read first, filled after asking. Share it across servers.
 * @throws {ConfigError} `unknown-input` (id not in `inputs`), `input-cancelled` (`ask` gave
 *   `undefined`), `invalid-value` (a `pickString` answer not among its options, or a `url` that is not
 *   an absolute http(s) URL once filled in). Rejections of `ask` propagate unchanged.
 */
export async function resolveInputVariables(
  def: ServerDef,
  inputs: Readonly<Record<string, InputVariableDef>>,
  ask: AskInputVariable,
  cache: Map<string, string>,
): Promise<ServerDef> {
  const ids: string[] = [];
  for (const s of stringsOf(def)) for (const m of s.matchAll(REF)) if (!ids.includes(m[1])) ids.push(m[1]);
  const unknown = ids.filter((id) => !Object.hasOwn(inputs, id));
  if (unknown.length) {
    throw new ConfigError(
      unknown.map((id) => fail(def, 'unknown-input', `refers to undefined input "${id}"`, 'define it under "inputs" with this id')),
    );
  }
  const values: Record<string, string> = {};
  for (const id of ids) values[id] = await answer(def, inputs[id], ask, cache);
  const sub = (s: string) => s.replace(REF, (_, id: string) => values[id]);
  const secretIds = new Set(ids.filter((id) => inputs[id].password === true));
  const usesSecret = (s: string) => [...s.matchAll(REF)].some((m) => secretIds.has(m[1]));
  const { inputRefs: _drop, ...rest } = def;
  if (def.type === 'stdio') {
    const secretEnv = new Set(def.secretEnv ?? []);
    for (const [k, v] of Object.entries(def.env)) if (usesSecret(v)) secretEnv.add(k);
    return {
      ...(rest as typeof def),
      command: sub(def.command),
      args: def.args.map(sub),
      env: mapValues(def.env, sub),
      ...(def.cwd !== undefined ? { cwd: sub(def.cwd) } : {}),
      ...(secretEnv.size ? { secretEnv: [...secretEnv] } : {}),
    };
  }
  const url = sub(def.url);
  if (!/^https?:\/\/[^/]/i.test(url) || !URL.canParse(url)) {
    throw new ConfigError([
      fail(
        def,
        'invalid-value',
        '"url" is not an absolute http(s) URL once inputs are filled in',
        'check the answers given for the inputs used in "url"',
      ),
    ]);
  }
  const secretHeaders = new Set(def.secretHeaders ?? []);
  for (const [k, v] of Object.entries(def.headers)) if (usesSecret(v)) secretHeaders.add(k);
  return {
    ...(rest as typeof def),
    url,
    headers: mapValues(def.headers, sub),
    ...(secretHeaders.size ? { secretHeaders: [...secretHeaders] } : {}),
  };
}

async function answer(def: ServerDef, input: InputVariableDef, ask: AskInputVariable, cache: Map<string, string>): Promise<string> {
  const cached = cache.get(input.id);
  if (cached !== undefined) return cached;
  let inflight = pending.get(cache);
  if (!inflight) pending.set(cache, (inflight = new Map()));
  let p = inflight.get(input.id);
  if (!p) {
    p = ask(input).finally(() => inflight.delete(input.id));
    inflight.set(input.id, p);
  }
  const v = await p;
  if (v === undefined)
    throw new ConfigError([
      fail(def, 'input-cancelled', `input "${input.id}" was not provided`, 'start the server again and answer the prompt'),
    ]);
  if (input.type === 'pickString' && input.options && !input.options.includes(v)) {
    throw new ConfigError([
      fail(def, 'invalid-value', `answer to input "${input.id}" is not one of its options`, `choose one of: ${input.options.join(', ')}`),
    ]);
  }
  cache.set(input.id, v);
  return v;
}

function stringsOf(def: ServerDef): string[] {
  return def.type === 'stdio'
    ? [def.command, ...def.args, ...Object.values(def.env), ...(def.cwd ? [def.cwd] : [])]
    : [def.url, ...Object.values(def.headers)];
}

function mapValues(o: Record<string, string>, f: (s: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));
}

function fail(def: ServerDef, code: ConfigIssueCode, message: string, fix: string): ConfigIssue {
  const o = def.origin;
  return {
    code,
    path: o.pointer,
    severity: 'error',
    message,
    fix,
    file: o.file,
    ...(o.line !== undefined ? { line: o.line, column: o.column } : {}),
    server: def.name,
  };
}
