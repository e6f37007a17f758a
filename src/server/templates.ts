/**
 * Resource templates whose handler gets a `ParleyContext` (configuration essay §3.2): a read of a URI
 * that leaves out some of the template's variables (`sql-query://orders` for
 * `sql-query://{table}{?range}`) reaches the handler with those variables listed in `ctx.missing`, so it
 * can ask for them with `ctx.elicit` — pushed `elicitation/create` on 2025 eras, `input_required` on
 * 2026-07-28 (MRTR allows it on `resources/read`). Matching uses the SDK's `UriTemplate`
 * (`src/schema/template-fill.ts`); the template is also registered with the SDK, so it is listed in
 * `resources/templates/list` and its `complete` callbacks answer `completion/complete`.
 * @module
 */
import type { ReadResourceResult } from '@modelcontextprotocol/server';
import type { ParleyContext } from './context.js';

/** What a template resource's handler receives besides the variables. */
export interface ParleyResourceContext extends ParleyContext {
  /** The URI as read. */
  readonly uri: string;
  /** Template variables the URI left out (template order); ask for them with `ctx.elicit`. */
  readonly missing: string[];
  /** Expands the template with `vars` (the SDK's `UriTemplate.expand`): the URI of the completed read. */
  expand(vars: Record<string, string | string[]>): string;
}

/** The handler: `vars` holds the variables the URI gives (decoded); `ctx.missing` the ones it leaves out. */
export type ParleyResourceHandler = (
  vars: Record<string, string>,
  ctx: ParleyResourceContext,
) => ReadResourceResult | Promise<ReadResourceResult>;

/** Metadata of a template resource; `name` defaults to the template text. */
export interface ParleyResourceOptions {
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Completion values per variable for `completion/complete` (what a host offers as options). */
  complete?: Record<string, (value: string, context?: { arguments?: Record<string, string> }) => string[] | Promise<string[]>>;
}
