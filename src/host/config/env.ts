/**
 * The child environment of a stdio server, and the `envFile` (dotenv) reader.
 *
 * Merge order at spawn time, later wins: the inherited (parent) environment → `envFile` variables →
 * `env`. PATH, HOME and everything else inherited stay unless a later layer overrides them.
 * @module
 */
import type { StdioServerDef } from './types.js';
import { ConfigError, pointer } from './issues.js';

/**
 * Returns the environment to spawn `def` with: `parentEnv` + `def.envFileVars` + `def.env`.
 * Entries of `parentEnv` whose value is `undefined` are dropped.
 * @throws {ConfigError} `unresolved-input` when an `env` value still holds `${input:…}` — call
 *   {@link resolveInputVariables} first; a server is never started with a literal placeholder.
 */
export function buildChildEnv(def: StdioServerDef, parentEnv: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parentEnv)) if (v !== undefined) out[k] = v;
  Object.assign(out, def.envFileVars ?? {});
  for (const [k, v] of Object.entries(def.env)) {
    if (/\$\{input:[^}]+\}/.test(v)) {
      throw new ConfigError([
        {
          code: 'unresolved-input',
          path: def.origin.pointer + pointer(['env', k]),
          severity: 'error',
          message: `env ${k} still refers to an input`,
          fix: 'resolve ${input:…} references with resolveInputVariables() before starting the server',
          file: def.origin.file,
          server: def.name,
        },
      ]);
    }
    out[k] = v;
  }
  return out;
}

export interface DotenvResult {
  vars: Record<string, string>;
  /** Lines that could not be read; 1-based line numbers. */
  problems: Array<{ line: number; message: string }>;
}

const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

/**
 * Parses dotenv text: `KEY=VALUE` lines, optional `export ` prefix, `#` comment lines, blank lines.
 * Values: `"double"` (escapes `\n \r \t \" \\`), `'single'` (literal), or unquoted (trimmed; a ` #`
 * starts a comment). No variable expansion inside values. Later duplicates win.
 */
export function parseDotenv(text: string): DotenvResult {
  const vars: Record<string, string> = {};
  const problems: DotenvResult['problems'] = [];
  text.split(/\r?\n/).forEach((rawLine, i) => {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) return;
    const body = line.startsWith('export ') ? line.slice(7).trimStart() : line;
    const eq = body.indexOf('=');
    const key = eq === -1 ? body : body.slice(0, eq).trim();
    if (eq === -1 || !KEY.test(key)) {
      problems.push({ line: i + 1, message: eq === -1 ? 'expected KEY=VALUE' : `"${key}" is not a valid variable name` });
      return;
    }
    const rest = body.slice(eq + 1).trim();
    const q = rest[0];
    if (q === '"' || q === "'") {
      const end = findClose(rest, q);
      if (end === -1) {
        problems.push({ line: i + 1, message: `unterminated ${q === '"' ? 'double' : 'single'}-quoted value` });
        return;
      }
      const inner = rest.slice(1, end);
      vars[key] = q === "'" ? inner : inner.replace(/\\(.)/g, (m, c: string) => ESCAPES[c] ?? m);
      return;
    }
    const hash = rest.search(/\s#/);
    vars[key] = (hash === -1 ? rest : rest.slice(0, hash)).trim();
  });
  return { vars, problems };
}

function findClose(s: string, q: string): number {
  for (let i = 1; i < s.length; i++) {
    if (q === '"' && s[i] === '\\') i++;
    else if (s[i] === q) return i;
  }
  return -1;
}
