/**
 * `readElicitResult`: reads an `ElicitResult` from a peer, deterministically.
 *
 * Spec: elicitation §Response Actions (accept / decline / cancel; `content` only for accept) in
 * every revision; 2026-07-28 mrtr §InputResponses (bare result objects). See
 * `../shared/vectors/results.json` R1-R7.
 * @module
 */
import type { IssueCode } from './codes.js';
import { show, tooDeep } from './safe.js';
import type { Content, Issue, RequestedSchema } from './types.js';
import { validateContent } from './validate.js';

/** The three actions of an elicitation result. */
export const ELICIT_ACTIONS = ['accept', 'decline', 'cancel'] as const;
export type ElicitAction = (typeof ELICIT_ACTIONS)[number];

/**
 * An elicitation result as parley reads it (spec `ElicitResult`, §Response Actions): `accept` with the
 * content, `decline`, or `cancel`. `T` is the content's type: {@link Content} off the wire, or the
 * parsed type of a zod schema in the server toolkit (`ctx.elicit`).
 */
export type ElicitOutcome<T = Content> = { action: 'accept'; content: T } | { action: 'decline' } | { action: 'cancel' };

/** JSON-RPC Invalid params. */
export const INVALID_PARAMS = -32602;

export type ReadElicitResult =
  | { ok: true; result: ElicitOutcome }
  | { ok: false; code: typeof INVALID_PARAMS; message: string; issues: Issue<IssueCode>[] };

/**
 * Reads `raw` as an elicitation result. Decline and cancel ignore any `content` (R1, R2). An
 * unknown action is invalid params naming the allowed actions (R4). Accept is validated against
 * `schema` when given (R3, R5-R7): missing required fields, wrong types, coerced strings and extra
 * fields make the result invalid; it is never returned as accepted. Accept without `content` is
 * read as `{}` and validated. Never throws.
 */
export function readElicitResult(raw: unknown, schema?: RequestedSchema): ReadElicitResult {
  const invalid = (message: string, issues: Issue<IssueCode>[] = []): ReadElicitResult => ({
    ok: false,
    code: INVALID_PARAMS,
    message,
    issues,
  });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return invalid('elicitation result must be an object with an "action"');
  if (tooDeep(raw)) return invalid('elicitation result nests far too deeply');
  const r = raw as { action?: unknown; content?: unknown };
  if (r.action === 'decline' || r.action === 'cancel') return { ok: true, result: { action: r.action } };
  if (r.action !== 'accept') {
    return invalid(`unknown elicitation action ${show(r.action)}; allowed actions: accept, decline, cancel`, [
      { code: 'action', path: '/action', severity: 'error', message: 'action must be accept, decline or cancel' },
    ]);
  }
  const content = r.content === undefined || r.content === null ? {} : r.content;
  if (schema) {
    const v = validateContent(schema, content);
    if (!v.ok)
      return invalid(
        `accepted content does not match the requestedSchema: ${v.issues.map((i) => i.message).join('; ')}`,
        v.issues.map((i) => ({ ...i, path: '/content' + i.path })),
      );
    return { ok: true, result: { action: 'accept', content: v.value } };
  }
  if (typeof content !== 'object' || Array.isArray(content))
    return invalid('accepted content must be an object', [
      { code: 'type', path: '/content', severity: 'error', message: 'content must be an object' },
    ]);
  for (const [k, v] of Object.entries(content as Record<string, unknown>)) {
    const okValue =
      typeof v === 'string' ||
      typeof v === 'boolean' ||
      (typeof v === 'number' && Number.isFinite(v)) ||
      (Array.isArray(v) && v.every((x) => typeof x === 'string'));
    if (!okValue)
      return invalid(`content field "${k}" must be a string, finite number, boolean or array of strings`, [
        { code: 'type', path: '/content/' + k, severity: 'error', message: 'not a primitive value' },
      ]);
  }
  return { ok: true, result: { action: 'accept', content: content as Content } };
}
