/**
 * Answer sources merged into a prefill proposal. Precedence, highest first:
 * 1. remembered answer for (person, server, schemaHash) — `Store.recall`;
 * 2. active preset answers for the server — `Preset.answers[server]`;
 * 3. profile values by field name — `HostConfig.profile`;
 * 4. the schema's `default`s — `applyDefaults`.
 * Only fields the schema asks for are kept, and only values that are valid for that field on their own.
 * The result is a proposal shown to the person; the broker never submits it unless a non-interactive
 * presenter opts in (`autoSubmitPrefill`).
 * @module
 */
import type { Content, RequestedSchema } from '../../schema/index.js';
import type { Scope, Store } from '../store/types.js';
import { applyDefaults, validateContent } from './core.js';
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

/**
 * Builds the prefill for one form request. `hash` gives the remember key (`schemaHash` of `schema`); it
 * is called only when there is a store to recall from. Never throws; a failing store read is skipped.
 */
export function buildPrefill(schema: RequestedSchema, server: string, scope: Scope, store: Store | undefined, src: PrefillSources, sensitive: ReadonlySet<string>, hash: () => string): Prefill {
  let remembered: Record<string, unknown> = {};
  try {
    remembered = store?.recall(scope, server, hash())?.content ?? {};
  } catch {
    remembered = {};
  }
  const layers: Array<[string, Record<string, unknown>]> = [
    ['profile', src.profile ?? {}],
    ['preset', (src.presetAnswers?.[server] as Record<string, unknown> | undefined) ?? {}],
    ['remembered', remembered],
  ];
  const values: Content = {};
  const sources: Record<string, string> = {};
  let fields: string[] | undefined;
  for (const [name, layer] of layers) {
    if (isEmpty(layer)) continue; // the usual case: no profile, preset or remembered answer
    fields ??= Object.keys(schema.properties);
    for (const field of fields) {
      if (!(field in layer)) continue;
      if (name === 'remembered' && sensitive.has(field)) continue;
      if (!fieldOk(schema, field, layer[field])) continue;
      values[field] = layer[field] as Content[string];
      sources[field] = name;
    }
  }
  const withDefaults = applyDefaults(schema, values);
  for (const field of Object.keys(withDefaults)) if (!(field in sources)) sources[field] = 'default';
  return { values: withDefaults, sources };
}

function isEmpty(o: Record<string, unknown>): boolean {
  for (const _ in o) return false;
  return true;
}
