/**
 * `parley call <server> <tool> [json | key=value …]`: calls one tool through the host, answering the
 * server's input requests on the terminal, from an answers file, or headlessly.
 *
 * Presenter choice: `--answers <file>` → scripted answers (never waits for a person);
 * `--non-interactive`, or stdin not a TTY → headless (presets and remembered answers only; fails fast
 * when a person would be needed); otherwise the terminal presenter.
 * Output: text content on stdout, images (an SVG sent as text too)/audio/blobs saved to temp files (the path is printed);
 * `--json` prints `structuredContent` (or the whole result when there is none) as JSON.
 * Exit: 0 ok, 1 tool error (`isError`) or failed call, 2 usage.
 * @module
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineCommand } from 'citty';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { HeadlessPresenter, ScriptedPresenter, UserInteractionRequiredError } from '../host/index.js';
import type { AnswersFile, Presenter, PresenterAnswer, PresenterNotice, InputRequestView } from '../host/index.js';
import { TerminalPresenter } from '../ui/terminal/index.js';
import { commonArgs, openHost, parseFlags, printJson } from './context.js';
import { CliError, EXIT, jsonErrorText, serverText, withoutBom } from './output.js';

/** Parses the tool arguments: one JSON object, or `key=value` pairs (values parsed as JSON when they parse). */
export function parseToolArgs(parts: string[]): Record<string, unknown> {
  if (parts.length === 1 && parts[0].trim().startsWith('{')) {
    try {
      const v = JSON.parse(parts[0]) as unknown;
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch (e) {
      throw new CliError(`call: arguments are not valid JSON (${(e as Error).message}); give a JSON object or key=value pairs`);
    }
    throw new CliError('call: arguments must be a JSON object');
  }
  const out: Record<string, unknown> = {};
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new CliError(`call: "${part}" is not key=value; give a JSON object or key=value pairs`);
    const raw = part.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // plain string
    }
    out[part.slice(0, eq)] = value;
  }
  return out;
}

/** Reads an `--answers` file. @throws CliError (exit 2) when it cannot be read or is not an answers document. */
export function readAnswers(file: string): AnswersFile {
  let text: string;
  try {
    text = withoutBom(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CliError(`--answers ${file}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    const v = JSON.parse(text) as unknown;
    if (v === '$decline' || v === '$cancel' || (typeof v === 'object' && v !== null && !Array.isArray(v))) return v as AnswersFile;
  } catch (e) {
    throw new CliError(`--answers ${file}: not valid JSON (${jsonErrorText(text, e)})`);
  }
  throw new CliError(`--answers ${file}: expected an object ({"<field>": value} or {"<server>": {...}}) or "$decline" / "$cancel"`);
}

/**
 * The `--answers` presenter: answers from the file ({@link ScriptedPresenter}), and says on stderr, once
 * per server and form, which keys of the file match no field of the form ("tabel" for "table" would
 * otherwise read only '"table" is required'): every such key of the server's own section; of a flat
 * file (which may answer several servers' forms) only when the form then lacks a required field. Keys
 * starting with `$` and, at the top level, server sections (an object, `"$decline"` or `"$cancel"`)
 * are not fields.
 */
export class AnswersFilePresenter extends ScriptedPresenter {
  readonly #said = new Set<string>();
  constructor(
    private readonly path: string,
    private readonly answers: AnswersFile,
  ) {
    super(answers);
  }

  override async present(prompt: InputRequestView, signal: AbortSignal): Promise<PresenterAnswer> {
    const fields = Object.keys(prompt.schema?.properties ?? {});
    if (prompt.mode !== 'url' && typeof this.answers === 'object') {
      const own = this.answers[prompt.server];
      const section = typeof own === 'object' && own !== null && !Array.isArray(own);
      const level = section ? (own as Record<string, unknown>) : this.answers;
      const isSection = (v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v)) || v === '$decline' || v === '$cancel';
      const unused = Object.entries(level)
        .filter(([k, v]) => !k.startsWith('$') && !fields.includes(k) && (section || !isSection(v)))
        .map(([k]) => k);
      // A flat file may answer several servers' forms: its other keys are only worth a word when this
      // form then lacks a required field (the unused key is likely that field misspelt).
      const required = prompt.schema?.required ?? [];
      const lacking = required.some((f) => !Object.hasOwn(level, f) && prompt.prefill[f] === undefined);
      const key = `${prompt.server}\u0000${fields.join('\u0000')}`;
      if (unused.length > 0 && (section || lacking) && !this.#said.has(key)) {
        this.#said.add(key);
        process.stderr.write(
          `parley: --answers ${this.path}: ${unused.map((k) => JSON.stringify(k)).join(', ')} ${unused.length === 1 ? 'matches' : 'match'} no field of ${prompt.server}'s form${section ? ` (in its "${prompt.server}" section)` : ''} and ${unused.length === 1 ? 'is' : 'are'} ignored; its fields: ${fields.join(', ') || '(none)'}\n`,
        );
      }
    }
    return super.present(prompt, signal);
  }
}

/** Wraps a presenter: notices go to stderr; a "no person can answer" error is remembered and aborts the call. */
class Watched implements Presenter {
  failure: Error | undefined;
  /** How to answer from the command line, added to a {@link UserInteractionRequiredError}. */
  static hint(e: UserInteractionRequiredError): string {
    if (e.prompt.signIn)
      return `${e.message} Run parley call on a terminal (or parley up) to sign in once; the tokens are then kept (docs/auth.md).`;
    return `${e.message} Supply answers with --answers <file> ({"${e.prompt.server}": {...}}), a preset (--preset), or run on a terminal.`;
  }
  readonly interactive: boolean;
  readonly autoSubmitPrefill?: boolean;
  readonly sampling?: boolean;
  constructor(
    private readonly inner: Presenter,
    private readonly abort: AbortController,
    private readonly rememberAs?: RememberChoice,
  ) {
    this.interactive = inner.interactive;
    this.autoSubmitPrefill = inner.autoSubmitPrefill;
    this.sampling = inner.sampling;
  }
  async present(prompt: InputRequestView, signal: AbortSignal): Promise<PresenterAnswer> {
    try {
      const a = await this.inner.present(prompt, signal);
      // --remember applies to answers the person (or the answers file) gave, in form mode.
      if (this.rememberAs && a.action === 'accept' && prompt.mode === 'form' && a.remember === undefined) {
        return this.rememberAs === 'auto' ? { ...a, remember: 'always', auto: true } : { ...a, remember: this.rememberAs };
      }
      return a;
    } catch (e) {
      if (e instanceof UserInteractionRequiredError) {
        this.failure ??= e;
        this.abort.abort(e);
      }
      throw e;
    }
  }
  /** The host's retry-or-cancel question after a -32042 URL step, when the inner presenter can ask it. */
  get decide(): Presenter['decide'] {
    return this.inner.decide?.bind(this.inner);
  }
  notify(n: PresenterNotice): void {
    // Once no person could answer, parley itself ends the call, which closes the prompt: that is not the
    // server withdrawing anything, and the failure line says what happened.
    if (this.failure && n.kind === 'cancelled-by-server') return;
    if (this.inner instanceof TerminalPresenter) return this.inner.notify(n);
    process.stderr.write(`parley: ${n.server}: ${n.message}${n.reason ? ` (${n.reason})` : ''}\n`);
  }
}

function failureText(e: Error): string {
  return e instanceof UserInteractionRequiredError ? Watched.hint(e) : e.message;
}
/** `--remember` values: how long answers of this call are kept; `auto` = always, and answered automatically next time. */
type RememberChoice = 'once' | 'session' | 'always' | 'auto';
const REMEMBER_CHOICES: readonly RememberChoice[] = ['once', 'session', 'always', 'auto'];

const EXT: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
};

/** Renders a result for the terminal; binary parts are written to a fresh temp directory. */
export function renderResult(result: CallToolResult): string {
  const lines: string[] = [];
  let dir: string | undefined;
  const save = (data: string, mime: string | undefined, stem: string, encoding: 'base64' | 'utf8' = 'base64') => {
    dir ??= mkdtempSync(join(tmpdir(), 'parley-'));
    const file = join(dir, `${stem}.${EXT[mime ?? ''] ?? 'bin'}`);
    writeFileSync(file, Buffer.from(data, encoding));
    return file;
  };
  result.content.forEach((c, i) => {
    if (c.type === 'text') lines.push(c.text);
    else if (c.type === 'image' || c.type === 'audio')
      lines.push(`[${c.type} ${c.mimeType}] saved to ${save(c.data, c.mimeType, `${c.type}-${i + 1}`)}`);
    else if (c.type === 'resource_link') lines.push(`[resource link] ${c.uri}${c.name ? ` (${c.name})` : ''}`);
    else if (c.type === 'resource') {
      const r = c.resource as { uri: string; text?: string; blob?: string; mimeType?: string };
      // An image sent as text (an SVG) is a picture, not something to read: saved like other images.
      lines.push(
        r.text !== undefined && r.mimeType?.startsWith('image/')
          ? `[resource ${r.uri} ${r.mimeType}] saved to ${save(r.text, r.mimeType, `resource-${i + 1}`, 'utf8')}`
          : r.text !== undefined
            ? `[resource ${r.uri}]\n${r.text}`
            : `[resource ${r.uri}] saved to ${save(r.blob ?? '', r.mimeType, `resource-${i + 1}`)}`,
      );
    }
  });
  if (!result.content.length && result.structuredContent !== undefined) lines.push(JSON.stringify(result.structuredContent, null, 2));
  return lines.join('\n');
}

export const callCommand = defineCommand({
  meta: {
    name: 'call',
    description: 'Call a tool; answer its input requests on the terminal, from --answers, or headlessly (exit 1 when the tool fails)',
  },
  args: {
    server: { type: 'positional', description: 'server name from the configuration', required: true },
    tool: { type: 'positional', description: 'tool name', required: true },
    arguments: {
      type: 'positional',
      description: 'a JSON object, or key=value pairs (values parsed as JSON when they parse)',
      required: false,
    },
    ...commonArgs,
    answers: {
      type: 'string',
      description:
        'answer input requests from a JSON file: {"<field>": value} or {"<server>": {...}}, "$decline" / "$cancel"; never waits for a person',
    },
    'non-interactive': {
      type: 'boolean',
      description: 'never ask a person: answer from presets and remembered answers only, else fail (default when stdin is not a terminal)',
    },
    json: { type: 'boolean', description: 'print structuredContent (or the whole result) as JSON' },
    preset: {
      type: 'string',
      description:
        'load a preset first (saved, or from the configuration): its roots are added and its answers prefill forms; with --non-interactive they answer',
    },
    remember: {
      type: 'string',
      description:
        'remember the answers given in this call: once (default), session, always (prefill next time) or auto (always; answered automatically next time; see parley answers)',
    },
  },
  async run({ args, rawArgs }) {
    const pos = parseFlags('call', rawArgs, {
      '--answers': true,
      '--non-interactive': false,
      '--json': false,
      '--preset': true,
      '--remember': true,
    });
    const rememberAs = args.remember === undefined ? undefined : (String(args.remember) as RememberChoice);
    if (rememberAs !== undefined && !REMEMBER_CHOICES.includes(rememberAs))
      throw new CliError(`call: --remember must be ${REMEMBER_CHOICES.join(', ')} (got ${JSON.stringify(args.remember)})`);
    if (pos.length < 2) throw new CliError('call: expected <server> <tool> [json | key=value …]');
    const [server, tool, ...rest] = pos;
    const toolArgs = parseToolArgs(rest);
    const abort = new AbortController();
    const inner: Presenter = args.answers
      ? new AnswersFilePresenter(String(args.answers), readAnswers(String(args.answers)))
      : args['non-interactive'] || !process.stdin.isTTY
        ? new HeadlessPresenter(true)
        : new TerminalPresenter();
    const presenter = new Watched(inner, abort, rememberAs);
    const ctx = await openHost(args, presenter);
    if (Object.hasOwn(ctx.invalid, server)) {
      await ctx.close();
      throw new CliError(`call: server "${server}" is not started: its configuration has errors (${ctx.invalid[server]})`, EXIT.FAILED);
    }
    if (args.preset !== undefined) {
      try {
        await ctx.host.presets.load(String(args.preset));
      } catch (e) {
        await ctx.close();
        throw new CliError(`call: ${(e as Error).message}`, EXIT.USAGE);
      }
    }
    const onSignal = () => abort.abort(new Error('interrupted'));
    process.once('SIGINT', onSignal);
    try {
      let result: CallToolResult;
      try {
        result = await ctx.host.callTool(server, tool, toolArgs, { signal: abort.signal });
      } catch (e) {
        throw new CliError(`call ${server} ${tool}: ${failureText(presenter.failure ?? (e as Error))}`, EXIT.FAILED);
      }
      if (presenter.failure) throw new CliError(`call ${server} ${tool}: ${failureText(presenter.failure)}`, EXIT.FAILED);
      if (args.json) printJson(result.structuredContent ?? result);
      else process.stdout.write(serverText(renderResult(result)) + '\n');
      process.exitCode = result.isError ? EXIT.FAILED : EXIT.OK;
    } finally {
      process.off('SIGINT', onSignal);
      await ctx.close();
    }
  },
});
