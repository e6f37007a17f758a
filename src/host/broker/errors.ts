/**
 * Errors the broker raises. {@link InvalidElicitationError} crosses the wire as JSON-RPC -32602
 * (thrown inside an SDK `elicitation/create` handler, the SDK sends its `code`, `message` and `data`).
 * @module
 */
import { ProtocolError } from '@modelcontextprotocol/client';
import type { Issue } from '../../schema/index.js';

/** -32602 Invalid params: a request the broker cannot show (bad shape, nested schema, undeclared mode). */
export class InvalidElicitationError extends ProtocolError {
  constructor(message: string, readonly issues: Issue[] = []) {
    super(-32602, message, { issues });
    this.name = 'InvalidElicitationError';
  }
}

/** The broker's promise rejects with this when the server cancelled the request (no answer is sent). */
export class ElicitationCancelledError extends Error {
  readonly code = 'CANCELLED_BY_SERVER';
  constructor(readonly server: string, readonly requestId: string) {
    super(`Server "${server}" cancelled input request ${requestId}; no answer is sent.`);
    this.name = 'ElicitationCancelledError';
  }
}

/** One line per issue: `<pointer>: <message> (fix)`. */
export function describeIssues(issues: Issue[]): string {
  return issues.map((i) => `requestedSchema${i.path || ''}: ${i.message}${i.fix ? ` Fix: ${i.fix}` : ''}`).join('; ');
}
