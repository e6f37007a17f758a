/**
 * Export and import of presets as a JSON document, for moving "scene snapshots" between machines:
 * `{ "format": "parley-presets", "version": 1, "presets": [ {name, roots, answers, config, updatedAt?} ] }`.
 * Scope is not exported; import writes into the scope given. Import is all-or-nothing.
 * @module
 */
import { z } from 'zod';
import type { Preset, Scope, Store } from './types.js';
import { presetEntrySchema, zodIssues, type PresetIssue } from './preset-shape.js';

/** `format` value of an exported document. */
export const PRESETS_FORMAT = 'parley-presets';

/** The largest presets document `importPresets` reads: 4 MiB (UTF-8 bytes); a larger one is a `too-large` issue. */
export const MAX_PRESETS_DOCUMENT_BYTES = 4 * 1024 * 1024;

/** The most presets one document may hold. */
export const MAX_PRESETS_PER_DOCUMENT = 1000;

/** A preset in a document: a hand-written one may leave out an empty `roots`, `answers` or `config`. */
const documentEntry = presetEntrySchema.extend({
  roots: presetEntrySchema.shape.roots.default([]),
  answers: presetEntrySchema.shape.answers.default({}),
  config: presetEntrySchema.shape.config.default({}),
});

const documentSchema = z.strictObject({
  format: z.literal(PRESETS_FORMAT),
  version: z.literal(1),
  presets: z.array(documentEntry).max(MAX_PRESETS_PER_DOCUMENT),
});

/** Serialises every preset of `scope` (exact scope match) as a pretty-printed JSON document. */
export async function exportPresets(store: Pick<Store, 'listPresets'>, scope: Scope): Promise<string> {
  const presets = (await store.listPresets(scope)).map(({ scope: _s, ...entry }) => entry);
  return JSON.stringify({ format: PRESETS_FORMAT, version: 1, presets }, null, 2);
}

export interface ImportPresetsOptions {
  /** Replace presets of the same name already in the scope; when `false` a clash is an issue. @default true */
  replace?: boolean;
  /** Epoch ms for entries without `updatedAt`. @default Date.now() */
  now?: number;
}

/**
 * Validates `json` and, only if it has no error, saves every preset into `scope` in one transaction.
 * @returns `imported`: presets written (0 whenever `issues` has an error); `issues`: findings with JSON
 *   pointers into the document (`''` for the whole document), e.g. `/presets/2/roots/0/uri`, and a code
 *   from `PRESET_ISSUE_CODES`.
 * @throws StoreError when the store itself fails while writing (then nothing was imported).
 */
export async function importPresets(
  store: Pick<Store, 'transaction'>,
  scope: Scope,
  json: string,
  opts: ImportPresetsOptions = {},
): Promise<{ imported: number; issues: PresetIssue[] }> {
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > MAX_PRESETS_DOCUMENT_BYTES) {
    const issue: PresetIssue = {
      code: 'too-large',
      path: '',
      severity: 'error',
      message: `The presets document is ${bytes} bytes, over the ${MAX_PRESETS_DOCUMENT_BYTES}-byte (4 MiB) limit.`,
      fix: `Split it into documents of at most ${MAX_PRESETS_PER_DOCUMENT} presets and 4 MiB each.`,
    };
    return { imported: 0, issues: [issue] };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(withoutBom(json));
  } catch (err) {
    const issue: PresetIssue = {
      code: 'json',
      path: '',
      severity: 'error',
      message: `The presets document is not valid JSON: ${(err as Error).message}`,
      fix: 'Use a file written by exportPresets (parley presets export).',
    };
    return { imported: 0, issues: [issue] };
  }
  const parsed = documentSchema.safeParse(doc);
  if (!parsed.success) return { imported: 0, issues: zodIssues(parsed.error) };

  const issues: PresetIssue[] = [];
  const seen = new Map<string, number>();
  parsed.data.presets.forEach((p, i) => {
    const first = seen.get(p.name);
    if (first !== undefined) {
      issues.push({
        code: 'duplicate',
        path: `/presets/${i}/name`,
        severity: 'error',
        message: `Preset name ${JSON.stringify(p.name)} repeats /presets/${first}/name.`,
        fix: 'Give every preset a distinct name.',
      });
    } else seen.set(p.name, i);
  });
  if (issues.length > 0) return { imported: 0, issues };

  const now = opts.now ?? Date.now();
  const presets: Preset[] = parsed.data.presets.map((p) => ({ ...p, scope, updatedAt: p.updatedAt ?? now }) as Preset);
  // The clash check and the writes run in one transaction, so a preset saved meanwhile cannot slip in.
  const clashes = await store.transaction(async (tx) => {
    const found: PresetIssue[] = [];
    if (opts.replace === false) {
      for (const [i, p] of presets.entries()) {
        if (await tx.loadPreset(scope, p.name)) {
          found.push({
            code: 'exists',
            path: `/presets/${i}/name`,
            severity: 'error',
            message: `A preset named ${JSON.stringify(p.name)} already exists in this scope.`,
            fix: 'Rename it, delete the existing preset, or import with replace.',
          });
        }
      }
      if (found.length) return found;
    }
    for (const p of presets) await tx.savePreset(p);
    return found;
  });
  if (clashes.length) return { imported: 0, issues: clashes };
  return { imported: presets.length, issues: [] };
}

/** `text` without a leading UTF-8 byte-order mark (Windows editors write one; `JSON.parse` refuses it). */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
