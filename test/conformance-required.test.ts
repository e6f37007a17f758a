// The per-revision tally of required conformance scenarios (scripts/conformance/required.mjs): the required
// sets are read from the suite's own `list --requirements` output, and a scenario passes only with results,
// a success and no failure.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
// @ts-expect-error plain ESM script without types
import { requiredSets, requiredSummary } from '../scripts/conformance/required.mjs';

const LIST: Record<string, string> = {
  'list --server --requirements 2025-11-25':
    'Required for 2025-11-25:\n\nServer scenarios (test against a server):\n  - ping\n\nRun and reported, but never scored:\n  pending (1):\n    - server-sse-polling [server]\n',
  'list --client --requirements 2025-11-25': 'Client scenarios (test against a client):\n  - initialize\n',
  'list --server --requirements 2026-07-28':
    'Server scenarios (test against a server):\n  - caching\n  - input-required-result-basic-sampling\n',
  'list --client --requirements 2026-07-28': 'Client scenarios (test against a client):\n  - tools_call\n  - auth/iss-supported\n',
  'list --server':
    'Server scenarios (test against a server):\n  - ping [2025-06-18,2025-11-25]\n  - caching [2026-07-28]\n  - server-session-lifecycle [2025-03-26,2025-06-18,2025-11-25]\n',
  'list --client': 'Client scenarios (test against a client):\n  - initialize [2025-06-18,2025-11-25]\n  - auth/dpop [extension]\n',
};
const ok = [{ status: 'SUCCESS' }];

describe('required scenarios per revision', () => {
  it('reads the suite lists, skips unscored entries, and counts passes, failures and scenarios not run', async () => {
    const sets = await requiredSets(async (argv: string[]) => ({ code: 0, stdout: LIST[argv.join(' ')] ?? '' }));
    assert.deepEqual(sets['2025-11-25'], { server: ['ping'], client: ['initialize'] });
    assert.deepEqual(sets['2025-06-18'], { server: ['ping'], client: ['initialize'] });
    const results = [
      { line: '0.1', side: 'server', name: 'ping', checks: ok },
      { line: '0.1', side: 'client', name: 'initialize', checks: ok },
      { line: '0.2', side: 'server', name: 'ping @2025-11-25', checks: [{ status: 'SUCCESS' }, { status: 'FAILURE' }] },
      { line: '0.2', side: 'server', name: 'caching', checks: ok },
      { line: '0.2', side: 'server', name: 'input-required-result-basic-sampling', checks: [{ status: 'WARNING' }] },
      { line: '0.2', side: 'client', name: 'tools_call', checks: ok },
    ];
    assert.deepEqual(requiredSummary(sets, results), [
      'required 2025-06-18: 2/2 scenarios pass (server 1/1, client 1/1)',
      'required 2025-11-25: 1/2 scenarios pass (server 0/1, client 1/1); failing: server ping',
      'required 2026-07-28: 2/4 scenarios pass (server 1/2, client 1/2); failing: server input-required-result-basic-sampling; not run: client auth/iss-supported',
    ]);
  });
});
