/**
 * What a preset ("scene") holds besides roots: the answers of the moment, per server. Built from the
 * remembered answers the scope can recall and any newer answers, merged per server and field (a
 * server's forms share field names, e.g. sales' `table`/`range` and its custom `from`/`to`).
 * @module
 */
import type { Content } from '../../schema/types.js';
import type { Scope, Store } from './types.js';

type Answers = Record<string, Record<string, unknown>>;

/**
 * Remembered answers visible to `scope` (the user's "always" answers and the session's), merged per
 * server with the newest answer winning per field. Empty when the store cannot list answers
 * (`Store.listAnswers` is optional).
 */
export async function rememberedAnswers(store: Store | undefined, scope: Scope): Promise<Answers> {
  const out: Answers = {};
  if (!store?.listAnswers) return out;
  const rows = [...(await store.listAnswers(scope))].sort((a, b) => a.updatedAt - b.updatedAt);
  for (const r of rows) out[r.server] = { ...out[r.server], ...(r.content as Record<string, unknown>) };
  return out;
}

/** Merges answer layers, lowest precedence first, per server and field. */
export function mergeAnswers(...layers: Array<Answers | Record<string, Content> | undefined>): Record<string, Content> {
  const out: Answers = {};
  for (const layer of layers) {
    for (const [server, content] of Object.entries(layer ?? {})) out[server] = { ...out[server], ...(content as Record<string, unknown>) };
  }
  return out as Record<string, Content>;
}
