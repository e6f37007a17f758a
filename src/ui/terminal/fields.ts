/**
 * One terminal prompt per field kind (`fieldKind` from the schema core), on `@clack/prompts`:
 * text (with format hints), number/integer (bounds in the label), boolean (confirm), single select
 * (enum, enumNames, titled oneOf), multiselect (both multi-select kinds, minItems/maxItems), and
 * masked input for sensitive fields. Each typed value is checked at once with `coerceFormValues` +
 * `validateContent` on a one-field schema, so the person fixes it before moving on.
 * @module
 */
import type { Readable, Writable } from 'node:stream';
import * as p from '@clack/prompts';
import { coerceFormValues, enumOptions, fieldKind, formatHint, validateContent } from '../../schema/index.js';
import type { RequestedSchema } from '../../schema/index.js';
import { termText } from './safe-text.js';

/** Returned when the person pressed Esc / Ctrl-C (or the signal aborted). */
export const CANCELLED = Symbol('cancelled');
/** Returned for an optional field left empty. */
export const SKIPPED = Symbol('skipped');
/**
 * Typed as the whole value of a text field parley did not flag as a secret: the person marks the field
 * secret. It is then asked again with hidden input, and the answer lists it in `masked` (the broker
 * keeps it out of the audit and never remembers it).
 */
export const MASK_WORD = '!mask';
/** The value of a field the person masked with {@link MASK_WORD}. */
export class MaskedValue {
  constructor(readonly value: unknown) {}
}

export interface FieldIo {
  input?: Readable;
  output?: Writable;
  signal?: AbortSignal;
}

type Prop = Record<string, any>;

/** Label: title, requiredness, bounds and format hint; one line, control characters shown (`termText`). */
export function fieldLabel(name: string, prop: Prop, required: boolean): string {
  const bits: string[] = [];
  if (typeof prop.format === 'string')
    bits.push(formatHint(prop.format) ?? ({ email: 'e-mail address', uri: 'URL' } as Record<string, string>)[prop.format] ?? prop.format);
  if (prop.minimum !== undefined || prop.maximum !== undefined) bits.push(`${prop.minimum ?? '…'}..${prop.maximum ?? '…'}`);
  if (prop.type === 'integer') bits.push('whole number');
  if (prop.minLength !== undefined || prop.maxLength !== undefined) bits.push(`${prop.minLength ?? 0}..${prop.maxLength ?? '∞'} chars`);
  if (prop.minItems !== undefined || prop.maxItems !== undefined) bits.push(`choose ${prop.minItems ?? 0}..${prop.maxItems ?? 'any'}`);
  const title = typeof prop.title === 'string' ? `${prop.title} (${name})` : name;
  const desc = typeof prop.description === 'string' && prop.description !== prop.title ? ` — ${prop.description}` : '';
  return termText(`${title}${required ? ' *' : ''}${bits.length ? ` [${bits.join(', ')}]` : ''}${desc}`);
}

/** Checks one field's raw value; returns the first problem as a sentence, or undefined when fine. */
export function checkField(schema: RequestedSchema, name: string, raw: unknown): string | undefined {
  const one = {
    type: 'object',
    properties: { [name]: schema.properties[name] },
    required: schema.required?.includes(name) ? [name] : [],
  } as RequestedSchema;
  const coerced = coerceFormValues(one, raw === undefined || raw === '' ? {} : { [name]: raw });
  if (!coerced.ok) return coerced.issues[0]?.message;
  const valid = validateContent(one, coerced.value);
  return valid.ok ? undefined : valid.issues[0]?.message;
}

const asText = (v: unknown): string | undefined =>
  v === undefined || v === null ? undefined : Array.isArray(v) ? v.join(', ') : String(v);

/**
 * A signal for one prompt that follows `signal`, linked by one listener that is removed when the prompt is
 * done: clack adds an abort listener per prompt and never removes it, so a long form on the request's own
 * signal passed Node's limit of 10 listeners (MaxListenersExceededWarning).
 */
export function promptSignal(signal: AbortSignal | undefined): { signal?: AbortSignal; release(): void } {
  if (!signal) return { release: () => undefined };
  const own = new AbortController();
  const follow = () => own.abort(signal.reason);
  if (signal.aborted) follow();
  else signal.addEventListener('abort', follow, { once: true });
  return { signal: own.signal, release: () => signal.removeEventListener('abort', follow) };
}

/**
 * Asks one field. `initial` is the prefill (or the schema default). Returns the raw value (string,
 * boolean, string[]), a {@link MaskedValue} when the person typed {@link MASK_WORD} into an unflagged
 * string field, {@link SKIPPED} for an empty optional field, or {@link CANCELLED}.
 */
export async function askField(schema: RequestedSchema, name: string, initial: unknown, sensitive: boolean, io: FieldIo): Promise<unknown> {
  const scoped = promptSignal(io.signal);
  try {
    return await askOne(schema, name, initial, sensitive, { ...io, signal: scoped.signal });
  } finally {
    scoped.release();
  }
}

async function askOne(schema: RequestedSchema, name: string, initial: unknown, sensitive: boolean, io: FieldIo): Promise<unknown> {
  const prop = schema.properties[name] as Prop;
  const required = schema.required?.includes(name) ?? false;
  const message = fieldLabel(name, prop, required);
  const common = { input: io.input, output: io.output, signal: io.signal };
  const kind = fieldKind(prop);
  const start = initial ?? prop.default;
  const validate = (v: string | undefined) => {
    const problem = checkField(schema, name, v ?? '');
    return problem === undefined ? undefined : termText(problem);
  };
  let value: unknown;
  switch (kind) {
    case 'boolean':
      value = await p.confirm({ ...common, message, initialValue: typeof start === 'boolean' ? start : false });
      break;
    case 'enum':
    case 'legacy-titled-enum':
    case 'titled-enum': {
      const options: Array<{ value: string; label: string; hint?: string }> = enumOptions(prop).map((o) => ({
        value: o.value,
        label: termText(o.label),
        ...(o.label !== o.value ? { hint: termText(o.value) } : {}),
      }));
      if (!required) options.push({ value: '\u0000skip', label: '(leave empty)' });
      value = await p.select({ ...common, message, options, initialValue: typeof start === 'string' ? start : options[0]?.value });
      if (value === '\u0000skip') return SKIPPED;
      break;
    }
    case 'multi-enum':
    case 'titled-multi-enum': {
      const options = enumOptions(prop).map((o) => ({ value: o.value, label: termText(o.label) }));
      for (;;) {
        value = await p.multiselect({
          ...common,
          message,
          options,
          initialValues: Array.isArray(start) ? start.map(String) : [],
          required: (prop.minItems ?? 0) > 0,
        });
        if (p.isCancel(value)) return CANCELLED;
        const problem = checkField(schema, name, value);
        if (!problem) break;
        p.log.error(termText(problem), common);
      }
      break;
    }
    default:
      if (sensitive)
        value = await p.password({
          ...common,
          message: `${message} (hidden)`,
          validate: (v) => (v ? validate(v) : required ? `${name} is required` : undefined),
        });
      else {
        const maskable = prop.type === 'string';
        value = await p.text({
          ...common,
          message: maskable ? `${message} (type ${MASK_WORD} to hide it as a secret)` : message,
          // What is shown is what is sent: a default with control characters starts as its safe form.
          initialValue: asText(start) === undefined ? undefined : termText(asText(start)!),
          placeholder: required ? undefined : '(optional: leave empty)',
          validate: (v) => (maskable && v === MASK_WORD ? undefined : validate(v)),
        });
        if (maskable && value === MASK_WORD) {
          const hidden = await askOne(schema, name, undefined, true, io);
          return hidden === CANCELLED ? CANCELLED : new MaskedValue(hidden);
        }
      }
  }
  if (p.isCancel(value)) return CANCELLED;
  if (value === '' || value === undefined) return SKIPPED;
  return value;
}
