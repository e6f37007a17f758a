/**
 * Answer sources merged into a prefill proposal. Precedence, highest first:
 * 1. remembered answer for (person, server, schemaHash) — `Store.recall`;
 * 2. active preset answers for the server — `Preset.answers[server]`;
 * 3. profile values by field name — `HostConfig.profile`;
 * 4. the schema's `default`s (as `applyDefaults` fills them).
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
  /** Field → `'remembered' | 'preset' | 'profile' | 'default'`. */
  sources: Record<string, string>;
  /** The remembered answer is marked "answer automatically next time" (`Store.recallEntry`). */
  auto?: boolean;
}

function fieldOk(schema: RequestedSchema, field: string, value: unknown): boolean {
  const one: RequestedSchema = { type: 'object', properties: { [field]: schema.properties[field] } };
  return validateContent(one, { [field]: value }).ok;
}

/** What the prefill needs of the form's checks (`FormCheck`, computed once per form). */
export type PrefillForm = Pick<FormCheck, 'sensitiveSet' | 'defaults' | 'hash'>;

/**
 * Builds the prefill for one form request. `form.hash` gives the remember key (`schemaHash` of
 * `schema`); it is called only when there is a store to recall from. `form.defaults` are the
 * schema's defaults (arrays are copied per request). Never throws; a failing store read is skipped.
 */
export function buildPrefill(schema: RequestedSchema, server: string, scope: Scope, store: Store | undefined, src: PrefillSources, form: PrefillForm): Prefill {
  let remembered: Record<string, unknown> | undefined;
  let auto = false;
  try {
    if (store?.recallEntry) {
      const entry = store.recallEntry(scope, server, form.hash());
      remembered = entry?.content;
      auto = entry?.auto === true;
    } else remembered = store?.recall(scope, server, form.hash())?.content;
  } catch {
    remembered = undefined;
  }
  const values: Content = {};
  const sources: Record<string, string> = {};
  // Lowest precedence first; each layer overwrites the one before. Usually all three are empty.
  layer(values, sources, schema, 'profile', src.profile, undefined);
  layer(values, sources, schema, 'preset', src.presetAnswers?.[server] as Record<string, unknown> | undefined, undefined);
  layer(values, sources, schema, 'remembered', remembered, form.sensitiveSet);
  const defaults = form.defaults;
  for (let i = 0; i < defaults.length; i++) {
    const [field, d] = defaults[i];
    if (hasOwn(values, field) && values[field] !== undefined) continue;
    setOwn(values, field, Array.isArray(d) ? [...d] : d);
    setOwn(sources, field, 'default');
  }
  return auto ? { values, sources, auto } : { values, sources };
}

/** Copies the valid values of one source for the schema's fields (not `skip`ped ones) into `values`. */
function layer(values: Content, sources: Record<string, string>, schema: RequestedSchema, name: string, from: Record<string, unknown> | undefined, skip: ReadonlySet<string> | undefined): void {
  if (isEmpty(from)) return;
  for (const field of Object.keys(schema.properties)) {
    if (!hasOwn(from, field) || skip?.has(field) || !fieldOk(schema, field, from[field])) continue;
    setOwn(values, field, from[field]);
    setOwn(sources, field, name);
  }
}

function isEmpty(o: Record<string, unknown> | undefined): o is undefined {
  if (o === undefined || o === null) return true;
  for (const _ in o) return false;
  return true;
}
