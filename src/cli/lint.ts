/**
 * `parley lint <file> [--revision R] [--json]`: lints a `requestedSchema`, an `elicitation/create`
 * message or an `input_required` result, then lists the repairs the host's normaliser would make.
 * Exit codes: 0 no errors, 1 errors, 2 unreadable input.
 * @module
 */
import { readFileSync } from 'node:fs';
import { defineCommand } from 'citty';
import {
  findRequestedSchemas,
  lintRequestedSchema,
  normalizeRequestedSchema,
  REVISIONS,
  type Issue,
  type Repair,
  type Revision,
} from '../schema/index.js';
import { CliError, EXIT, jsonErrorText, palette, useColour } from './output.js';

export interface LintedSchema {
  /** JSON pointer of the requestedSchema in the file. */
  path: string;
  mode: 'form' | 'url';
  issues: Issue[];
  /** Repairs the host would make; empty when the schema cannot be shown as a form. */
  repairs: Repair[];
  /** Why the host could not show it as a form, when it could not. */
  refused: Issue[];
}
export interface LintReport {
  file: string;
  revision: Revision;
  kind: string;
  /** Problems of the document as a whole (e.g. an empty input_required result). */
  issues: Issue[];
  schemas: LintedSchema[];
  errors: number;
  warnings: number;
}

/** Reads and lints `file`. @throws CliError (exit 2) for unreadable files, bad JSON or unknown documents. */
export function lintFile(file: string, revision: Revision): LintReport {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new CliError(`${file}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new CliError(`${file}: not UTF-8 text; save the file as UTF-8 JSON`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new CliError(
      `${file}: not valid JSON (${jsonErrorText(text, e)}); give a requestedSchema, an elicitation/create message or an input_required result`,
    );
  }
  const { kind, found, issues: docIssues } = findRequestedSchemas(doc, { revision });
  if (kind === 'unknown')
    throw new CliError(
      `${file}: no requestedSchema found; expected a JSON Schema object, an elicitation/create request, or an input_required result with inputRequests`,
    );
  const schemas = found.map((f): LintedSchema => {
    if (f.mode === 'url') return { path: f.path, mode: 'url', issues: f.requestIssues, repairs: [], refused: [] };
    const prefix = (i: Issue) => ({ ...i, path: f.path + i.path });
    const n = normalizeRequestedSchema(f.schema, { revision });
    return {
      path: f.path,
      mode: 'form',
      issues: [...f.requestIssues, ...lintRequestedSchema(f.schema, { revision }).map(prefix)],
      repairs: n.ok ? n.repairs.map((r) => ({ ...r, path: f.path + r.path })) : [],
      refused: n.ok ? [] : n.issues.map(prefix),
    };
  });
  const all = [...docIssues, ...schemas.flatMap((s) => s.issues)];
  return {
    file,
    revision,
    kind,
    issues: docIssues,
    schemas,
    errors: all.filter((i) => i.severity === 'error').length,
    warnings: all.filter((i) => i.severity === 'warning').length,
  };
}

/** Human-readable report, one line per issue. */
export function formatLintReport(r: LintReport, colour = false): string {
  const p = palette(colour);
  const lines: string[] = [];
  const issueLines = (issues: Issue[]) => {
    for (const i of issues) {
      const sev = i.severity === 'error' ? p.red('error  ') : p.yellow('warning');
      lines.push(`  ${sev} ${i.path || '(root)'}  ${i.message} ${p.dim(`[${i.code}]`)}`);
      if (i.fix) lines.push(`          ${p.dim('fix: ' + i.fix)}`);
    }
  };
  if (r.issues.length > 0) {
    lines.push(p.bold(`${r.file}: ${r.kind}`));
    issueLines(r.issues);
  }
  if (r.schemas.length === 0) lines.push(`${r.file}: ${r.kind} with no form elicitation in it`);
  for (const s of r.schemas) {
    lines.push(
      p.bold(
        `${r.file}${s.path || ' (root)'}: ${s.mode === 'url' ? `URL-mode request, revision ${r.revision}` : `requestedSchema, revision ${r.revision}`}`,
      ),
    );
    issueLines(s.issues);
    if (s.repairs.length > 0) {
      lines.push('  the host would repair:');
      for (const rep of s.repairs) lines.push(`    ${rep.path}  ${rep.message} ${p.dim(`[${rep.code}]`)}`);
    }
    if (s.refused.length > 0) {
      lines.push(p.red('  a host cannot show this as a form:'));
      for (const i of s.refused) lines.push(`    ${i.path}  ${i.message}`);
    }
  }
  lines.push(`${r.errors} error(s), ${r.warnings} warning(s)`);
  return lines.join('\n');
}

export const lintCommand = defineCommand({
  meta: {
    name: 'lint',
    description:
      'Lint a requestedSchema, an elicitation/create message or an input_required result (exit 1 on errors, 2 on unreadable input)',
  },
  args: {
    file: { type: 'positional', description: 'JSON file to lint', required: true },
    revision: { type: 'string', description: `protocol revision: ${REVISIONS.join(' | ')}`, default: '2026-07-28' },
    json: { type: 'boolean', description: 'print the report as JSON', default: false },
  },
  run({ args, rawArgs }) {
    const known = new Set(['--revision', '--json', '--no-json', '-h', '--help']);
    const positionals: string[] = [];
    for (let i = 0; i < rawArgs.length; i++) {
      const a = rawArgs[i];
      const flag = a.split('=')[0];
      if (a.startsWith('-')) {
        if (!known.has(flag)) throw new CliError(`lint: unknown option ${flag} (see parley lint --help)`);
        if (flag === '--revision' && !a.includes('=')) i++;
      } else positionals.push(a);
    }
    if (positionals.length !== 1)
      throw new CliError(`lint: expected exactly one file, got ${positionals.length} (${positionals.join(' ') || 'none'})`);
    const revision = args.revision as Revision;
    if (!REVISIONS.includes(revision))
      throw new CliError(`--revision must be one of ${REVISIONS.join(', ')} (got ${JSON.stringify(args.revision)})`);
    const report = lintFile(String(args.file), revision);
    process.stdout.write((args.json ? JSON.stringify(report, null, 2) : formatLintReport(report, useColour())) + '\n');
    process.exitCode = report.errors > 0 ? EXIT.FAILED : EXIT.OK;
  },
});
