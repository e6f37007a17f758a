/**
 * Finds the `requestedSchema`s inside a document: a bare `requestedSchema`, an `elicitation/create`
 * request (JSON-RPC message or its `params`), or a 2026-07-28 `input_required` result (bare or as a
 * JSON-RPC response) whose `inputRequests` hold form elicitations.
 * Spec: 2026-07-28 mrtr §Wire shapes (`inputRequests` map of `{method, params}`).
 * @module
 */
import { child } from './pointer.js';

export interface FoundSchema {
  /** JSON pointer of the `requestedSchema` in the document. */
  path: string;
  schema: unknown;
  /** `'form'` for form requests; URL-mode requests have no schema and are listed with `schema: undefined`. */
  mode: 'form' | 'url';
  message?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function fromParams(params: Obj, path: string): FoundSchema {
  const mode = params.mode === 'url' ? 'url' : 'form';
  return { path: mode === 'url' ? path : child(path, 'requestedSchema'), schema: mode === 'url' ? undefined : params.requestedSchema, mode, message: typeof params.message === 'string' ? params.message : undefined };
}

/** What kind of document it is and the schemas in it; `kind: 'unknown'` when nothing is recognised. */
export function findRequestedSchemas(doc: unknown): { kind: 'schema' | 'request' | 'input_required' | 'unknown'; found: FoundSchema[] } {
  if (!isObj(doc)) return { kind: 'unknown', found: [] };
  const result = isObj(doc.result) ? doc.result : undefined;
  const ir = result && result.resultType === 'input_required' ? { obj: result, base: '/result' } : doc.resultType === 'input_required' || isObj(doc.inputRequests) ? { obj: doc, base: '' } : undefined;
  if (ir) {
    const found: FoundSchema[] = [];
    const reqs = isObj(ir.obj.inputRequests) ? ir.obj.inputRequests : {};
    for (const [key, req] of Object.entries(reqs)) {
      if (isObj(req) && req.method === 'elicitation/create' && isObj(req.params)) found.push(fromParams(req.params, child(ir.base, 'inputRequests', key, 'params')));
    }
    return { kind: 'input_required', found };
  }
  if (doc.method === 'elicitation/create' && isObj(doc.params)) return { kind: 'request', found: [fromParams(doc.params, '/params')] };
  if ('requestedSchema' in doc || (typeof doc.message === 'string' && 'mode' in doc)) return { kind: 'request', found: [fromParams(doc, '')] };
  if ('properties' in doc || doc.type === 'object') return { kind: 'schema', found: [{ path: '', schema: doc, mode: 'form' }] };
  return { kind: 'unknown', found: [] };
}
