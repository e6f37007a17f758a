/**
 * Answer sources merged into a prefill proposal. Precedence, highest first:
 * 1. `previous answer`: what the person accepted for the same form earlier in the same tool call (a
 *    server that refuses an answer, e.g. a zod `.refine()`, asks the same form again: the person
 *    corrects the answer instead of typing it all again; sensitive and masked fields are not kept);
 * 2. remembered answer for (person, server, schemaHash) — `Store.recall`;
 * 3. active preset answers for the server — `Preset.answers[server]`;
 * 4. profile values by field name — `HostConfig.profile`;
 * 5. the schema's `default`s (as `applyDefaults` fills them).
 * Only fields the schema asks for are kept, and only values that are valid for that field on their own.
 * The result is a proposal shown to the person; the broker never submits it unless a non-interactive
 * presenter opts in (`autoSubmitPrefill`).
 * @module
 */
import type { Content, RequestedSchema } from '../../schema/index.js';
import type { Scope, Store } from '../store/types.js';
import { hasOwn, setOwn } from '../../schema/safe.js';
import { validateContent } from './core.js';
import type { FormCheck } from './form-cache.js';
import type { PrefillSources } from './types.js';

export interface Prefill {
  values: Content;
  /** Field → `'previous answer' | 'remembered' | 'preset' | 'profile' | 'default'`. */
  sources: Record<string, string>;
  /** The remembered answer is marked "answer automatically next time" (`Store.recallEntry`). */
  auto?: boolean;
}

/** A remembered answer as the prefill uses it: its content and whether to answer automatically. */
export interface Remembered {
  content: Record<string, unknown>;
  auto: boolean;
}

function fieldOk(schema: RequestedSchema, field: string, value: unknown): boolean {
  const one: RequestedSchema = { type: 'object', properties: { [field]: schema.properties[field] } };
  return validateContent(one, { [field]: value }).ok;
}

/** What the prefill needs of the form's checks (`FormCheck`, computed once per form). */
export type PrefillForm = Pick<FormCheck, 'sensitiveSet' | 'defaults' | 'hash'>;

/**
 * The remembered answer for (scope, server, `form.hash()`) from `store` (with its "answer automatically"
 * flag where the store keeps one, `Store.recallEntry`), or `undefined`. Never rejects: a failing store
 * read counts as "nothing remembered".
 */
export function recallContent(
  store: Pick<Store, 'recall' | 'recallEntry'>,
  scope: Scope,
  server: string,
  form: Pick<PrefillForm, 'hash'>,
): Promise<Remembered | undefined> {
  try {
    if (store.recallEntry) {
      return store.recallEntry(scope, server, form.hash()).then(
        (e) => (e ? { content: e.content as Record<string, unknown>, auto: e.auto === true } : undefined),
        () => undefined,
      );
    }
    return store.recall(scope, server, form.hash()).then(
      (a) => (a ? { content: a.content as Record<string, unknown>, auto: false } : undefined),
      () => undefined,
    );
  } catch {
    return Promise.resolve(undefined);
  }
}

/**
 * Builds the prefill for one form request from the `remembered` answer ({@link recallContent}), the
 * other sources and `form.defaults` (the schema's defaults; arrays are copied per request), under the
 * `previous` answer to the same form in the same tool call when there is one. Never throws.
 */
export function buildPrefill(
  schema: RequestedSchema,
  server: string,
  remembered: Remembered | undefined,
  src: PrefillSources,
  form: PrefillForm,
  previous?: Record<string, unknown>,
): Prefill {
  const values: Content = {};
  const sources: Record<string, string> = {};
  // Lowest precedence first; each layer overwrites the one before. Usually all three are empty.
  layer(values, sources, schema, 'profile', src.profile, undefined);
  layer(values, sources, schema, 'preset', src.presetAnswers?.[server] as Record<string, unknown> | undefined, undefined);
  layer(values, sources, schema, 'remembered', remembered?.content, form.sensitiveSet);
  // The previous answer passed validateContent against this very form (same hash) when it was accepted,
  // so each of its values is valid for its field: not checked again (checking 5 fields cost ≈ 60 µs of
  // host CPU per request in bench/broker.ts, whose server asks one form again and again in one call).
  layer(values, sources, schema, 'previous answer', previous, form.sensitiveSet, false);
  const defaults = form.defaults;
  for (let i = 0; i < defaults.length; i++) {
    const [field, d] = defaults[i];
    if (hasOwn(values, field) && values[field] !== undefined) continue;
    setOwn(values, field, Array.isArray(d) ? [...d] : d);
    setOwn(sources, field, 'default');
  }
  return remembered?.auto ? { values, sources, auto: true } : { values, sources };
}

/**
 * Copies the values of one source for the schema's fields (not `skip`ped ones) into `values`: only
 * values valid for their field on their own, unless `check` is false (the source was validated against
 * this form already).
 */
function layer(
  values: Content,
  sources: Record<string, string>,
  schema: RequestedSchema,
  name: string,
  from: Record<string, unknown> | undefined,
  skip: ReadonlySet<string> | undefined,
  check = true,
): void {
  if (isEmpty(from)) return;
  for (const field of Object.keys(schema.properties)) {
    if (!hasOwn(from, field) || skip?.has(field) || (check && !fieldOk(schema, field, from[field]))) continue;
    setOwn(values, field, from[field]);
    setOwn(sources, field, name);
  }
}

function isEmpty(o: Record<string, unknown> | undefined): o is undefined {
  if (o === undefined || o === null) return true;
  for (const _ in o) return false;
  return true;
}
