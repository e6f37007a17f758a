// A test cites the requirements it checks (rows of test/requirements.ts) by calling `verifies` in its
// code, never by a comment:
//   test('…', verifies('ELIC-RESULT-ACTIONS', '2026-07-28', 'http', async (t) => { … }));  // wraps the body
//   test('…', async (t) => { verifies(['ROOTS-URI-FILE', 'ROOTS-SERVER-VALIDATE-PATHS']); … });  // a statement
// Era and transport are optional. The wrapper records the citation when the body runs, the statement
// when it is reached; test/requirements.test.ts reads the calls from the test files' syntax trees and
// fails when a listed requirement has none.

/** The protocol revision a test runs on. */
export type VerifiedEra = '2025-06-18' | '2025-11-25' | '2026-07-28';
/** How the peers are connected in the test. */
export type VerifiedTransport = 'stdio' | 'http' | 'memory';

export const VERIFIED_ERAS: readonly VerifiedEra[] = ['2025-06-18', '2025-11-25', '2026-07-28'];
export const VERIFIED_TRANSPORTS: readonly VerifiedTransport[] = ['stdio', 'http', 'memory'];

export interface Verification {
  ids: readonly string[];
  era?: VerifiedEra;
  transport?: VerifiedTransport;
  /** The running test's name, when the wrapper form received the test context. */
  test?: string;
}

/** Citations reached in this process, in order. */
export const verifications: Verification[] = [];

type Ids = string | readonly string[];
type Body = (...args: any[]) => unknown;

function check(era: unknown, transport: unknown): void {
  if (era !== undefined && !VERIFIED_ERAS.includes(era as VerifiedEra)) throw new TypeError(`verifies: unknown era ${String(era)}`);
  if (transport !== undefined && !VERIFIED_TRANSPORTS.includes(transport as VerifiedTransport))
    throw new TypeError(`verifies: unknown transport ${String(transport)}`);
}

/**
 * Cites the requirements `ids` as verified (on `era`, over `transport`, when given). With a function
 * last, returns it wrapped (pass it as the test body); without, records the citation at once.
 */
export function verifies<F extends Body>(ids: Ids, fn: F): F;
export function verifies<F extends Body>(ids: Ids, era: VerifiedEra | undefined, fn: F): F;
export function verifies<F extends Body>(ids: Ids, era: VerifiedEra | undefined, transport: VerifiedTransport | undefined, fn: F): F;
export function verifies(ids: Ids, era?: VerifiedEra, transport?: VerifiedTransport): void;
export function verifies(ids: Ids, ...rest: unknown[]): Body | undefined {
  const fn = typeof rest.at(-1) === 'function' ? (rest.pop() as Body) : undefined;
  const [era, transport] = rest as [VerifiedEra | undefined, VerifiedTransport | undefined];
  check(era, transport);
  const list = typeof ids === 'string' ? [ids] : [...ids];
  if (!fn) {
    verifications.push({ ids: list, era, transport });
    return undefined;
  }
  return function verifying(this: unknown, ...args: unknown[]) {
    const name = (args[0] as { name?: unknown } | undefined)?.name;
    verifications.push({ ids: list, era, transport, ...(typeof name === 'string' ? { test: name } : {}) });
    return fn.apply(this, args);
  };
}
