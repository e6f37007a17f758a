/**
 * The terminal presenter: shows an input request on a terminal with `@clack/prompts` and returns the
 * person's answer. Spec: MCP `client/elicitation` 2025-11-25 §User Interaction Model (the server is
 * named, the person reviews before sending, decline and cancel are always possible) and §Safe URL
 * Handling (the full URL is shown with its host highlighted; nothing is fetched or opened without
 * an explicit choice).
 *
 * Keys: Esc or Ctrl-C at any prompt answers `cancel`. Prompts are drawn on `output` (default
 * stderr) so that stdout stays free for tool results. One prompt at a time; later ones wait.
 * Every text a server chose is drawn through `termText` (`safe-text.ts`): its control characters
 * (ESC, CR, …) and bidirectional controls are shown, never obeyed.
 * @module
 */
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import * as p from '@clack/prompts';
import { coerceFormValues, validateContent } from '../../schema/index.js';
import type { Issue, RequestedSchema } from '../../schema/index.js';
import type {
  Presenter,
  PresenterAnswer,
  PresenterDecision,
  PresenterDecisionAnswer,
  PresenterNotice,
  InputRequestView,
} from '../../host/presenter.js';
import type { RememberScope } from '../../host/store/types.js';
import { askField, CANCELLED, MaskedValue, promptSignal, SKIPPED } from './fields.js';
import { isConnectionClosed, ServerStops } from '../server-stop.js';
import { termText } from './safe-text.js';

export interface TerminalPresenterOptions {
  /** @default process.stdin */
  input?: Readable;
  /** @default process.stderr */
  output?: Writable;
  /** Colour the highlighted URL host. @default output is a TTY and NO_COLOR is unset */
  colour?: boolean;
  /** Opens a URL in a browser, only when the person chooses to. @default the platform opener */
  openUrl?: (url: string) => void;
}

/** Opens `url` with the platform's opener, detached; never waits for it. */
export function openInBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    spawn(cmd, args, { detached: true, stdio: 'ignore' })
      .on('error', () => undefined)
      .unref();
  } catch {
    // no opener: the URL is printed already
  }
}

export class TerminalPresenter implements Presenter {
  readonly interactive = true;
  /** Sampling requests are shown: the conversation, a reply to type, send / decline / cancel. */
  readonly sampling = true;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly colour: boolean;
  /** A stop of the asking server is said once for all its prompts (src/ui/server-stop.ts). */
  private readonly stops = new ServerStops((n) => this.notify(n));

  constructor(private readonly opts: TerminalPresenterOptions = {}) {
    this.input = opts.input ?? process.stdin;
    this.output = opts.output ?? process.stderr;
    this.colour = opts.colour ?? (Boolean((this.output as NodeJS.WriteStream).isTTY) && process.env.NO_COLOR === undefined);
  }

  /** Shows `prompt` once the previous prompt is done. Resolves `cancel` when `signal` aborts. */
  present(prompt: InputRequestView, signal: AbortSignal): Promise<PresenterAnswer> {
    const stopped = () => isConnectionClosed(signal.reason) && this.stops.closed(prompt.server, prompt.id, prompt.message);
    signal.addEventListener('abort', stopped, { once: true });
    const run = this.queue
      .then(() => (signal.aborted ? ({ action: 'cancel' } as const) : this.show(prompt, signal)))
      .finally(() => signal.removeEventListener('abort', stopped));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Retry or cancel after a `-32042` URL step (a host decision). Queued like prompts; resolves `cancel`
   * when `signal` aborts (the host withdraws the question when the server reports the step complete).
   */
  decide(d: PresenterDecision, signal: AbortSignal): Promise<PresenterDecisionAnswer> {
    const run = this.queue.then(async (): Promise<PresenterDecisionAnswer> => {
      if (signal.aborted) return 'cancel';
      p.note(
        termText([d.message, ...d.urls.map((u) => `URL:  ${u}`)].join('\n'), { lines: true }),
        termText(`${d.server} needs a browser step before ${d.tool} can run`),
        this.io,
      );
      const choice = await p.select({
        ...this.io,
        signal,
        message: termText(`Retry ${d.tool} now?`),
        options: [
          { value: 'retry' as const, label: 'Retry', hint: 'I finished the step in the browser' },
          { value: 'cancel' as const, label: 'Cancel', hint: 'end the tool call' },
        ],
        initialValue: 'retry' as const,
      });
      return p.isCancel(choice) ? 'cancel' : choice;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  notify(n: PresenterNotice): void {
    try {
      if (this.stops.swallow(n)) return;
      this.output.write(`${termText(`parley: ${n.server}: ${n.message}${n.reason ? ` (${n.reason})` : ''}`, { lines: true })}\n`);
    } catch {
      // notices must not throw
    }
  }

  private get io() {
    return { input: this.input, output: this.output };
  }

  private header(prompt: InputRequestView): void {
    const lines = [prompt.message];
    for (const r of prompt.repairs) lines.push(`repaired ${r.path}: ${r.message}`);
    for (const [i, w] of prompt.warnings.entries()) lines.push(`warning: ${warningText(w, prompt.warningDetails?.[i])}`);
    for (const l of prompt.lint ?? []) if (l.severity === 'error') lines.push(`schema ${l.path}: ${l.message}`);
    const bySource = new Map<string, string[]>();
    for (const [f, src] of Object.entries(prompt.prefillSources)) bySource.set(src, [...(bySource.get(src) ?? []), f]);
    for (const [src, fields] of bySource) lines.push(`prefilled from ${src}: ${fields.join(', ')}`);
    if (prompt.call) lines.push(`(during tool call ${prompt.call.tool})`);
    p.note(
      termText(lines.join('\n'), { lines: true }),
      termText(
        prompt.sampling
          ? `${prompt.server} asks for a model reply (sampling)`
          : prompt.configInput
            ? `parley needs a value to start ${prompt.server}`
            : `${prompt.server} is asking`,
      ),
      this.io,
    );
    if (prompt.issues?.length) for (const i of prompt.issues) p.log.error(termText(i.message, { lines: true }), this.io);
  }

  private async show(prompt: InputRequestView, signal: AbortSignal): Promise<PresenterAnswer> {
    this.header(prompt);
    if (prompt.mode === 'url') return this.url(prompt, signal);
    const schema = prompt.schema ?? ({ type: 'object', properties: {} } as RequestedSchema);
    const names = Object.keys(schema.properties);
    const raw: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(prompt.prefill)) if (k in schema.properties) raw[k] = v;
    let ask = prompt.issues?.length ? fieldsOf(prompt.issues, names) : names;
    // Fields the person masked (typed MASK_WORD): hidden from then on, listed in the answer's `masked`.
    const masked = new Set<string>();
    for (;;) {
      for (const name of ask) {
        const hide = prompt.sensitiveFields.includes(name) || masked.has(name);
        const got = await askField(schema, name, hide ? undefined : raw[name], hide, { ...this.io, signal });
        if (got === CANCELLED) return { action: 'cancel' };
        const v = got instanceof MaskedValue ? got.value : got;
        if (got instanceof MaskedValue) masked.add(name);
        if (v === SKIPPED || v === CANCELLED) delete raw[name];
        else raw[name] = v;
      }
      const choice = await this.select(signal, {
        message: termText(
          prompt.sampling
            ? `Send this reply to ${prompt.server} as the model's answer?`
            : names.length
              ? `Send these answers to ${prompt.server}?`
              : `${prompt.server}: confirm?`,
        ),
        options: [
          {
            value: 'accept',
            label: prompt.sampling ? 'Send' : 'Accept',
            hint: prompt.sampling ? 'approve and send the reply' : names.length ? 'send the answers' : 'confirm',
          },
          { value: 'decline', label: 'Decline', hint: 'say no to the server' },
          { value: 'cancel', label: 'Cancel', hint: 'dismiss without answering' },
        ],
      });
      if (p.isCancel(choice) || choice === 'cancel') return { action: 'cancel' };
      if (choice === 'decline') return { action: 'decline' };
      const checked = check(schema, raw);
      if (!checked.ok) {
        for (const i of checked.issues) p.log.error(termText(i.message, { lines: true }), this.io);
        const again = fieldsOf(checked.issues, names);
        ask = again.length ? again : names;
        continue;
      }
      const remember =
        prompt.sensitiveFields.length || !names.length || prompt.sampling || prompt.configInput ? undefined : await this.remember(signal);
      if (remember === CANCELLED) return { action: 'cancel' };
      const hidden = masked.size ? { masked: [...masked] } : {};
      if (remember === 'auto') return { action: 'accept', content: checked.value, remember: 'always', auto: true, ...hidden };
      return { action: 'accept', content: checked.value, ...(remember ? { remember } : {}), ...hidden };
    }
  }

  /** `p.select` on its own prompt signal ({@link promptSignal}). */
  private async select<T>(
    signal: AbortSignal,
    opts: Omit<Parameters<typeof p.select<T>>[0], 'input' | 'output' | 'signal'>,
  ): Promise<T | symbol> {
    const scoped = promptSignal(signal);
    try {
      return await p.select<T>({ ...opts, ...this.io, signal: scoped.signal } as Parameters<typeof p.select<T>>[0]);
    } finally {
      scoped.release();
    }
  }

  /** `'auto'`: remember always and answer automatically next time (revocable with `parley answers`). */
  private async remember(signal: AbortSignal): Promise<RememberScope | 'auto' | typeof CANCELLED> {
    const r = await this.select(signal, {
      message: 'Remember these answers?',
      options: [
        { value: 'once' as const, label: 'Just this once' },
        { value: 'session' as const, label: 'For this session' },
        { value: 'always' as const, label: 'Always: prefill only (for this server and form)' },
        { value: 'auto' as const, label: 'Always: answer automatically next time (for this server and form; undo with parley answers)' },
      ],
      initialValue: 'once' as RememberScope | 'auto',
    });
    return p.isCancel(r) ? CANCELLED : (r as RememberScope | 'auto');
  }

  private async url(prompt: InputRequestView, signal: AbortSignal): Promise<PresenterAnswer> {
    const u = prompt.url;
    if (!u) return { action: 'decline' };
    // The URL, host and warnings are made safe one by one: the highlight is parley's own escape sequence.
    const host = termText(u.host);
    const hl = this.colour ? `\x1b[1;4m${host}\x1b[22;24m` : `[${host}]`;
    const shownUrl = termText(u.full);
    const full = shownUrl.replace(termText(u.asciiHost), hl);
    const lines = [
      `URL:  ${full.includes(hl) ? full : shownUrl}`,
      `host: ${host}${u.host !== u.asciiHost ? ` (on the wire: ${termText(u.asciiHost)})` : ''}`,
    ];
    for (const [i, w] of u.warnings.entries()) lines.push(termText(`warning: ${warningText(w, u.warningDetails?.[i])}`));
    const title = prompt.signIn
      ? `${prompt.message} (parley did not open or fetch the link)`
      : 'The server asks you to open a link (parley did not open or fetch it)';
    p.note(lines.join('\n'), termText(title), this.io);
    const choice = await this.select(signal, {
      message: termText(prompt.signIn ? `Sign in to ${prompt.server} at ${prompt.url?.host}?` : `Open this link for ${prompt.server}?`),
      options: [
        { value: 'self', label: 'I will open it myself', hint: 'consent; copy the URL above' },
        { value: 'open', label: 'Open it in my browser', hint: 'consent' },
        { value: 'decline', label: 'Decline' },
        { value: 'cancel', label: 'Cancel' },
      ],
      initialValue: 'self',
    });
    if (p.isCancel(choice) || choice === 'cancel') return { action: 'cancel' };
    if (choice === 'decline') return { action: 'decline' };
    if (choice === 'open') (this.opts.openUrl ?? openInBrowser)(u.full);
    // A sign-in: the browser comes back to parley's loopback callback; the host waits for it (bounded by
    // signInTimeoutMs, default 5 min) and the command continues by itself.
    if (prompt.signIn) p.log.info('Waiting for the sign-in to finish in your browser (at most 5 minutes by default)…', this.io);
    return { action: 'accept' };
  }
}

function check(
  schema: RequestedSchema,
  raw: Record<string, unknown>,
): { ok: true; value: Record<string, unknown> } | { ok: false; issues: Issue[] } {
  const coerced = coerceFormValues(schema, raw);
  if (!coerced.ok) return coerced;
  return validateContent(schema, coerced.value);
}

/** Field names named by issues (`/field…` pointers), in schema order. */
function fieldsOf(issues: Issue[], names: string[]): string[] {
  const hit = new Set(issues.map((i) => (i.path.split('/')[1] ?? '').replace(/~1/g, '/').replace(/~0/g, '~')));
  return names.filter((n) => hit.has(n));
}

/** A warning's text for the person when the broker gave one, with its code for reference. */
function warningText(code: string, d: { code: string; text: string } | undefined): string {
  return d && d.code === code ? `${d.text} [${code}]` : code;
}
