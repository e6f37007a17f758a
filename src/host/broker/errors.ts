/**
 * Errors the broker raises. {@link InvalidElicitationError} crosses the wire as JSON-RPC -32602
 * (thrown inside an SDK `elicitation/create` handler, the SDK sends its `code`, `message` and `data`).
 * @module
 */
import { ProtocolError } from '@modelcontextprotocol/client';
import type { Issue } from '../../schema/index.js';

/** -32602 Invalid params: a request the broker cannot show (bad shape, nested schema, undeclared mode). */
export class InvalidElicitationError extends ProtocolError {
  constructor(
    message: string,
    readonly issues: Issue[] = [],
  ) {
    super(-32602, message, { issues });
    this.name = 'InvalidElicitationError';
  }
}

/** The broker's promise rejects with this when the server cancelled the request (no answer is sent). */
export class ElicitationCancelledError extends Error {
  readonly code = 'CANCELLED_BY_SERVER';
  constructor(
    readonly server: string,
    readonly requestId: string,
  ) {
    super(`Server "${server}" cancelled input request ${requestId}; no answer is sent.`);
    this.name = 'ElicitationCancelledError';
  }
}

/** Issues shown in an error message; the rest are counted (all of them are in `data.issues`). */
const SHOWN_ISSUES = 3;

/**
 * The same issues for a person (a notice on the terminal or in the console): each message names its
 * field already, so no rule name or JSON pointer (those stay in the audit record and in `data.issues`).
 */
export function describeIssuesForPeople(issues: Issue[]): string {
  const shown = issues.slice(0, SHOWN_ISSUES).map((i) => i.message);
  if (issues.length > SHOWN_ISSUES) shown.push(`and ${issues.length - SHOWN_ISSUES} more`);
  return shown.join('; ');
}

/**
 * A short text naming each rule and JSON pointer: `nested-object at requestedSchema/properties/address:
 * <message> Fix: <fix>`; at most three issues, then `and N more`. `base` prefixes each pointer.
 */
export function describeIssues(issues: Issue[], base = 'requestedSchema'): string {
  const shown = issues
    .slice(0, SHOWN_ISSUES)
    .map((i) => `${i.code} at ${base}${i.path || ''}: ${i.message}${i.fix ? ` Fix: ${i.fix}.` : ''}`);
  if (issues.length > SHOWN_ISSUES) shown.push(`and ${issues.length - SHOWN_ISSUES} more (see data.issues)`);
  return shown.join('; ');
}
