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
  try {
    remembered = store?.recall(scope, server, form.hash())?.content;
  } catch {
    remembered = undefined;
  }
  const values: Content = {};
  const sources: Record<string, string> = {};
  const layers: Array<[string, Record<string, unknown> | undefined]> = [
    ['profile', src.profile],
    ['preset', src.presetAnswers?.[server] as Record<string, unknown> | undefined],
    ['remembered', remembered],
  ];
  let fields: string[] | undefined;
  for (const [name, layer] of layers) {
    if (isEmpty(layer)) continue; // the usual case: no profile, preset or remembered answer
    fields ??= Object.keys(schema.properties);
    for (const field of fields) {
      if (!hasOwn(layer, field)) continue;
      if (name === 'remembered' && form.sensitiveSet.has(field)) continue;
      if (!fieldOk(schema, field, layer[field])) continue;
      setOwn(values, field, layer[field]);
      setOwn(sources, field, name);
    }
  }
  for (const [field, d] of form.defaults) {
    if (hasOwn(values, field) && values[field] !== undefined) continue;
    setOwn(values, field, Array.isArray(d) ? [...d] : d);
    setOwn(sources, field, 'default');
  }
  return { values, sources };
}

function isEmpty(o: Record<string, unknown> | undefined): o is undefined {
  if (o === undefined || o === null) return true;
  for (const _ in o) return false;
  return true;
}
