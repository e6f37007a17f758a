/**
 * Turns a {@link InputRequestView} into what the browser renders: one {@link FieldView} per property,
 * with its kind, bounds, options, prefill and where the prefill came from. The browser only draws;
 * every schema decision is made here with the schema core.
 * @module
 */
import { enumOptions, fieldKind, formatHint, type FieldKind, type Issue } from '../../schema/index.js';
import type { InputRequestView } from '../../host/presenter.js';

export interface FieldView {
  name: string;
  kind: FieldKind;
  title: string;
  description?: string;
  required: boolean;
  /** Mask the input and never offer to remember it. */
  sensitive: boolean;
  format?: string;
  /** How to write a `date` / `date-time` value (`FORMAT_HINTS` of the schema core: the same words as the terminal and the validation message). */
  formatHint?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  options?: Array<{ value: string; label: string }>;
  /** Prefilled value (prefill first, else the schema default). */
  value?: unknown;
  /** `'previous answer' | 'remembered' | 'preset' | 'profile' | 'default'` when `value` is set. */
  source?: string;
  /** Draw a multi-line text box (a sampling prompt's `reply`). */
  multiline?: boolean;
}

/** What the browser receives for one pending prompt. */
export interface PromptPayload {
  prompt: InputRequestView;
  fields: FieldView[];
  /** True when the form has no fields: Accept / Decline / Cancel only. */
  confirmOnly: boolean;
  /** Whether to offer "remember": form mode with at least one non-sensitive field (sensitive fields and sampling replies are never remembered). */
  rememberable: boolean;
  /** Epoch ms when the prompt was shown. */
  since: number;
  /**
   * Set for a host decision rather than a server's request (`PresenterDecision`): the page shows
   * **Retry** (answered as accept) and **Cancel the call** (cancel) instead of Accept/Decline/Cancel.
   */
  decision?: { kind: 'url-retry'; tool: string; urls: string[] };
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Builds the render model of `prompt`. Never throws on an odd schema: unknown kinds become strings. */
export function promptPayload(prompt: InputRequestView, since: number): PromptPayload {
  const props = prompt.schema?.properties ?? {};
  const required = new Set(prompt.schema?.required ?? []);
  const sensitive = new Set(prompt.sensitiveFields);
  const fields: FieldView[] = Object.entries(props).map(([name, prop]) => {
    const p = prop as unknown as Record<string, unknown>;
    let kind: FieldKind = 'string';
    try {
      kind = fieldKind(p) ?? 'string';
    } catch {
      // A schema the normaliser let through but fieldKind cannot name is shown as text.
    }
    const f: FieldView = {
      name,
      kind,
      title: typeof p.title === 'string' && p.title ? p.title : name,
      required: required.has(name),
      sensitive: sensitive.has(name),
    };
    if (typeof p.description === 'string') f.description = p.description;
    if (prompt.sampling && name === 'reply') f.multiline = true;
    if (typeof p.format === 'string') f.format = p.format;
    const hint = formatHint(p.format);
    if (hint) f.formatHint = hint;
    for (const k of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems'] as const) {
      const v = num(p[k]);
      if (v !== undefined) f[k] = v;
    }
    if (kind.includes('enum')) f.options = enumOptions(p);
    if (prompt.prefill[name] !== undefined) {
      f.value = prompt.prefill[name];
      f.source = prompt.prefillSources[name] ?? 'default';
    } else if (p.default !== undefined) {
      f.value = p.default;
      f.source = 'default';
    }
    return f;
  });
  return {
    prompt,
    fields,
    confirmOnly: prompt.mode === 'form' && fields.length === 0,
    rememberable: prompt.mode === 'form' && !prompt.sampling && !prompt.configInput && fields.some((f) => !f.sensitive),
    since,
  };
}

/** Field name of an issue's JSON pointer (`/name`, `/tags/0` → `name`, `tags`); `''` for form-level issues. */
export function issueField(issue: Issue): string {
  const first = issue.path.split('/')[1];
  return first === undefined ? '' : first.replace(/~1/g, '/').replace(/~0/g, '~');
}
