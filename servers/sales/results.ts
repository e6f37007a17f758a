/**
 * An in-process store of query results, each readable as an MCP resource:
 * - `sales://results/{id}`     → `application/json`: `{uri, config, from, to, columns, rows, truncated, summary}`
 * - `sales://results/{id}/csv` → `text/csv` (RFC 4180, CRLF line ends, header row = `columns`)
 *
 * Ids are deterministic: the first 16 hex digits of SHA-256 over the canonical JSON of the resolved query
 * (table, region, from, to, row count). The database is generated from a fixed seed, so the same query always
 * yields the same rows; re-saving it reuses the id. Ids reveal nothing a caller could not compute.
 * The store is bounded (least recently saved is evicted first).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Row, SalesResult } from './query.js';

export const RESULT_URI_PREFIX = 'sales://results/';
/** URI templates (RFC 6570) a server can register for `resources/templates/list`. */
export const RESULT_URI_TEMPLATE = 'sales://results/{id}';
export const RESULT_CSV_URI_TEMPLATE = 'sales://results/{id}/csv';

export interface StoredResult extends SalesResult {
  id: string;
  uri: string;
  csvUri: string;
}

/** One `resources/read` content item. */
export interface TextResourceContent {
  uri: string;
  mimeType: 'application/json' | 'text/csv';
  text: string;
}

export class ResultStore {
  private readonly items = new Map<string, StoredResult>();

  /**
   * @param maxEntries results kept in memory before the oldest is evicted. @default 100
   * @param dir when given, each result is also written to `<dir>/<id>.json` and read back from there on
   *   a miss, so a result outlives the sales process (a restarted server still resolves
   *   `sales://results/{id}`, and a parley host can hand it to charts again as a query-result root).
   */
  constructor(
    private readonly maxEntries = 100,
    private readonly dir?: string,
  ) {}

  /** Stores `result` and returns it with its `id`, `uri` and `csvUri`. */
  save(result: SalesResult): StoredResult {
    const key = JSON.stringify([result.config.table, result.config.region, result.from, result.to, result.rows.length]);
    const id = createHash('sha256').update(key).digest('hex').slice(0, 16);
    const stored: StoredResult = { ...result, id, uri: `${RESULT_URI_PREFIX}${id}`, csvUri: `${RESULT_URI_PREFIX}${id}/csv` };
    this.remember(stored);
    if (this.dir) {
      mkdirSync(this.dir, { recursive: true });
      const tmp = join(this.dir, `.${id}.${process.pid}.tmp`);
      writeFileSync(tmp, JSON.stringify(stored));
      renameSync(tmp, join(this.dir, `${id}.json`)); // atomic: readers never see half a file
    }
    return stored;
  }

  private remember(stored: StoredResult): void {
    this.items.delete(stored.id);
    this.items.set(stored.id, stored);
    while (this.items.size > this.maxEntries) this.items.delete(this.items.keys().next().value as string);
  }

  get(id: string): StoredResult | undefined {
    const hit = this.items.get(id);
    if (hit || !this.dir || !/^[0-9a-f]{16}$/.test(id)) return hit;
    try {
      const stored = JSON.parse(readFileSync(join(this.dir, `${id}.json`), 'utf8')) as StoredResult;
      this.remember(stored);
      return stored;
    } catch {
      return undefined;
    }
  }

  list(): StoredResult[] {
    return [...this.items.values()];
  }

  /**
   * Reads a result resource by URI.
   * @returns the content, or `undefined` when the URI is not a stored result (the caller answers with the
   *   spec's resource-not-found error)
   */
  read(uri: string): TextResourceContent | undefined {
    const m = /^sales:\/\/results\/([0-9a-f]{16})(\/csv)?$/.exec(uri);
    const item = m ? this.get(m[1]) : undefined;
    if (!m || !item) return undefined;
    if (m[2]) return { uri, mimeType: 'text/csv', text: toCsv(item.columns, item.rows) };
    const { id: _id, csvUri: _csv, ...body } = item;
    return { uri, mimeType: 'application/json', text: JSON.stringify(body) };
  }
}

/** Serialises rows as RFC 4180 CSV: fields with `,` `"` CR or LF are quoted, quotes doubled, CRLF line ends. */
export function toCsv(columns: readonly string[], rows: readonly Row[]): string {
  const field = (v: unknown): string => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  const lines = [columns.map(field).join(',')];
  for (const r of rows) lines.push(columns.map((c) => field(r[c])).join(','));
  return lines.join('\r\n') + '\r\n';
}
