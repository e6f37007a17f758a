/**
 * Finds the `requestedSchema`s inside a document: a bare `requestedSchema`, an `elicitation/create`
 * request (JSON-RPC message or its `params`), or a 2026-07-28 `input_required` result (bare or as a
 * JSON-RPC response) whose `inputRequests` hold form elicitations.
 * Spec: 2026-07-28 mrtr §Wire shapes (`inputRequests` map of `{method, params}`).
 * @module
 */
import type { IssueCode } from './codes.js';
import { child } from './pointer.js';
import { isObj, show } from './safe.js';
import type { Issue, Revision, RevisionOptions } from './types.js';
import { LATEST_REVISION } from './types.js';

export interface FoundSchema {
  /** JSON pointer of the `requestedSchema` in the document. */
  path: string;
  schema: unknown;
  /** `'form'` for form requests; URL-mode requests have no schema and are listed with `schema: undefined`. */
  mode: 'form' | 'url';
  message?: string;
  /** Problems of the request itself (message, mode, url, elicitationId), with pointers into the document. */
  requestIssues: Issue<IssueCode>[];
}

type Obj = Record<string, unknown>;

/**
 * Rules of the request envelope per revision (2025-11-25 elicitation §Elicitation Requests l.81-97,
 * §URL Mode l.330-394; 2026-07-28 §URL mode: no `elicitationId`).
 */
function requestIssues(params: Obj, path: string, revision: Revision): Issue<IssueCode>[] {
  const out: Issue<IssueCode>[] = [];
  const err = (code: IssueCode, p: string, message: string, fix?: string) =>
    out.push({ code, path: p, severity: 'error', message, ...(fix ? { fix } : {}) });
  if (typeof params.message !== 'string')
    err('message', child(path, 'message'), '"message" is required and must be a string', 'say what is asked and why');
  const mode = params.mode;
  if (mode !== undefined && mode !== 'form' && mode !== 'url')
    err('mode', child(path, 'mode'), `unknown mode ${show(mode)}; allowed: form, url (a missing mode means form)`, 'use "form" or "url"');
  if (mode === 'form' && revision === '2025-06-18')
    out.push({
      code: 'mode',
      path: child(path, 'mode'),
      severity: 'warning',
      message: '"mode" is not a 2025-06-18 parameter; peers of that revision ignore it',
    });
  if (mode === 'url') {
    if (revision === '2025-06-18')
      err(
        'revision',
        child(path, 'mode'),
        'URL-mode elicitation does not exist in revision 2025-06-18 (it arrives in 2025-11-25)',
        'use form mode, or a later revision',
      );
    let ok = false;
    try {
      ok = typeof params.url === 'string' && /^[a-z][a-z0-9+.-]*:/i.test(params.url) && Boolean(new URL(params.url).protocol);
    } catch {
      ok = false;
    }
    if (!ok)
      err('url', child(path, 'url'), `"url" must be a valid absolute URL (got ${show(params.url)})`, 'send the full https:// URL to open');
    if (revision === '2025-11-25' && typeof params.elicitationId !== 'string')
      err(
        'elicitation-id',
        child(path, 'elicitationId'),
        'URL mode needs an "elicitationId" in revision 2025-11-25',
        'add a unique opaque id',
      );
    if (revision === '2026-07-28' && 'elicitationId' in params)
      out.push({
        code: 'elicitation-id',
        path: child(path, 'elicitationId'),
        severity: 'warning',
        message: '"elicitationId" was removed in 2026-07-28; correlate through requestState instead',
      });
  } else if (!('requestedSchema' in params))
    err(
      'requested-schema',
      child(path, 'requestedSchema'),
      'a form-mode request needs a "requestedSchema"',
      'add {"type":"object","properties":{…}}',
    );
  return out;
}

function fromParams(params: Obj, path: string, revision: Revision): FoundSchema {
  const mode = params.mode === 'url' ? 'url' : 'form';
  return {
    path: mode === 'url' ? path : child(path, 'requestedSchema'),
    schema: mode === 'url' ? undefined : params.requestedSchema,
    mode,
    message: typeof params.message === 'string' ? params.message : undefined,
    requestIssues: requestIssues(params, path, revision),
  };
}

export interface FoundSchemas {
  kind: 'schema' | 'request' | 'input_required' | 'unknown';
  found: FoundSchema[];
  /** Problems of the document as a whole (e.g. an `input_required` result with nothing in it). */
  issues: Issue<IssueCode>[];
}

/**
 * What kind of document it is, the schemas in it, and request-level issues for `revision`
 * (default 2026-07-28); `kind: 'unknown'` when nothing is recognised. Never throws.
 * Spec: 2026-07-28 mrtr §Rules (`inputRequests` or `requestState` MUST be present; methods are
 * elicitation/create, sampling/createMessage, roots/list).
 */
export function findRequestedSchemas(doc: unknown, opts: RevisionOptions = {}): FoundSchemas {
  const revision = opts.revision ?? LATEST_REVISION;
  if (!isObj(doc)) return { kind: 'unknown', found: [], issues: [] };
  const result = isObj(doc.result) ? doc.result : undefined;
  const ir =
    result && result.resultType === 'input_required'
      ? { obj: result, base: '/result' }
      : doc.resultType === 'input_required' || isObj(doc.inputRequests)
        ? { obj: doc, base: '' }
        : undefined;
  if (ir) {
    const found: FoundSchema[] = [];
    const issues: Issue<IssueCode>[] = [];
    if (revision !== '2026-07-28')
      issues.push({
        code: 'revision',
        path: ir.base || '',
        severity: 'error',
        message: `input_required results exist only from revision 2026-07-28 (checking against ${revision})`,
        fix: 'use --revision 2026-07-28, or push elicitation/create on earlier revisions',
      });
    if (!('inputRequests' in ir.obj) && !('requestState' in ir.obj))
      issues.push({
        code: 'input-required-empty',
        path: ir.base || '',
        severity: 'error',
        message: 'an input_required result needs "inputRequests" or "requestState" (at least one MUST be present)',
        fix: 'add the input requests, or a requestState for a plain retry',
      });
    const reqs = isObj(ir.obj.inputRequests) ? ir.obj.inputRequests : {};
    if ('inputRequests' in ir.obj && !isObj(ir.obj.inputRequests))
      issues.push({
        code: 'input-requests-type',
        path: child(ir.base, 'inputRequests'),
        severity: 'error',
        message: '"inputRequests" must be an object mapping keys to requests',
      });
    for (const [key, req] of Object.entries(reqs)) {
      const p = child(ir.base, 'inputRequests', key);
      if (!isObj(req) || !['elicitation/create', 'sampling/createMessage', 'roots/list'].includes(req.method as string))
        issues.push({
          code: 'input-request-method',
          path: child(p, 'method'),
          severity: 'error',
          message: `input request "${key}" must be {method, params} with method elicitation/create, sampling/createMessage or roots/list (got ${show(isObj(req) ? req.method : req)})`,
        });
      else if (req.method === 'elicitation/create') {
        if (isObj(req.params)) found.push(fromParams(req.params, child(p, 'params'), revision));
        else
          issues.push({
            code: 'params',
            path: child(p, 'params'),
            severity: 'error',
            message: `input request "${key}" has no params object`,
          });
      }
    }
    return { kind: 'input_required', found, issues };
  }
  if (doc.method === 'elicitation/create' && isObj(doc.params))
    return { kind: 'request', found: [fromParams(doc.params, '/params', revision)], issues: [] };
  if ('requestedSchema' in doc || (typeof doc.message === 'string' && 'mode' in doc))
    return { kind: 'request', found: [fromParams(doc, '', revision)], issues: [] };
  if ('properties' in doc || doc.type === 'object')
    return { kind: 'schema', found: [{ path: '', schema: doc, mode: 'form', requestIssues: [] }], issues: [] };
  return { kind: 'unknown', found: [], issues: [] };
}
