/**
 * Typed errors of the server toolkit. Each carries data a test or a host can read; none carries secrets.
 * @module
 */
import type { Issue } from '../schema/types.js';

/** Base class: every toolkit error has a stable `code` string. */
export class ParleyServerError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * The author's `requestedSchema` cannot be sent: a lint error for the connection's revision, a shape the
 * wire cannot carry, an empty form outside `ctx.confirm`, or a sensitive field in form mode
 * (spec 2025-11-25 client/elicitation §User Interaction Model: form mode MUST NOT ask for secrets).
 */
export class ElicitationSchemaError extends ParleyServerError {
  constructor(
    message: string,
    readonly issues: Issue[] = [],
  ) {
    super('elicitation-schema', message);
  }
}

/** An accepted answer failed validation against the `requestedSchema` (vectors R3-R7). */
export class ElicitationAnswerError extends ParleyServerError {
  constructor(
    message: string,
    readonly issues: Issue[],
  ) {
    super('elicitation-answer', message);
  }
}

/** No answer arrived within `elicitationTimeoutMs` (or `rootsTimeoutMs`). */
export class ElicitationTimeoutError extends ParleyServerError {
  constructor(
    readonly timeoutMs: number,
    what = 'elicitation',
  ) {
    const setting = /^roots/.test(what) ? 'rootsTimeoutMs' : 'elicitationTimeoutMs';
    super('timeout', `no answer to the ${what} within ${timeoutMs} ms (raise ${setting} on createParleyServer)`);
  }
}

/** One field the tool needed but could not ask for. */
export interface NeededField {
  name: string;
  description?: string;
}

/**
 * The client cannot answer what the tool needs (no `elicitation` capability, no mode, or no `roots`):
 * nothing was sent. The wrapper turns it into an `isError` result listing the fields (vector Q4) on
 * 2025 eras, and into JSON-RPC -32021 with `data.requiredCapabilities` on 2026-07-28.
 */
export class InputUnavailableError extends ParleyServerError {
  /**
   * @param requiredCapabilities the client capability that was missing, e.g. `{elicitation: {form: {}}}`;
   *   on 2026-07-28 it becomes `data.requiredCapabilities` of a -32021 MissingRequiredClientCapabilityError.
   */
  constructor(
    readonly reason: string,
    readonly fields: NeededField[],
    readonly howToSupply: string,
    readonly requiredCapabilities?: Record<string, unknown>,
  ) {
    super(
      'input-unavailable',
      `${reason}. Needed: ${fields.map((f) => (f.description ? `${f.name} (${f.description})` : f.name)).join(', ') || 'input'}. ${howToSupply}`,
    );
  }
}

/** The person declined or cancelled a configuration or a required answer. */
export class ElicitationRefusedError extends ParleyServerError {
  constructor(
    readonly action: 'decline' | 'cancel',
    what: string,
  ) {
    super('refused', `the user chose ${action} for ${what}`);
  }
}
